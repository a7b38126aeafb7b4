// state/layout_transcoder.h - moving keyed entries between the heap and the RocksDB layouts.
//
// `ckpt convert` copies serialized values as they are (Kryo, Avro, POJO bytes included): only
// the framing changes. The heap layout (formats/keyed-state.md §6) stores (namespace, key, whole state object) with
// no lengths; the RocksDB layout (formats/keyed-state.md §10, also the canonical stream's) stores one composite key per
// value / list / user key. Going between them needs the extent of each part, which the
// serializers' skip() gives without building values; so a state converts where its keys,
// namespaces and (for lists and heap maps) elements can be delimited, and is refused with a
// kNotSupported error naming the serializer otherwise.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "state/backend_meta.h"
#include "state/heap/heap_block_delimiter.h"
#include "state/rocks_key_layout.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "types/value_decoder.h"

namespace ckpt {

struct RocksPair;

// Where a reader's pairs came from, for errors found in a pair after it has left its file: a
// RocksDB instance merges its SSTs, and convert's transcoder splits keys key groups later.
class PairOrigin {
 public:
  virtual ~PairOrigin() = default;
  // `e`, found at e.offset within `pair`'s key, placed in the file that holds the pair.
  virtual Error locate(const RocksPair& pair, Error e) const = 0;
};

// One RocksDB key / value pair in Flink's layout.
struct RocksPair {
  std::string key;
  std::string value;
  const PairOrigin* origin = nullptr;  // set by readers that can place the pair's errors
  bool operator<(const RocksPair& o) const { return key < o.key; }
};

// One state's pairs handed back after a key group, reused for the next one: their strings keep
// their capacity, so a producer of pairs allocates for its largest key group once rather than
// for every pair (a key and a value allocation per pair was a tenth of heap -> rocksdb). One
// pool per state, so that a reused value is not sized for another state's values.
class RocksPairPool {
 public:
  // A pair appended to `out` whose key and value the caller assigns (a reused pair holds old bytes).
  RocksPair& add(std::vector<RocksPair>& out);
  // Every pair of `pairs` into the pool; `pairs` is left empty, keeping its capacity.
  void recycle(std::vector<RocksPair>& pairs);
  // by_state[i] into pools[i], for each state.
  static void recycle(std::vector<std::vector<RocksPair>>& by_state, std::vector<RocksPairPool>& pools);

 private:
  friend class StateTranscoder;
  std::vector<RocksPair> spare_;
  std::string base_;  // the key prefix of the entry being transcoded
};

class StateTranscoder {
 public:
  // `key_decoder` (the proxy's key serializer) must outlive the transcoder.
  static Result<std::unique_ptr<StateTranscoder>> make(const StateMetaInfo& info, const ValueDecoder& key_decoder,
                                                       int32_t max_parallelism);

  const std::string& name() const { return name_; }

  // One heap entry at r's position -> its RocksDB pairs, appended to `out` from `pool` (none
  // for an empty list or map, which RocksDB cannot hold). With `value_length` >= 0 (inferred by
  // the delimiter) a value or queue element is that many bytes, copied whole.
  // With `ns`, the namespace's bytes were read once before the entry's key (Flink 1.2's layout,
  // formats/keyed-state.md §6.2; heap_namespace() reads them).
  Status heap_to_rocks(ByteReader& r, int32_t key_group, std::vector<RocksPair>* out, RocksPairPool& pool,
                       int64_t value_length = -1, const std::string_view* ns = nullptr) const;
  Result<std::string_view> heap_namespace(ByteReader& r) const;

  // The RocksDB key of (key, namespace) in `key_group`, which every pair of that entry starts
  // with (for queues: the key-group prefix, which the element follows).
  std::string rocks_base(int32_t key_group, std::string_view key, std::string_view ns) const;
  // The same appended to `out`.
  void append_rocks_base(std::string& out, int32_t key_group, std::string_view key, std::string_view ns) const;
  // Whether keys and namespaces carry length suffixes in RocksDB keys (both of variable length).
  bool ambiguous_key() const { return layout_.length_suffixes(); }
  // One whole state value (a list or map as its serializer writes it; a queue element) at r's
  // position -> its pairs under `base`, as heap_to_rocks does after the key and namespace
  // (pairs from `pool` if given).
  Status value_to_rocks(std::string_view base, ByteReader& r, std::vector<RocksPair>* out,
                        int64_t value_length = -1, RocksPairPool* pool = nullptr) const;
  StateKind kind() const { return kind_; }

  // The parts of this state's heap entries, for the delimiter (valid while the transcoder lives).
  HeapEntryLayout heap_entry_layout() const;

  // This state's pairs of one key group, sorted by key -> heap entries appended to `w`;
  // returns how many entries were written (a map's pairs of one key and namespace make one).
  Result<int32_t> rocks_to_heap(const std::vector<const RocksPair*>& sorted_pairs, ByteWriter& w) const;

 private:
  // make() without its errors placed at the state's meta info.
  static Result<std::unique_ptr<StateTranscoder>> make_unlocated(const StateMetaInfo& info,
                                                                 const ValueDecoder& key_decoder,
                                                                 int32_t max_parallelism);
  StateTranscoder() = default;
  // Bytes of key and namespace inside a RocksDB key: [key_begin, key_end), [ns_begin, ns_end),
  // and where the user key (maps) starts.
  struct KeyParts {
    size_t key_begin = 0, key_end = 0, ns_begin = 0, ns_end = 0, rest = 0;
  };
  Status split_key(const std::string& key, KeyParts* parts) const;
  Status check_delimitable(const ValueDecoder& d, const char* what) const;

  std::string name_;
  StateMetaInfo source_;  // where the state's meta info lies, for kNotSupported errors
  StateKind kind_ = StateKind::kUnknown;
  RocksKeyLayout layout_;
  const ValueDecoder* key_ = nullptr;
  std::unique_ptr<ValueDecoder> namespace_;
  std::unique_ptr<ValueDecoder> value_;     // whole state object (heap); queue element
  std::unique_ptr<ValueDecoder> element_;   // LIST element; MAP user value
  std::unique_ptr<ValueDecoder> user_key_;  // MAP user key
  // Every decoder above is decodable, so no per-entry check_delimitable() can fail: they are
  // skipped (virtual calls per entry, some 6% of the transcoding otherwise).
  bool all_decodable_ = false;
};

// One heap key group's blocks (`data`: its bytes after the plain key-group number, data[0] at
// absolute offset `base`) -> by_state[id] pairs (from pools[id]), through transcoders[id].
// Opaque values get their lengths from the delimiter first, so that they are copied as they are.
// `proxy_version` 1 (Flink 1.2) reads that version's blocks (formats/keyed-state.md §6.2).
Status heap_block_to_rocks(const std::vector<std::unique_ptr<StateTranscoder>>& transcoders, int32_t key_group,
                           std::string_view data, uint64_t base, int32_t max_parallelism,
                           std::vector<std::vector<RocksPair>>& by_state, std::vector<RocksPairPool>& pools,
                           int32_t proxy_version = 6);

}  // namespace ckpt
