// The structural half of `ckpt diff` that needs bytes: state names, kinds and serializers
// as the backend proxies at the head of each subtask's state stream record them.
#include <algorithm>
#include <memory>

#include "ops/diff_internal.h"
#include "state/backend_meta.h"
#include "state/state_stream.h"
#include "support/byte_reader.h"

namespace ckpt {

namespace {

constexpr std::string_view kTimerKind = "PRIORITY_QUEUE";

// "MapSerializer<StringSerializer,LongSerializer>": enough to tell a changed type apart.
std::string serializer_signature(const SerializerSnapshot& s) {
  std::string out = s.display_name();
  if (!s.nested.empty()) {
    out += '[';
    for (size_t i = 0; i < s.nested.size(); ++i) {
      if (i) out += ',';
      out += serializer_signature(s.nested[i]);
    }
    out += ']';
  }
  return out;
}

void add_states(const std::vector<StateMetaInfo>& infos, OperatorStates& into) {
  for (const StateMetaInfo& info : infos) {
    StateShape& shape = into.states[info.name];
    shape.kind = state_kind_name(info.kind());
    for (const auto& [role, snapshot] : info.serializers) shape.serializers[role] = serializer_signature(snapshot);
  }
}

class ProxyReader {
 public:
  ProxyReader(const Metadata& m, const SnapshotLocation& where, const std::vector<PrefixRule>& remap)
      : metadata_file_(where.metadata_path), resolver_(std::make_shared<FileResolver>(where.directory, remap)) {
    resolve_ = [r = resolver_](uint8_t type, const std::string& uri) -> std::optional<std::string> {
      auto found = r->find(type, uri);
      if (!found) return std::nullopt;
      return found->path;
    };
  }

  // The first `limit` bytes of a stream (all of it if smaller).
  Result<std::string> head(const StreamHandle& s, uint64_t limit) {
    CKPT_ASSIGN_OR_RETURN(StateStream stream, StateStream::open(s, resolve_, metadata_file_));
    std::string bytes;
    CKPT_RETURN_IF_ERROR(stream.read(0, std::min<uint64_t>(limit, stream.size()), &bytes));
    base_ = stream.base();
    return bytes;
  }

  Status keyed(const KeyedHandle& h, OperatorStates& into) {
    switch (h.type) {
      case handle_type::kKeyGroups:
      case handle_type::kSavepointKeyGroups:
      case handle_type::kKeyGroupsWithId: {
        // The proxy ends where the first key group starts.
        uint64_t end = UINT64_MAX;
        for (int64_t off : h.offsets)
          if (off >= 0) end = std::min<uint64_t>(end, static_cast<uint64_t>(off));
        return keyed_proxy(h.delegate, end, into);
      }
      case handle_type::kIncrementalV1:
      case handle_type::kIncremental:
        return keyed_proxy(h.delegate, UINT64_MAX, into);
      case handle_type::kChangelogBackendV1:
      case handle_type::kChangelogBackend:
        for (const KeyedHandle& m : h.materialized) CKPT_RETURN_IF_ERROR(keyed(m, into));
        return Status::OK();
      default:
        return Status::OK();
    }
  }

  Status operator_state(const OperatorHandle& h, OperatorStates& into) {
    if (h.is_null()) return Status::OK();
    uint64_t end = UINT64_MAX;
    for (const OperatorStateEntry& e : h.states)
      for (int64_t off : e.offsets)
        if (off >= 0) end = std::min<uint64_t>(end, static_cast<uint64_t>(off));
    CKPT_ASSIGN_OR_RETURN(std::string bytes, head(h.delegate, end));
    ByteReader r(bytes, base_);
    CKPT_ASSIGN_OR_RETURN(OperatorBackendMeta meta, read_operator_backend_meta(r));
    add_states(meta.list_states, into);
    add_states(meta.broadcast_states, into);
    return Status::OK();
  }

 private:
  Status keyed_proxy(const StreamHandle& s, uint64_t end, OperatorStates& into) {
    CKPT_ASSIGN_OR_RETURN(std::string bytes, head(s, end));
    ByteReader r(bytes, base_);
    CKPT_ASSIGN_OR_RETURN(KeyedBackendMeta meta, read_keyed_backend_meta(r));
    add_states(meta.states, into);
    return Status::OK();
  }

  std::string metadata_file_;
  std::shared_ptr<FileResolver> resolver_;
  PathResolver resolve_;
  uint64_t base_ = 0;
};

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
  ProxyReader reader(m, where, remap);
  for (const OperatorState& op : m.operators) {
    std::string id = operator_id_hex(op.id);
    OperatorStates& states = out[id];
    for (const SubtaskState& st : op.subtasks) {
      std::vector<Status> results;
      results.push_back(reader.keyed(st.managed_keyed, states));
      for (const OperatorHandle& h : st.managed_operator) results.push_back(reader.operator_state(h, states));
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
