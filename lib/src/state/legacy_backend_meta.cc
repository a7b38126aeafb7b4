// Keyed proxy versions 1-5 and operator proxy versions 1-4 (Flink 1.2-1.6), after Flink's own
// readers of them: KeyedBackendSerializationProxy.read, OperatorBackendSerializationProxy.read,
// LegacyStateMetaInfoReaders, StateMetaInfoSnapshotReadersWriters.V5ReaderImpl and
// TypeSerializerSerializationUtil (formats/keyed-state.md §4.1, §14.1).
#include "state/legacy_backend_meta.h"

#include <array>

#include <fmt/format.h>

#include "format/java/java_object_stream.h"
#include "types/legacy_serializers.h"

namespace ckpt {
namespace {

// StateDescriptor.Type, whose ordinal the keyed meta infos before version 5 store.
constexpr std::array<std::string_view, 7> kStateTypes = {"UNKNOWN", "VALUE",       "LIST", "REDUCING",
                                                         "FOLDING", "AGGREGATING", "MAP"};
// OperatorStateHandle.Mode, as a byte in the operator meta infos before version 5.
constexpr std::array<std::string_view, 3> kModes = {"SPLIT_DISTRIBUTE", "UNION", "BROADCAST"};


// TypeSerializerSerializationProxy: i32 version 1, i32 length, the Java-serialized serializer.
Result<SerializerSnapshot> read_serializer_proxy(ByteReader& r) {
  uint64_t at = r.offset();
  int32_t version = r.i32();
  if (r.ok() && version != 1)
    return Error(ErrorCode::kNotSupported,
                 fmt::format("unsupported type serializer proxy version {} (expected 1)", version), at);
  int32_t len = r.count(1, "serialized serializer byte");
  uint64_t bytes_at = r.offset();
  std::string_view bytes = r.bytes(static_cast<size_t>(len));
  if (!r.ok()) return *r.error();
  return legacy_serializer_snapshot(bytes, bytes_at);
}

// One config snapshot of a resilient block, in the bytes `frame` (at absolute `at`): Flink 1.3-1.6
// wrote TypeSerializerConfigSnapshotSerializationProxy (i32 1, utf class, the config's i32
// version and payload); a 1.7+ writer the current proxy form (i32 2, formats/keyed-state.md §2.1).
Result<SerializerSnapshot> read_config(std::string_view frame, uint64_t at, SerializerSnapshot serializer) {
  ByteReader r(frame, at);
  int32_t proxy = r.i32();
  if (!r.ok()) return *r.error();
  if (proxy == 2) {
    ByteReader whole(frame, at);
    CKPT_ASSIGN_OR_RETURN(SerializerSnapshot s, read_serializer_snapshot(whole, SnapshotFraming::kProxy));
    if (!whole.at_end())
      return Error(ErrorCode::kCorruption,
                   fmt::format("{} bytes after the config snapshot {}", whole.remaining(), s.snapshot_class),
                   whole.offset());
    return s;
  }
  if (proxy != 1)
    return Error(ErrorCode::kNotSupported,
                 fmt::format("unsupported config snapshot proxy version {} (expected 1 or 2)", proxy), at);
  serializer.snapshot_class = r.utf();
  serializer.legacy_config_version = r.i32();
  if (!r.ok()) return *r.error();
  // The config's own payload is class specific; the block's offsets frame it.
  serializer.raw = std::string(frame);
  serializer.offset = at;
  return serializer;
}

// LegacyStateMetaInfoReaders.KeyedBackendStateMetaInfoReaderV1V2 and V3V4: the descriptor's
// type, the name, the namespace and state serializers.
Result<StateMetaInfo> read_keyed_v1_to_v4(ByteReader& r, int32_t version) {
  StateMetaInfo m;
  m.source_offset = r.offset();
  uint64_t type_at = r.offset();
  int32_t ordinal = r.i32();
  m.name = r.utf();
  if (!r.ok()) return *r.error();
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= kStateTypes.size())
    return Error(ErrorCode::kCorruption, fmt::format("unknown state descriptor type {} of state '{}'", ordinal, m.name),
                 type_at);
  m.backend_type = static_cast<int32_t>(BackendStateType::kKeyValue);
  m.options.emplace_back(meta_key::kKeyedStateType, kStateTypes[static_cast<size_t>(ordinal)]);
  std::vector<SerializerSnapshot> serializers;
  if (version <= 2) {
    for (int i = 0; i < 2; ++i) {
      auto s = read_serializer_proxy(r);
      if (!s.ok()) return std::move(s).error().with_context(fmt::format("state '{}'", m.name));
      serializers.push_back(std::move(s).value());
    }
  } else {
    auto s = read_serializers_and_configs(r, 2, "a keyed state's serializers");
    if (!s.ok()) return std::move(s).error().with_context(fmt::format("state '{}'", m.name));
    serializers = std::move(s).value();
  }
  m.serializers.emplace_back(meta_key::kNamespaceSerializer, std::move(serializers[0]));
  m.serializers.emplace_back(meta_key::kValueSerializer, std::move(serializers[1]));
  return m;
}

// StateMetaInfoSnapshotReadersWriters.V5ReaderImpl (Flink 1.6): the current record, except that
// the serializer roles come first and the serializers after them, in one resilient block.
Result<StateMetaInfo> read_v5(ByteReader& r) {
  StateMetaInfo m;
  // Flink 1.6 had no KEY_VALUE_V2.
  CKPT_RETURN_IF_ERROR(read_state_meta_head(r, m, BackendStateType::kPriorityQueue));
  int32_t roles_n = r.count(2, "state serializer role");
  std::vector<std::string> roles;
  for (int32_t i = 0; i < roles_n && r.ok(); ++i) roles.push_back(r.utf());
  if (!r.ok()) return *r.error();
  auto s = read_serializers_and_configs(r, roles.size(), "a state's serializers");
  if (!s.ok()) return std::move(s).error().with_context(fmt::format("state '{}'", m.name));
  for (size_t i = 0; i < roles.size(); ++i) m.serializers.emplace_back(std::move(roles[i]), std::move((*s)[i]));
  return m;
}

// LegacyStateMetaInfoReaders.OperatorBackendStateMetaInfoReaderV1 (a whole Java stream) and V2V3
// (a resilient block: one serializer for list states, key and value for broadcast states).
Result<StateMetaInfo> read_operator_v1_to_v3(ByteReader& r, int32_t version) {
  StateMetaInfo m;
  m.source_offset = r.offset();
  m.name = r.utf();
  uint64_t mode_at = r.offset();
  uint8_t mode = r.u8();
  if (!r.ok()) return *r.error();
  if (mode >= kModes.size())
    return Error(ErrorCode::kCorruption, fmt::format("unknown distribution mode {} of state '{}'", mode, m.name),
                 mode_at);
  m.options.emplace_back(meta_key::kDistributionMode, kModes[mode]);
  if (version == 1) {
    // InstantiationUtil.deserializeObject straight from the stream: the stream's grammar ends it.
    size_t start = r.position();
    uint64_t at = r.offset();
    auto object = java::read_object_stream(r);
    if (!object.ok()) return std::move(object).error().with_context(fmt::format("serializer of state '{}'", m.name));
    m.backend_type = static_cast<int32_t>(BackendStateType::kOperator);
    m.serializers.emplace_back(meta_key::kValueSerializer, legacy_serializer_snapshot(r.since(start), at));
    return m;
  }
  uint64_t at = r.offset();
  auto s = read_serializers_and_configs(r, 0, "an operator state's serializers");
  if (!s.ok()) return std::move(s).error().with_context(fmt::format("state '{}'", m.name));
  if (s->size() == 1) {
    m.backend_type = static_cast<int32_t>(BackendStateType::kOperator);
    m.serializers.emplace_back(meta_key::kValueSerializer, std::move((*s)[0]));
  } else if (s->size() == 2) {
    m.backend_type = static_cast<int32_t>(BackendStateType::kBroadcast);
    m.serializers.emplace_back(meta_key::kKeySerializer, std::move((*s)[0]));
    m.serializers.emplace_back(meta_key::kValueSerializer, std::move((*s)[1]));
  } else {
    return Error(ErrorCode::kCorruption,
                 fmt::format("operator state '{}' has {} serializers, expected 1 or 2", m.name, s->size()), at);
  }
  return m;
}

}  // namespace

