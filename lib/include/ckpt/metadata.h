// ckpt/metadata.h - the snapshot model: what a Flink `_metadata` file says.
//
// One struct per thing Flink stores, with every field needed to write the file back byte for
// byte (formats/metadata.md is the byte-level spec; section numbers below refer to it). Handle
// structs are "fat": one struct per context (stream, keyed, operator, channel) whose `type`
// byte says which fields are meaningful, the way Flink's type-byte registry works, so that
// code walking handles needs no visitor machinery.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
namespace ckpt {

// Type bytes of the shared handle registry (formats/metadata.md §7.1).
namespace handle_type {
inline constexpr uint8_t kNull = 0;
inline constexpr uint8_t kByteStream = 1;               // inline bytes
inline constexpr uint8_t kFile = 2;                     // absolute path
inline constexpr uint8_t kKeyGroups = 3;                // key-groups, no id (keyed or stream)
inline constexpr uint8_t kPartitionableOperator = 4;    // OperatorStreamStateHandle
inline constexpr uint8_t kIncrementalV1 = 5;            // IncrementalRemoteKeyedStateHandle, 1.3
inline constexpr uint8_t kRelativeFile = 6;
inline constexpr uint8_t kSavepointKeyGroups = 7;       // canonical savepoint
inline constexpr uint8_t kChangelogBackendV1 = 8;
inline constexpr uint8_t kInMemoryChangelog = 9;
inline constexpr uint8_t kChangelogFileV1 = 10;
inline constexpr uint8_t kIncremental = 11;             // + checkpointed size, + id
inline constexpr uint8_t kKeyGroupsWithId = 12;
inline constexpr uint8_t kChangelogFile = 13;           // + storage identifier
inline constexpr uint8_t kChangelogBackend = 14;        // + checkpoint id
inline constexpr uint8_t kSegmentFile = 15;             // file merging: byte range of a file
inline constexpr uint8_t kEmptySegmentFile = 16;
inline constexpr uint8_t kFileMergingOperator = 17;
// A RocksDB native handle of either version: SST and meta files as RocksDB wrote them.
inline constexpr bool is_incremental(uint8_t type) { return type == kIncrementalV1 || type == kIncremental; }
}  // namespace handle_type

// Human name of a type byte ("byte-stream", "file", "key-groups", ...); "unknown" otherwise.
CKPT_API const char* handle_type_name(uint8_t type);

// A key-group range as stored: (first, count). count 0 is the empty range.
struct CKPT_API KeyGroupRange {
  int32_t first = 0;
  int32_t count = 0;
  int32_t last() const { return first + count - 1; }
  bool empty() const { return count == 0; }
  bool contains(int32_t kg) const { return count > 0 && kg >= first && kg <= last(); }
  bool operator==(const KeyGroupRange&) const = default;
};

struct KeyedHandle;

// Stream context: a single stream of bytes (formats/metadata.md §7.2).
struct CKPT_API StreamHandle {
  uint8_t type = handle_type::kNull;
  std::string name;        // 1: informational name (never a file to open)
  std::string data;        // 1: the inline bytes
  std::string path;        // 2: absolute URI; 6: relative path; 15: physical file URI
  int64_t size = 0;        // 2, 6: state size; 15: segment length
  int64_t start = 0;       // 15: start of the segment inside the physical file
  int32_t scope = 0;       // 15: 0 EXCLUSIVE, 1 SHARED
  std::string logical_id;  // 15
  std::vector<KeyedHandle> key_groups;  // 3 in stream context: exactly one element

