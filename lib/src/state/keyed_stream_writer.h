// state/keyed_stream_writer.h - a heap or canonical keyed stream written to a file
// (formats/keyed-state.md §6, §9).
//
// The writing half of `ckpt convert --to heap|canonical` (and of `ckpt generate`): the keyed
// proxy, then key groups in ascending order (or in the order given: any_key_group_order()) from
// RocksDB-layout pairs, recording each key group's offset as the key-groups handle wants them.
// Output is never compressed (the proxy says so). Memory holds one key group.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/backend_meta.h"
#include "state/heap/key_groups_reader.h"
#include "state/layout_transcoder.h"
#include "support/byte_writer.h"

namespace ckpt {

class KeyedStreamWriter {
 public:
  // `meta` is written as the proxy (with compression off); state ids are its positions.
  static Result<std::unique_ptr<KeyedStreamWriter>> create(const std::string& path, KeyGroupsLayout layout,
                                                           KeyedBackendMeta meta, KeyGroupRange range,
                                                           int32_t max_parallelism);
  ~KeyedStreamWriter();

  // One key group's pairs, by proxy state id (sorted here); key groups strictly ascending and
  // inside the range. Key groups never named are written empty (heap) or left out (canonical).
  Status key_group(int32_t key_group, std::vector<std::vector<RocksPair>>& by_state);
  // Each state's pairs written in the order given, not sorted by key: `ckpt load` reproducing
  // a heap or canonical stream from its dump (a heap backend writes both in its hash tables'
  // order). Heap: a map's pairs of one key and namespace must then be adjacent.
  void keep_pair_order() { keep_order_ = true; }
  // The order the states' entries are written in within each key group (a permutation of the
  // state ids); by default ascending ids. Flink's heap backend writes them, in both layouts, in
  // the order of a hash map of its own, which a load of its dump reproduces.
  void set_state_order(std::vector<size_t> order) { state_order_ = std::move(order); }
  // Key groups taken in any order, each at most once (they must still lie in the range): a
  // writer fed by several producers at once, edit's regrouping to a multiple of the max
  // parallelism. Flink's restores seek to each key group's offset, heap and canonical alike, so
  // the order they lie in the stream is free; the heap blocks never named are written by finish().
  void any_key_group_order() { any_order_ = true; }
  // Closes the file; offsets[i] is key group range.first + i (0: no data, canonical only).
  Status finish();

  const std::vector<int64_t>& offsets() const { return offsets_; }
  uint64_t size() const { return written_; }

 private:
  KeyedStreamWriter() = default;
  Status write(const std::string& bytes);
  Status heap_block(int32_t key_group, std::vector<std::vector<RocksPair>>* by_state);

  std::string path_;
  std::FILE* file_ = nullptr;
  KeyGroupsLayout layout_ = KeyGroupsLayout::kHeap;
  KeyedBackendMeta meta_;
  KeyGroupRange range_;
  bool keep_order_ = false;
  std::vector<size_t> state_order_;
  int32_t next_ = 0;  // the next key group a heap block is due for
  bool any_order_ = false;
  std::vector<bool> named_;  // any_order_: key groups written, by range position
  std::unique_ptr<ValueDecoder> key_decoder_;
  std::vector<std::unique_ptr<StateTranscoder>> transcoders_;
  std::vector<int64_t> offsets_;
  uint64_t written_ = 0;
  uint64_t writeback_started_ = 0;  // bytes handed to the kernel's writeback so far
  static constexpr uint64_t kWritebackBytes = 8 << 20;
  // One key group's bytes, reused: a fresh buffer per key group made malloc hand its pages
  // back and fault them in again for every key group.
  ByteWriter block_;
};

}  // namespace ckpt