// TypeSerializerSerializationUtil.readSerializersAndConfigsWithResilience: i32 n, n x (i32
// serializer offset, i32 config offset), i32 total, then `total` bytes the offsets point into.
Result<std::vector<SerializerSnapshot>> read_serializers_and_configs(ByteReader& r, size_t expected, const char* what) {
  uint64_t at = r.offset();
  int32_t n = r.count(8, "serializer and config pair");
  std::vector<std::pair<int32_t, int32_t>> offsets;
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    int32_t s = r.i32();
    int32_t c = r.i32();
    offsets.emplace_back(s, c);
  }
  int32_t total = r.count(1, "serializer block byte");
  uint64_t block_at = r.offset();
  std::string_view block = r.bytes(static_cast<size_t>(total));
  if (!r.ok()) return *r.error();
  if (expected && offsets.size() != expected)
    return Error(ErrorCode::kCorruption, fmt::format("{} has {} serializers, expected {}", what, n, expected), at);
  std::vector<SerializerSnapshot> out;
  for (size_t i = 0; i < offsets.size(); ++i) {
    auto [s, c] = offsets[i];
    int32_t next = i + 1 < offsets.size() ? offsets[i + 1].first : total;
    if (s < 0 || s >= c || c >= next || next > total)
      return Error(
          ErrorCode::kCorruption,
          fmt::format("{}: serializer {} at {} and its config at {} do not lie in order inside the {}-byte block "
                      "(next at {})",
                      what, i, s, c, total, next),
          at + 4 + 8 * i);
    ByteReader sr(block.substr(static_cast<size_t>(s), static_cast<size_t>(c - s)), block_at + s);
    CKPT_ASSIGN_OR_RETURN(SerializerSnapshot serializer, read_serializer_proxy(sr));
    if (!sr.at_end())
      return Error(ErrorCode::kCorruption, fmt::format("{} bytes after serializer {} of {}", sr.remaining(), i, what),
                   sr.offset());
    std::string_view frame = block.substr(static_cast<size_t>(c), static_cast<size_t>(next - c));
    CKPT_ASSIGN_OR_RETURN(SerializerSnapshot config, read_config(frame, block_at + c, std::move(serializer)));
    out.push_back(std::move(config));
  }
  return out;
}

SerializerSnapshot legacy_serializer_snapshot(std::string_view java_bytes, uint64_t offset) {
  SerializerSnapshot s;
  s.form = SnapshotForm::kLegacyConfig;
  s.version = kLegacyConfigSnapshotVersion;
  s.legacy_java_serializer = std::string(java_bytes);
  s.raw = s.legacy_java_serializer;
  s.offset = offset;
  ByteReader r(java_bytes, offset);
  auto object = java::read_object_stream(r);
  s.serializer_class =
      object.ok() && !(*object)->is_null() ? (*object)->class_name : "unreadable Java-serialized serializer";
  attach_legacy_nested(s);
  return s;
}

Result<KeyedBackendMeta> read_legacy_keyed_backend_meta(ByteReader& r, int32_t version, uint64_t at) {
  if (version < 1 || version > 5)
    return Error(ErrorCode::kNotSupported,
                 fmt::format("unsupported keyed backend proxy version {} (expected 1 to 6)", version), at);
  size_t start = r.position() - 4;
  KeyedBackendMeta m;
  m.version = version;
  if (version >= 4) {
    m.compression_byte = r.u8();
    m.compression = m.compression_byte != 0;
  }
  if (!r.ok()) return *r.error();
  if (version >= 3) {
    auto key = read_serializers_and_configs(r, 1, "the key serializer");
    if (!key.ok()) return std::move(key).error().with_context("key serializer");
    m.key_serializer = std::move((*key)[0]);
  } else {
    auto key = read_serializer_proxy(r);
    if (!key.ok()) return std::move(key).error().with_context("key serializer");
    m.key_serializer = std::move(key).value();
  }
  auto read_one = [&](ByteReader& in) { return version == 5 ? read_v5(in) : read_keyed_v1_to_v4(in, version); };
  CKPT_ASSIGN_OR_RETURN(m.states, read_meta_info_list(r, "keyed state", read_one));
  m.legacy_bytes = std::string(r.since(start));
  return m;
}

Result<OperatorBackendMeta> read_legacy_operator_backend_meta(ByteReader& r, int32_t version, uint64_t at) {
  if (version < 1 || version > 4)
    return Error(ErrorCode::kNotSupported,
                 fmt::format("unsupported operator backend proxy version {} (expected 1 to 6)", version), at);
  size_t start = r.position() - 4;
  OperatorBackendMeta m;
  m.version = version;
  auto read_one = [&](ByteReader& in) { return version == 4 ? read_v5(in) : read_operator_v1_to_v3(in, version); };
  CKPT_ASSIGN_OR_RETURN(m.list_states, read_meta_info_list(r, "operator state", read_one));
  // Broadcast states did not exist before version 3.
  if (version >= 3) {
    CKPT_ASSIGN_OR_RETURN(m.broadcast_states, read_meta_info_list(r, "broadcast state", read_one));
  }
  m.legacy_bytes = std::string(r.since(start));
  return m;
}

}  // namespace ckpt
