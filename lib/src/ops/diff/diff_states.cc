// The structural half of `ckpt diff` that needs bytes: state names, kinds and serializers
// as the backend proxies at the head of each subtask's state stream record them.
#include <algorithm>
#include <memory>

#include "ops/diff/diff_internal.h"
#include "state/proxy_reader.h"

namespace ckpt {

namespace {

constexpr std::string_view kTimerKind = "PRIORITY_QUEUE";

// `key` is the keyed backend's key serializer, or null for operator state.
void add_states(const std::vector<StateMetaInfo>& infos, const SerializerSnapshot* key, OperatorStates& into) {
  for (const StateMetaInfo& info : infos) {
    auto [it, first] = into.states.try_emplace(info.name);
    StateShape& shape = it->second;
    shape.kind = state_kind_name(info.kind());
    std::string bytes;
    auto put = [&bytes](std::string_view role, const std::string& raw) {
      // Length-prefixed, so that no two lists of snapshots run together alike.
      bytes += std::to_string(role.size()) + ':' + std::string(role) + std::to_string(raw.size()) + ':' + raw;
    };
    if (key) put("key", key->raw);
    for (const auto& [role, snapshot] : info.serializers) {
      shape.serializers[role] = serializer_signature(snapshot);
      put(role, snapshot.raw);
    }
    if (!first && bytes != shape.snapshot_bytes) shape.mixed = true;
    shape.snapshot_bytes = std::move(bytes);
  }
}

std::string shape_serializers(const StateShape& s) {
  std::string out;
  for (const auto& [role, sig] : s.serializers) {
    if (!out.empty()) out += ", ";
    out += role + "=" + sig;
  }
  return out;
}

}  // namespace

std::map<std::string, OperatorStates> collect_states(const Metadata& m, const SnapshotLocation& where,
                                                     const std::vector<PrefixRule>& remap) {
  std::map<std::string, OperatorStates> out;
  ProxyReader reader(where, remap);
  for (const OperatorState& op : m.operators) {
    std::string id = operator_id_hex(op.id);
    OperatorStates& states = out[id];
    for (const SubtaskState& st : op.subtasks) {
      std::vector<Status> results;
      results.push_back(
          reader.keyed(st.managed_keyed,
                       [&](const KeyedBackendMeta& meta) { add_states(meta.states, &meta.key_serializer, states); }));
      for (const OperatorHandle& h : st.managed_operator) {
        if (h.is_null()) continue;
        auto meta = reader.operator_state(h);
        if (!meta.ok()) {
          results.push_back(std::move(meta).error());
          continue;
        }
        add_states(meta->list_states, nullptr, states);
        add_states(meta->broadcast_states, nullptr, states);
      }
      for (Status& s : results) {
        // One note per operator is enough to say its states were not all compared.
        if (!s.ok() && states.notes.empty())
          states.notes.push_back("operator " + id + ", subtask " + std::to_string(st.index) +
                                 ": states not compared: " + s.error().to_string());
      }
    }
  }
  return out;
}

void diff_states(const std::map<std::string, OperatorStates>& a, const std::map<std::string, OperatorStates>& b,
                 DiffReport& report) {
  for (const auto& [id, sa] : a) {
    auto it = b.find(id);
    if (it == b.end()) continue;
    const OperatorStates& sb = it->second;
    for (const std::string& n : sa.notes) report.notes.push_back("A: " + n);
    for (const std::string& n : sb.notes) report.notes.push_back("B: " + n);
    // A state missing on a side whose proxies could not all be read is not known to be gone.
    // Timer queues are registered in the proxy by the heap timer service only (RocksDB's heap
    // timers live in raw keyed state): where they sit is backend configuration, not structure,
    // and --keys compares the timers themselves.
    for (const auto& [name, shape] : sa.states) {
      auto other = sb.states.find(name);
      if (other == sb.states.end()) {
        if (shape.kind == kTimerKind) report.notes.push_back("operator " + id + ": timer state '" + name + "' only in A's proxy");
        else if (sb.notes.empty()) report.structure.push_back({"state-removed", id, name, shape.kind, ""});
        continue;
      }
      if (shape.kind != other->second.kind)
        report.structure.push_back({"state-kind", id, name, shape.kind, other->second.kind});
      if (shape.serializers != other->second.serializers)
        report.structure.push_back(
            {"serializer", id, name, shape_serializers(shape), shape_serializers(other->second)});
    }
    for (const auto& [name, shape] : sb.states) {
      if (sa.states.count(name)) continue;
      if (shape.kind == kTimerKind) report.notes.push_back("operator " + id + ": timer state '" + name + "' only in B's proxy");
      else if (sa.notes.empty()) report.structure.push_back({"state-added", id, name, "", shape.kind});
    }
  }
}

}  // namespace ckpt
