// state/backend_meta.h - the serialization proxies at the head of keyed and operator state.
//
// Every heap or canonical keyed stream, the meta stream of a RocksDB native handle and every
// operator-state stream begins with a proxy naming its states and their serializer snapshots
// (formats/keyed-state.md §3, §4, §14). The readers keep enough to write the bytes back
// identically (needed by `ckpt convert`); snapshots are kept verbatim (serializer_snapshot.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/error.h"
#include "types/serializer_snapshot.h"
#include "support/byte_reader.h"

namespace ckpt {

// StateMetaInfoSnapshot.BackendStateType ordinals (formats/keyed-state.md §3).
enum class BackendStateType : int32_t {
  kKeyValue = 0,
  kOperator = 1,
  kBroadcast = 2,
  kPriorityQueue = 3,
  kKeyValueV2 = 4,  // Flink 2.0 async state API
};
const char* backend_state_type_name(BackendStateType t);  // "KEY_VALUE", "OPERATOR", ...

// What a state is, from its backend type and options.
enum class StateKind : uint8_t {
  kUnknown,
  kValue, kList, kMap, kReducing, kAggregating, kFolding,  // keyed KEY_VALUE(_V2), by KEYED_STATE_TYPE
  kPriorityQueue,                                          // keyed PRIORITY_QUEUE (timers)
  kOperatorList, kOperatorUnion,                           // OPERATOR, by distribution mode
  kBroadcast,                                              // BROADCAST
};
// "VALUE", "LIST", "MAP", "REDUCING", "AGGREGATING", "FOLDING", "PRIORITY_QUEUE",
// "SPLIT_DISTRIBUTE", "UNION", "BROADCAST", "UNKNOWN".
const char* state_kind_name(StateKind k);
bool is_keyed_kind(StateKind k);

// Option keys and serializer roles as Flink spells them.
namespace meta_key {
inline constexpr std::string_view kKeyedStateType = "KEYED_STATE_TYPE";
inline constexpr std::string_view kDistributionMode = "OPERATOR_STATE_DISTRIBUTION_MODE";
inline constexpr std::string_view kKeySerializer = "KEY_SERIALIZER";
inline constexpr std::string_view kNamespaceSerializer = "NAMESPACE_SERIALIZER";
inline constexpr std::string_view kValueSerializer = "VALUE_SERIALIZER";
}  // namespace meta_key

// One StateMetaInfoSnapshot record (formats/keyed-state.md §3). Maps are Java HashMaps: file order is kept.
struct StateMetaInfo {
  std::string name;
  int32_t backend_type = 0;  // a BackendStateType ordinal, kept as stored
  std::vector<std::pair<std::string, std::string>> options;
  std::vector<std::pair<std::string, SerializerSnapshot>> serializers;  // (role, snapshot)

  // The option's value or "" if absent.
  std::string option(std::string_view key) const;
  // The snapshot stored under `role`, or nullptr.
  const SerializerSnapshot* serializer(std::string_view role) const;
  StateKind kind() const;
  // Convenience roles: VALUE_SERIALIZER (whole-state serializer for keyed KEY_VALUE states:
  // List -> ListSerializer, Map -> MapSerializer; element serializer for priority queues and
  // operator list states), NAMESPACE_SERIALIZER, KEY_SERIALIZER (broadcast state only).
  const SerializerSnapshot* value_serializer() const { return serializer(meta_key::kValueSerializer); }
  const SerializerSnapshot* namespace_serializer() const { return serializer(meta_key::kNamespaceSerializer); }
  const SerializerSnapshot* key_serializer() const { return serializer(meta_key::kKeySerializer); }

  // Where the record was read (set by readers that know the file), for errors about the state
  // as it is described there: its serializers that cannot be followed, say.
  std::string source_file;
  uint64_t source_offset = 0;
  std::string source_context;  // how offsets in source_file count (an inline stream's own), or empty
  // `e` placed at this record when it names no place of its own and the record's file is known.
  Error at_source(Error e) const;
};

// An i16 count (`what` names it in errors), then that many records read by `read_one`.
Result<std::vector<StateMetaInfo>> read_meta_info_list(
    ByteReader& r, const char* what, const std::function<Result<StateMetaInfo>(ByteReader&)>& read_one);
// The name, backend type (at most `last_type`) and options that meta info formats 5-7 begin with.
Status read_state_meta_head(ByteReader& r, StateMetaInfo& m, BackendStateType last_type);
// Read / write one StateMetaInfoSnapshot record (meta-info format versions 5-7 share this layout).
Result<StateMetaInfo> read_state_meta_info(ByteReader& r, const SnapshotReadOptions& options = {});
Status write_state_meta_info(ByteWriter& w, const StateMetaInfo& m);

// KeyedBackendSerializationProxy (formats/keyed-state.md §4): version 6 (Flink 1.7+), and versions 1-5
// (Flink 1.2-1.6, state/legacy_backend_meta.h). The position of a state in `states` is its state id in the heap and
// canonical streams.
struct KeyedBackendMeta {
  int32_t version = 6;
  bool compression = false;           // key-group data is Snappy framed (formats/keyed-state.md §8)
  uint8_t compression_byte = 0;       // as stored: Flink reads any non-zero byte as true
  SerializerSnapshot key_serializer;  // stored in the proxy form (formats/keyed-state.md §2.1)
  std::vector<StateMetaInfo> states;
  // Versions 1-5 (formats/keyed-state.md §4.1): the proxy's bytes as read, which the writer gives back.
  std::string legacy_bytes;

  // The state with this name, or nullptr.
  const StateMetaInfo* find(std::string_view name) const;
  // Every state's source_file and source_context.
  void set_source(const std::string& file, const std::string& context = {});
};

// Reads the proxy at r's position and leaves r after it (where heap / canonical key-group data
// starts). Errors carry the absolute offset.
Result<KeyedBackendMeta> read_keyed_backend_meta(ByteReader& r, const SnapshotReadOptions& options = {});
// The proxy's bytes, identical to what read_keyed_backend_meta consumed.
Result<std::string> write_keyed_backend_meta(const KeyedBackendMeta& m);

// OperatorBackendSerializationProxy (formats/keyed-state.md §14): version 5 (1.7-1.16) or 6 (1.17+, compression
// flag), and versions 1-4 (Flink 1.2-1.6, state/legacy_backend_meta.h).
struct OperatorBackendMeta {
  int32_t version = 5;
  bool compression = false;                     // only stored for version >= 6
  uint8_t compression_byte = 0;                 // as stored: any non-zero byte is true
  std::vector<StateMetaInfo> list_states;       // SPLIT_DISTRIBUTE and UNION
  std::vector<StateMetaInfo> broadcast_states;  // absent for version < 3
  std::string legacy_bytes;                     // versions 1-4: the proxy's bytes as read

  const StateMetaInfo* find(std::string_view name) const;  // list or broadcast state by name
};

Result<OperatorBackendMeta> read_operator_backend_meta(ByteReader& r, const SnapshotReadOptions& options = {});
Result<std::string> write_operator_backend_meta(const OperatorBackendMeta& m);

}  // namespace ckpt
