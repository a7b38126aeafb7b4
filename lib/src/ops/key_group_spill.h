// ops/key_group_spill.h - RocksDB-layout pairs spilled per output subtask and read back key
// group by key group, ascending, in bounded memory: `edit --max-parallelism` moving keys to new
// key groups, `ckpt load` placing entries read from NDJSON.
//
// Pairs go to temporary files, one per slice ("bucket") of a subtask's key groups, as many
// slices as make each about a run's size. A subtask's buckets are then read in order, each
// sorted in memory by key group (one larger than a run, when keys are skewed, in sorted runs
// spilled again and merged): memory grows with a run and one key group, not with the state.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/raw_keyed_reader.h"

namespace ckpt {

class KeyGroupSpill {
 public:
  // Pairs read back into memory before a run is sorted and spilled again.
  static constexpr size_t kRunBytes = size_t{64} << 20;

  // One subtask per range of `ranges`, `bytes_per_subtask` the expected spill of each (it sets
  // how many buckets a subtask gets: at most 512 spill files in all). Sorted: a key group's pairs
  // of one state come back sorted by key (the RocksDB order); else in the order they were
  // added (what a heap stream's entries were in, when a load reproduces one).
  static Result<std::unique_ptr<KeyGroupSpill>> make(std::vector<KeyGroupRange> ranges, uint64_t bytes_per_subtask,
                                                     bool sorted = true, size_t run_bytes = kRunBytes);
  ~KeyGroupSpill();

  // Thread-safe: one lock per bucket.
  Status add(int32_t subtask, int32_t key_group, uint32_t state, std::string_view key, std::string_view value);
  // Subtask `index`'s pairs, key group by key group ascending, `states` wide, to `fn`: once
  // (each bucket's file is closed as soon as it is read back; a second call is refused).
  Status produce(int32_t index, size_t states, const KeyGroupPairsFn& fn);

  size_t subtasks() const;

 private:
  struct Impl;
  explicit KeyGroupSpill(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt
