// ops/rewrite/keyed_target.h - one subtask's keyed state written in a target backend's layout.
//
// Shared by `ckpt convert` and `ckpt generate`: a producer hands RocksDB-layout pairs per key
// group (ascending) and this writes them as a RocksDB instance + meta stream, a heap stream or a
// canonical stream under the output directory, returning the keyed handle (relative file
// handles) that Flink writes for that layout.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/metadata.h"
#include "state/backend_meta.h"
#include "state/raw_keyed_reader.h"
#include "state/rocksdb/rocks_instance_writer.h"

namespace ckpt {

struct KeyedTarget {
  ConvertTarget to = ConvertTarget::kCanonical;
  bool modern_types = true;  // handle types 11 / 12 (Flink 1.15+) rather than 5 / 3
  std::string out_dir;       // the snapshot directory being written; handles are relative to it
  std::string op_hex;
  int32_t subtask = 0;
  int32_t max_parallelism = 128;
  int64_t checkpoint_id = 0;
  KeyGroupRange range;
  // RocksDB's per-file syncs skipped: the caller syncs out_dir once before publishing it.
  bool deferred_sync = false;
  // Heap and canonical: pairs written in the order produced (KeyedStreamWriter::keep_pair_order()).
  bool keep_order = false;
  // Heap and canonical: the order of the states in a key group (KeyedStreamWriter::set_state_order()).
  std::vector<size_t> state_order;
  // RocksDB: a state's SST file is closed at this size (RocksInstanceWriter::create).
  uint64_t sst_bytes = kRocksTargetFileBytes;
  // RocksDB: a key group's states are sorted and put into their SST writers on two threads at
  // once (each family has its own writer), for callers with a core to spare (convert -j 1 on a
  // 2-core machine): putting is most of the work. Memory stays one key group.
  bool parallel_families = false;
};

struct KeyedTargetStats {
  uint64_t entries = 0;
  uint64_t files = 0;
  uint64_t bytes = 0;
  uint64_t peak_buffered_bytes = 0;  // ConvertSummary::peak_buffered_bytes, of this subtask
};

// Calls its argument once per key group with data, key groups ascending.
using PairsProducer = std::function<Status(const KeyGroupPairsFn& fn)>;

// The handle for `meta`'s states filled by `produce`. A RocksDB target whose only states are
// untouched timer queues yields a null handle, as Flink's RocksDB backend writes none then.
Result<KeyedHandle> write_keyed_target(const KeyedTarget& target, KeyedBackendMeta meta, const PairsProducer& produce,
                                       KeyedTargetStats* stats);

// The name of subtask `subtask`'s RocksDB instance directory in the output ("rocksdb-OP-N").
std::string rocks_instance_name(const std::string& op_hex, int32_t subtask);

// The RocksDB handle of the instance rocks_instance_name() under t.out_dir, already written with
// `files` (edit's regrouping writes every subtask's at once), its meta data stream written
// beside it; null for untouched timer queues alone, as write_keyed_target().
Result<KeyedHandle> rocks_instance_handle(const KeyedTarget& t, const KeyedBackendMeta& meta,
                                          const RocksInstanceFiles& files, KeyedTargetStats* stats);

// A state's pairs of one key group put in key order, keys strictly ascending; a key repeated is
// refused (naming `family`), as RocksDB's writer refuses it.
Status sort_pairs(std::vector<RocksPair>& pairs, const std::string& family);

// The heap (t.to kHeap) or canonical handle of the stream `name` (relative to t.out_dir) of
// `size` bytes, each key group of t.range starting at `offsets` (KeyedStreamWriter::offsets()).
KeyedHandle key_groups_handle(const KeyedTarget& t, const std::string& name, std::vector<int64_t> offsets,
                              uint64_t size);

// A file handle of `type` (kFile: absolute URI, kRelativeFile: path inside the snapshot).
StreamHandle file_stream_handle(uint8_t type, std::string path, uint64_t size);

// A UUID-shaped id, the same for the same operator, subtask and salt (reproducible output).
std::string stable_uuid(const std::string& op_hex, int32_t subtask, char salt);

}  // namespace ckpt
