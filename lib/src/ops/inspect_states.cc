// Operator states for the inspect report: the backend proxies for names and serializers, the
// dump layer for entry counts.
#include "ops/inspect_states.h"

#include <map>

#include "ckpt/dump.h"
#include "state/proxy_reader.h"

namespace ckpt {
namespace {

std::string class_of(const SerializerSnapshot* s) { return s ? s->serializer_class : std::string(); }

class StateCollector {
 public:
  explicit StateCollector(OperatorSummary& op) : op_(op) {}

  void add(const StateMetaInfo& info, const SerializerSnapshot* keyed_key_serializer) {
    StateSummary& s = find_or_add(info.name);
    s.kind = state_kind_name(info.kind());
    s.keyed = keyed_key_serializer != nullptr;
    std::string key = s.keyed ? keyed_key_serializer->serializer_class : class_of(info.key_serializer());
    // Change logs name no key serializer: keep the one a materialized part gave.
    if (!key.empty()) s.key_serializer = std::move(key);
    s.namespace_serializer = class_of(info.namespace_serializer());
    const SerializerSnapshot* value = info.value_serializer();
    s.value_serializer = class_of(value);
    s.value_type = value ? serializer_signature(*value) : std::string();
  }

  void problem(const Error& e) {
    if (op_.states_error.empty()) op_.states_error = e.to_string();
  }

  StateSummary& find_or_add(const std::string& name) {
    auto it = index_.find(name);
    if (it != index_.end()) return op_.states[it->second];
    index_.emplace(name, op_.states.size());
    op_.states.push_back(StateSummary{});
    op_.states.back().name = name;
    return op_.states.back();
  }

 private:
  OperatorSummary& op_;
  std::map<std::string, size_t> index_;
};

// Counts `ckpt dump` lines per operator and state.
class CountingSink : public DumpSink {
 public:
  explicit CountingSink(InspectReport& r) : r_(r) {
    for (size_t i = 0; i < r.operators.size(); ++i) by_id_.emplace(r.operators[i].id, i);
  }
  void entry(const DumpEntry& e) override {
    auto it = by_id_.find(e.operator_id);
    if (it == by_id_.end()) return;
    auto& counts = counts_[it->second];
    auto c = counts.find(e.state);
    if (c == counts.end()) c = counts.emplace(e.state, Count{0, e.kind}).first;
    ++c->second.n;
  }
  void problem(const Error& e) override {
    // Dump problems name "operator <id>, subtask <n>" in their context.
    std::string text = e.to_string();
    for (auto& op : r_.operators)
      if (text.find(op.id) != std::string::npos) {
        if (op.states_error.empty()) op.states_error = text;
        return;
      }
  }
  void apply(std::vector<StateCollector>& collectors) {
    for (size_t i = 0; i < r_.operators.size(); ++i) {
      for (StateSummary& s : r_.operators[i].states) s.entries = 0;
      for (const auto& [name, count] : counts_[i]) {
        StateSummary& s = collectors[i].find_or_add(name);
        // A state no proxy names: legacy raw-keyed timers, or a change log's own states.
        if (s.kind.empty()) {
          s.kind = count.kind == "timer" ? "TIMER" : count.kind == "keyed" ? "UNKNOWN" : "OPERATOR";
          s.keyed = count.kind != "operator";
        }
        s.entries = count.n;
      }
    }
  }

 private:
  struct Count {
    uint64_t n;
    std::string kind;
  };
  InspectReport& r_;
  std::map<std::string, size_t> by_id_;
  std::map<size_t, std::map<std::string, Count>> counts_;
};

}  // namespace

void add_inspect_states(const Metadata& m, const SnapshotLocation& where, const InspectOptions& options,
                        InspectReport& r) {
  ProxyReader reader(where, options.remap);
  std::vector<StateCollector> collectors;
  collectors.reserve(r.operators.size());
  for (size_t i = 0; i < m.operators.size() && i < r.operators.size(); ++i) {
    StateCollector& c = collectors.emplace_back(r.operators[i]);
    for (const SubtaskState& st : m.operators[i].subtasks) {
      for (const OperatorHandle& h : st.managed_operator) {
        if (h.is_null()) continue;
        auto meta = reader.operator_state(h);
        if (!meta.ok()) {
          c.problem(meta.error());
          continue;
        }
        for (const StateMetaInfo& info : meta->list_states) c.add(info, nullptr);
        for (const StateMetaInfo& info : meta->broadcast_states) c.add(info, nullptr);
      }
      Status s = reader.keyed(st.managed_keyed, [&](const KeyedBackendMeta& meta) {
        for (const StateMetaInfo& info : meta.states) c.add(info, &meta.key_serializer);
      });
      if (!s.ok()) c.problem(s.error());
    }
  }
  r.states_read = true;
  if (!options.count) return;
  DumpOptions d;
  d.jobs = options.jobs;
  d.keep_going = true;
  d.remap = options.remap;
  CountingSink sink(r);
  Result<DumpSummary> done = dump_snapshot(where.metadata_path, d, sink);
  if (!done.ok()) {
    for (auto& op : r.operators)
      if (op.states_error.empty()) op.states_error = done.error().to_string();
    return;
  }
  sink.apply(collectors);
  r.counted = true;
}

}  // namespace ckpt