  bool is_null() const { return type == handle_type::kNull; }
  bool is_file() const {
    return type == handle_type::kFile || type == handle_type::kRelativeFile ||
           type == handle_type::kSegmentFile;
  }
  // Bytes of state this handle stands for (inline size, stored file size, segment length).
  int64_t state_size() const;
  bool operator==(const StreamHandle&) const = default;
};

// A file of a RocksDB instance in an incremental handle: local name + uploaded copy.
struct CKPT_API NamedStream {
  std::string name;  // "000010.sst", "MANIFEST-000004", "CURRENT", ...
  StreamHandle handle;
  bool operator==(const NamedStream&) const = default;
};

// One entry of an in-memory change log (type 9).
struct CKPT_API Change {
  int32_t key_group = 0;  // -1: metadata change (Flink 1.17+)
  std::string bytes;
  bool operator==(const Change&) const = default;
};

// A piece of a file-backed change log (types 10, 13).
struct CKPT_API ChangelogPiece {
  int64_t offset = 0;
  StreamHandle handle;
  bool operator==(const ChangelogPiece&) const = default;
};

// Keyed context (formats/metadata.md §7.3).
struct CKPT_API KeyedHandle {
  uint8_t type = handle_type::kNull;
  KeyGroupRange range;
  // 3, 7, 12: offsets[i] = start of key group range.first + i inside `delegate`.
  std::vector<int64_t> offsets;
  // 3, 7, 12: the data stream. 5, 11: the meta data stream.
  StreamHandle delegate;
  // 8, 9, 10, 11, 12, 13, 14 (and 3/7 read as an empty string).
  std::string handle_id;
  // 5, 11: incremental RocksDB snapshot. 14: checkpoint id (8: equals materialization id).
  int64_t checkpoint_id = 0;
  std::string backend_id;                  // 5, 11
  int64_t checkpointed_size = -1;          // 11, 8 (1.15+), 10, 13, 14
  std::vector<NamedStream> shared_files;   // 5, 11
  std::vector<NamedStream> private_files;  // 5, 11
  // 8, 14: changelog backend.
  std::vector<KeyedHandle> materialized;
  std::vector<KeyedHandle> non_materialized;
  int64_t materialization_id = 0;
  // 9: in-memory change log.
  int64_t from_sequence = 0;
  int64_t to_sequence = 0;
  std::vector<Change> changes;
  // 10, 13: change log in files.
  std::vector<ChangelogPiece> pieces;
  int64_t state_size_field = 0;            // 10, 13: stored state size
  std::string storage_id;                  // 13

  bool is_null() const { return type == handle_type::kNull; }
  bool operator==(const KeyedHandle&) const = default;
};

// Distribution mode of a named operator state (formats/metadata.md §7.4).
enum class DistributionMode : uint8_t { kSplitDistribute = 0, kUnion = 1, kBroadcast = 2 };
CKPT_API const char* distribution_mode_name(DistributionMode m);  // "SPLIT_DISTRIBUTE", "UNION", "BROADCAST"

struct CKPT_API OperatorStateEntry {
  std::string name;
  DistributionMode mode = DistributionMode::kSplitDistribute;
  std::vector<int64_t> offsets;  // list element starts inside the delegate
  bool operator==(const OperatorStateEntry&) const = default;
};

// Operator context (formats/metadata.md §7.4): types 4 and 17 (type 0 in V1 chains).
struct CKPT_API OperatorHandle {
  uint8_t type = handle_type::kNull;
  std::vector<OperatorStateEntry> states;  // file order (a Java HashMap's order)
  std::string taskowned_dir;               // 17
  std::string shared_dir;                  // 17
  bool empty_variant = false;              // 17
  StreamHandle delegate;

