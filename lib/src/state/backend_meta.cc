// Keyed and operator backend serialization proxies (formats/keyed-state.md §3, §4, §14).
#include "state/backend_meta.h"

#include <fmt/format.h>

#include "state/legacy_backend_meta.h"
#include "support/byte_writer.h"

namespace ckpt {
namespace {

constexpr int32_t kKeyedProxyVersion = 6;
constexpr int32_t kMaxStates = 0x7fff;

// A sticky-error guard so a group of reads is checked once.

Status write_utf(ByteWriter& w, std::string_view s, const char* what) {
  if (!w.utf(s)) return Error(ErrorCode::kInvalidArgument, fmt::format("{} longer than 65535 bytes", what));
  return Status::OK();
}

Result<std::vector<StateMetaInfo>> read_meta_infos(ByteReader& r, const SnapshotReadOptions& options,
                                                   const char* what) {
  return read_meta_info_list(r, what, [&](ByteReader& in) { return read_state_meta_info(in, options); });
}

Status write_meta_infos(ByteWriter& w, const std::vector<StateMetaInfo>& states) {
  if (states.size() > static_cast<size_t>(kMaxStates))
    return Error(ErrorCode::kInvalidArgument, fmt::format("{} states, at most 32767 fit a proxy", states.size()));
  w.i16(static_cast<int16_t>(states.size()));
  for (const auto& s : states) CKPT_RETURN_IF_ERROR(write_state_meta_info(w, s));
  return Status::OK();
}

// The stored byte if it still says what `flag` says, else the canonical 0 / 1.
uint8_t stored_flag(bool flag, uint8_t stored) { return (stored != 0) == flag ? stored : (flag ? 1 : 0); }

const StateMetaInfo* find_in(const std::vector<StateMetaInfo>& v, std::string_view name) {
  for (const auto& s : v)
    if (s.name == name) return &s;
  return nullptr;
}

// A legacy proxy is written back as it was read: ckpt keeps no writer of those layouts.
Result<std::string> legacy_bytes_of(const std::string& bytes, const char* which, int32_t version) {
  if (bytes.empty())
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("a {} backend proxy of version {} can only be copied from a snapshot, not written", which,
                             version));
  return bytes;
}

}  // namespace

Result<std::vector<StateMetaInfo>> read_meta_info_list(
    ByteReader& r, const char* what, const std::function<Result<StateMetaInfo>(ByteReader&)>& read_one) {
  uint64_t at = r.offset();
  int16_t n = r.i16();
  if (!r.ok()) return *r.error();
  if (n < 0) return Error(ErrorCode::kCorruption, fmt::format("negative {} count {}", what, n), at);
  std::vector<StateMetaInfo> out;
  for (int i = 0; i < n; ++i) {
    CKPT_ASSIGN_OR_RETURN(auto m, read_one(r));
    out.push_back(std::move(m));
  }
  return out;
}

const char* backend_state_type_name(BackendStateType t) {
  switch (t) {
    case BackendStateType::kKeyValue: return "KEY_VALUE";
    case BackendStateType::kOperator: return "OPERATOR";
    case BackendStateType::kBroadcast: return "BROADCAST";
    case BackendStateType::kPriorityQueue: return "PRIORITY_QUEUE";
    case BackendStateType::kKeyValueV2: return "KEY_VALUE_V2";
  }
  return "UNKNOWN";
}

const char* state_kind_name(StateKind k) {
  switch (k) {
    case StateKind::kValue: return "VALUE";
    case StateKind::kList: return "LIST";
    case StateKind::kMap: return "MAP";
    case StateKind::kReducing: return "REDUCING";
    case StateKind::kAggregating: return "AGGREGATING";
    case StateKind::kFolding: return "FOLDING";
    case StateKind::kPriorityQueue: return "PRIORITY_QUEUE";
    case StateKind::kOperatorList: return "SPLIT_DISTRIBUTE";
    case StateKind::kOperatorUnion: return "UNION";
    case StateKind::kBroadcast: return "BROADCAST";
    case StateKind::kUnknown: break;
  }
  return "UNKNOWN";
}

