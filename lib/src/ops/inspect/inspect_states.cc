// Operator states for the inspect report: the backend proxies for names and serializers, the
// dump layer for entry counts.
#include "ops/inspect/inspect_states.h"

#include <map>

#include "ckpt/dump.h"
#include "state/proxy_reader.h"

namespace ckpt {
namespace {

std::string class_of(const SerializerSnapshot* s) { return s ? s->serializer_class : std::string(); }

// States in first-seen order; an operator has a handful, so a linear search finds them.
StateSummary& find_or_add(OperatorSummary& op, const std::string& name) {
  for (StateSummary& s : op.states)
    if (s.name == name) return s;
  op.states.push_back(StateSummary{});
  op.states.back().name = name;
  return op.states.back();
}

void add_state(OperatorSummary& op, const StateMetaInfo& info, const SerializerSnapshot* keyed_key_serializer) {
  StateSummary& s = find_or_add(op, info.name);
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

void note_states_problem(OperatorSummary& op, const Error& e) {
  if (op.states_error.empty()) op.states_error = e.to_string();
}

// Counts `ckpt dump` lines per operator and state.
class StateCountSink : public DumpSink {
 public:
  explicit StateCountSink(InspectReport& r) : r_(r) {
    for (size_t i = 0; i < r.operators.size(); ++i) by_id_.emplace(r.operators[i].id, i);
  }
  void entry(const Entry& e) override {
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
  void apply() {
    for (size_t i = 0; i < r_.operators.size(); ++i) {
      for (StateSummary& s : r_.operators[i].states) s.entries = 0;
      for (const auto& [name, count] : counts_[i]) {
        StateSummary& s = find_or_add(r_.operators[i], name);
        // A state no proxy names: legacy raw-keyed timers, or a change log's own states.
        if (s.kind.empty()) {
          s.kind = count.kind == EntryKind::kTimer ? "TIMER" : count.kind == EntryKind::kKeyed ? "UNKNOWN" : "OPERATOR";
          s.keyed = count.kind != EntryKind::kOperator;
        }
        s.entries = count.n;
      }
    }
  }

 private:
  struct Count {
    uint64_t n;
    EntryKind kind;
  };
  InspectReport& r_;
  std::map<std::string, size_t> by_id_;
  std::map<size_t, std::map<std::string, Count>> counts_;
};

}  // namespace

OperatorStatesReader::OperatorStatesReader(const SnapshotLocation& where, const std::vector<PrefixRule>& remap)
    : reader_(std::make_unique<ProxyReader>(where, remap)) {}

OperatorStatesReader::~OperatorStatesReader() = default;

void OperatorStatesReader::read(const OperatorState& op, OperatorSummary& s) {
  for (const SubtaskState& st : op.subtasks) {
    for (const OperatorHandle& h : st.managed_operator) {
      if (h.is_null()) continue;
      auto meta = reader_->operator_state(h);
      if (!meta.ok()) {
        note_states_problem(s, meta.error());
        continue;
      }
      for (const StateMetaInfo& info : meta->list_states) add_state(s, info, nullptr);
      for (const StateMetaInfo& info : meta->broadcast_states) add_state(s, info, nullptr);
    }
    Status status = reader_->keyed(st.managed_keyed, [&](const KeyedBackendMeta& meta) {
      for (const StateMetaInfo& info : meta.states) add_state(s, info, &meta.key_serializer);
    });
    if (!status.ok()) note_states_problem(s, status.error());
  }
}

void finish_inspect_states(const SnapshotLocation& where, const InspectOptions& options, InspectReport& r) {
  r.states_read = true;
  if (!options.count) return;
  DumpOptions d;
  d.jobs = options.jobs;
  d.keep_going = true;
  d.remap = options.remap;
  d.progress = options.progress;
  StateCountSink sink(r);
  Result<DumpSummary> done = dump_snapshot(where.metadata_path, d, sink);
  if (!done.ok()) {
    for (auto& op : r.operators)
      if (op.states_error.empty()) op.states_error = done.error().to_string();
    return;
  }
  sink.apply();
  r.counted = true;
}

}  // namespace ckpt