  bool is_null() const { return type == handle_type::kNull; }
  bool operator==(const OperatorHandle&) const = default;
};

// Unaligned-checkpoint channel state (formats/metadata.md §8, §15 for the V6 kinds).
struct CKPT_API ChannelHandle {
  // V6+: 1 input channel, 2 result subpartition, 3 merged input, 4 merged result. 0 before V6.
  uint8_t v6_kind = 0;
  bool has_subtask_index = true;  // false: Flink 1.11 layout (no leading subtask index)
  int32_t subtask_index = 0;
  int32_t gate_or_partition = 0;        // input: gate index; output: partition index
  int32_t channel_or_subpartition = 0;  // input: channel index; output: subpartition index
  std::vector<int64_t> offsets;
  int64_t size = 0;
  StreamHandle delegate;
  std::string merged_offsets;  // V6 kinds 3, 4: serialized per-channel offsets (opaque)
  bool operator==(const ChannelHandle&) const = default;
};

// One subtask's record (formats/metadata.md §6).
struct CKPT_API SubtaskState {
  int32_t index = 0;
  bool finished = false;                     // V3+: stored as -(index+1), no record follows
  int64_t duration = -1;                     // V1, V2
  std::vector<StreamHandle> legacy;          // V1, V2: legacy (Checkpointed) operator state
  // V1: one per chained operator (null entries allowed). V2+: zero or one.
  std::vector<OperatorHandle> managed_operator;
  std::vector<OperatorHandle> raw_operator;
  KeyedHandle managed_keyed;
  KeyedHandle raw_keyed;
  std::vector<ChannelHandle> input_channels;        // V3+
  std::vector<ChannelHandle> result_subpartitions;  // V3+
  std::optional<int64_t> reused_checkpoint_id;      // V7: presence byte, then i64
  bool operator==(const SubtaskState&) const = default;
};

using OperatorId = std::array<uint8_t, 16>;
CKPT_API std::string operator_id_hex(const OperatorId& id);     // 32 hex digits, file order
CKPT_API bool parse_operator_id(const std::string& hex, OperatorId* out);
// The id Flink gives the operator whose uid is `uid` (StreamGraphHasherV2: Guava's
// murmur3_128 with seed 0 over the uid's UTF-8 bytes, in the order `_metadata` stores it).
CKPT_API OperatorId operator_id_of_uid(std::string_view uid);

// One operator (V2+) or job vertex (V1) record (formats/metadata.md §5).
struct CKPT_API OperatorState {
  OperatorId id{};
  std::string name;  // V5+: "" = not stored
  std::string uid;   // V5+: "" = not stored
  int32_t parallelism = 0;
  int32_t max_parallelism = 0;
  int32_t chain_length = 1;     // V1: operators in the vertex; V2: ignored, written as 1
  StreamHandle coordinator;     // V3+: type 0 or 1
  bool fully_finished = false;  // V3+: subtask count stored as -1
  std::vector<SubtaskState> subtasks;  // file order
  bool operator==(const OperatorState&) const = default;
};

struct CKPT_API MasterState {
  int32_t version = 0;
  std::string name;
  std::string payload;
  bool operator==(const MasterState&) const = default;
};

// What the V4+ properties trailer says (formats/metadata.md §9), decoded without a JVM.
struct CKPT_API CheckpointProperties {
  bool present = false;               // false for V1-V3
  bool forced = false;
  bool discard_subsumed = false, discard_finished = false, discard_cancelled = false;
  bool discard_failed = false, discard_suspended = false;
  bool unclaimed = false;
  std::string type_class;             // "org.apache.flink.runtime.checkpoint.CheckpointType" / "...SavepointType"
  std::string type_name;              // "Checkpoint", "Full Checkpoint", "Savepoint", ...
  std::string sharing_files_strategy; // checkpoints: FORWARD_BACKWARD, FORWARD, NO_SHARING
  std::string format_type;            // savepoints: CANONICAL, NATIVE
  std::string post_checkpoint_action; // savepoints: NONE, SUSPEND, TERMINATE
  bool is_savepoint() const;
  bool operator==(const CheckpointProperties&) const = default;
};

enum class SnapshotKind { kUnknown, kCheckpoint, kSavepointCanonical, kSavepointNative };
CKPT_API const char* snapshot_kind_name(SnapshotKind k);  // "unknown", "checkpoint", "savepoint-canonical", "savepoint-native"

// A whole `_metadata` file.
struct CKPT_API Metadata {
  int32_t version = 0;
  int64_t checkpoint_id = 0;
  std::vector<MasterState> master_states;  // V2+
  std::vector<OperatorState> operators;
  // V4+: the Java-serialized CheckpointProperties, kept verbatim so writing is exact.
  std::string properties_raw;
  CheckpointProperties properties;

  // From the properties (V4+); otherwise inferred from handle kinds, and `inferred` is set:
  // a V1-V3 file with any type-7 keyed handle is a canonical savepoint, any other is kUnknown
  // (before 1.13 checkpoints and savepoints wrote the same handles).
  SnapshotKind kind(bool* inferred = nullptr) const;
  bool operator==(const Metadata&) const = default;
};

// Whether `filter` names `op`: its 32 hex digits (any case), a prefix of them (at least 4
// digits; select_operators() refuses one that fits several operators), its uid (the V5+ one
// stored, or any uid whose hash is the id), or its V5+ name.
CKPT_API bool operator_matches(const OperatorState& op, std::string_view filter);
// The operators of `m` that `filter` names (every one for an empty filter), in file order.
// Errors (kNotFound, with no file):
// none matches; an id prefix fits several operators and nothing else matches.
CKPT_API Result<std::vector<const OperatorState*>> select_operators(const Metadata& m, std::string_view filter);

// Decode a whole `_metadata` image. Errors carry the absolute offset; `file` (if given) is put
// into the error so callers can print it directly. Every byte must be consumed.
CKPT_API Result<Metadata> decode_metadata(std::string_view bytes, const std::string& file = {});
// Encode back; decode(encode(m)) == m and, for a decoded file, encode(decode(f)) == f.
CKPT_API Result<std::string> encode_metadata(const Metadata& m);

// Read `path` (a `_metadata` file or a snapshot directory holding one) and decode it.
CKPT_API Result<Metadata> read_metadata_file(const std::string& path);

}  // namespace ckpt