bool is_keyed_kind(StateKind k) {
  return k == StateKind::kValue || k == StateKind::kList || k == StateKind::kMap || k == StateKind::kReducing ||
         k == StateKind::kAggregating || k == StateKind::kFolding || k == StateKind::kPriorityQueue;
}

std::string StateMetaInfo::option(std::string_view key) const {
  for (const auto& [k, v] : options)
    if (k == key) return v;
  return {};
}

const SerializerSnapshot* StateMetaInfo::serializer(std::string_view role) const {
  for (const auto& [k, v] : serializers)
    if (k == role) return &v;
  return nullptr;
}

StateKind StateMetaInfo::kind() const {
  switch (static_cast<BackendStateType>(backend_type)) {
    case BackendStateType::kKeyValue:
    case BackendStateType::kKeyValueV2: {
      std::string t = option(meta_key::kKeyedStateType);
      if (t == "VALUE") return StateKind::kValue;
      if (t == "LIST") return StateKind::kList;
      if (t == "MAP") return StateKind::kMap;
      if (t == "REDUCING") return StateKind::kReducing;
      if (t == "AGGREGATING") return StateKind::kAggregating;
      if (t == "FOLDING") return StateKind::kFolding;
      return StateKind::kUnknown;
    }
    case BackendStateType::kPriorityQueue: return StateKind::kPriorityQueue;
    case BackendStateType::kOperator:
      return option(meta_key::kDistributionMode) == "UNION" ? StateKind::kOperatorUnion : StateKind::kOperatorList;
    case BackendStateType::kBroadcast: return StateKind::kBroadcast;
  }
  return StateKind::kUnknown;
}

Status read_state_meta_head(ByteReader& r, StateMetaInfo& m, BackendStateType last_type) {
  m.source_offset = r.offset();
  m.name = r.utf();
  uint64_t type_at = r.offset();
  m.backend_type = r.i32();
  if (!r.ok()) return *r.error();
  if (m.backend_type < 0 || m.backend_type > static_cast<int32_t>(last_type))
    return Error(ErrorCode::kCorruption, fmt::format("unknown backend state type {} of state '{}'", m.backend_type, m.name),
                 type_at);
  int32_t n = r.count(4, "state option");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    std::string k = r.utf();
    std::string v = r.utf();
    m.options.emplace_back(std::move(k), std::move(v));
  }
  if (!r.ok()) return *r.error();
  return Status::OK();
}

Result<StateMetaInfo> read_state_meta_info(ByteReader& r, const SnapshotReadOptions& options) {
  StateMetaInfo m;
  CKPT_RETURN_IF_ERROR(read_state_meta_head(r, m, BackendStateType::kKeyValueV2));
  int32_t s = r.count(8, "state serializer");
  if (!r.ok()) return *r.error();
  for (int32_t i = 0; i < s; ++i) {
    std::string role = r.utf();
    if (!r.ok()) return *r.error();
    auto snap = read_serializer_snapshot(r, SnapshotFraming::kProxy, options);
    if (!snap.ok())
      return std::move(snap).error().with_context(fmt::format("state '{}' {}", m.name, role));
    m.serializers.emplace_back(std::move(role), std::move(snap).value());
  }
  return m;
}

Status write_state_meta_info(ByteWriter& w, const StateMetaInfo& m) {
  CKPT_RETURN_IF_ERROR(write_utf(w, m.name, "state name"));
  w.i32(m.backend_type);
  w.i32(static_cast<int32_t>(m.options.size()));
  for (const auto& [k, v] : m.options) {
    CKPT_RETURN_IF_ERROR(write_utf(w, k, "state option key"));
    CKPT_RETURN_IF_ERROR(write_utf(w, v, "state option value"));
  }
  w.i32(static_cast<int32_t>(m.serializers.size()));
  for (const auto& [role, snap] : m.serializers) {
    CKPT_RETURN_IF_ERROR(write_utf(w, role, "serializer role"));
    write_serializer_snapshot(w, snap, SnapshotFraming::kProxy);
  }
  return Status::OK();
}

const StateMetaInfo* KeyedBackendMeta::find(std::string_view name) const { return find_in(states, name); }

Error StateMetaInfo::at_source(Error e) const {
  if (e.offset || source_file.empty()) return e;
  e.file = source_file;
  e.offset = source_offset;
  if (!source_context.empty()) return std::move(e).with_context(source_context);
  return e;
}

void KeyedBackendMeta::set_source(const std::string& file, const std::string& context) {
  for (StateMetaInfo& s : states) {
    s.source_file = file;
    s.source_context = context;
  }
}

Result<KeyedBackendMeta> read_keyed_backend_meta(ByteReader& r, const SnapshotReadOptions& options) {
  KeyedBackendMeta m;
  uint64_t at = r.offset();
  m.version = r.i32();
  if (!r.ok()) return *r.error();
  if (m.version != kKeyedProxyVersion) return read_legacy_keyed_backend_meta(r, m.version, at);
  m.compression_byte = r.u8();
  m.compression = m.compression_byte != 0;
  if (!r.ok()) return *r.error();
  auto key = read_serializer_snapshot(r, SnapshotFraming::kProxy, options);
  if (!key.ok()) return std::move(key).error().with_context("key serializer");
  m.key_serializer = std::move(key).value();
  CKPT_ASSIGN_OR_RETURN(m.states, read_meta_infos(r, options, "keyed state"));
  return m;
}

Result<std::string> write_keyed_backend_meta(const KeyedBackendMeta& m) {
  if (m.version != kKeyedProxyVersion) return legacy_bytes_of(m.legacy_bytes, "keyed", m.version);
  ByteWriter w;
  w.i32(m.version);
  w.u8(stored_flag(m.compression, m.compression_byte));
  write_serializer_snapshot(w, m.key_serializer, SnapshotFraming::kProxy);
  CKPT_RETURN_IF_ERROR(write_meta_infos(w, m.states));
  return w.take();
}

const StateMetaInfo* OperatorBackendMeta::find(std::string_view name) const {
  const StateMetaInfo* s = find_in(list_states, name);
  return s ? s : find_in(broadcast_states, name);
}

Result<OperatorBackendMeta> read_operator_backend_meta(ByteReader& r, const SnapshotReadOptions& options) {
  OperatorBackendMeta m;
  uint64_t at = r.offset();
  m.version = r.i32();
  if (!r.ok()) return *r.error();
  // Versions before 5 (Flink <= 1.6) used other meta info layouts.
  if (m.version < 5 || m.version > 6) return read_legacy_operator_backend_meta(r, m.version, at);
  if (m.version >= 6) {
    m.compression_byte = r.u8();
    m.compression = m.compression_byte != 0;
  }
  CKPT_ASSIGN_OR_RETURN(m.list_states, read_meta_infos(r, options, "operator state"));
  CKPT_ASSIGN_OR_RETURN(m.broadcast_states, read_meta_infos(r, options, "broadcast state"));
  return m;
}

Result<std::string> write_operator_backend_meta(const OperatorBackendMeta& m) {
  if (m.version < 5) return legacy_bytes_of(m.legacy_bytes, "operator", m.version);
  ByteWriter w;
  w.i32(m.version);
  if (m.version >= 6) w.u8(stored_flag(m.compression, m.compression_byte));
  CKPT_RETURN_IF_ERROR(write_meta_infos(w, m.list_states));
  CKPT_RETURN_IF_ERROR(write_meta_infos(w, m.broadcast_states));
  return w.take();
}

}  // namespace ckpt
