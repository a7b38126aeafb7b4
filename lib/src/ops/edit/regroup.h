// ops/edit/regroup.h - `ckpt edit --max-parallelism`: every key moved to the key group Flink's
// assignment gives it under another max parallelism.
//
// Flink assigns a key to murmur(key.hashCode()) % maxParallelism and subtask i of P the key
// groups KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex gives. A key's new group
// is unrelated to its old one, so every input subtask is read once, each pair's key decoded
// and hashed, its key-group prefix rewritten, and (unless the new max parallelism is a multiple
// of the old: RegroupOutput below) the pair spilled to a temporary file of the
// output subtask whose range holds the new group: one file per slice ("bucket") of the
// subtask's key groups, as many slices as make each about a run's size. Each output subtask
// then reads its buckets in order, each sorted in memory by key group (one larger than a run,
// when keys are skewed, in sorted runs spilled again and merged): memory grows with a run and
// one key group, not with the state. Keys and values are copied as bytes; only the prefix
// changes. Legacy timers kept in raw keyed state carry their keys and move the same way; Flink
// held them on the heap, so they are held in memory here too.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/metadata.h"
#include "format/key_groups.h"
#include "ops/rewrite/snapshot_rewrite.h"
#include "ops/key_group_spill.h"
#include "state/backend_meta.h"
#include "state/stream_opener.h"

namespace ckpt {

// Where a regrouping to a multiple of the input's max parallelism (or to the same one, with
// another parallelism) writes its output itself: each input key group's keys go to key groups
// no other input key group feeds (Flink's group is murmur(hashCode) modulo the max parallelism),
// so each output key group is whole as soon as its input key group is read, and is written then
// into its output subtask: a heap or canonical stream in the order read (Flink's restore seeks
// to each key group's offset), a RocksDB instance into one lane of SSTs per round of the input's
// key groups (RocksInstanceWriter::add_to_lane). The input read once, by one thread, while the
// others write; the output written once, nothing spilled; the same entries in the same places at
// every run (heap and canonical: the same bytes).
struct RegroupOutput {
  std::string dir;                  // the rewrite's output directory; empty: spill
  std::optional<ConvertTarget> to;  // RewriteOptions::to
  std::string op_hex;               // the output operator's id, which names its streams
};


class Regrouper {
 public:
  // Pairs read back into memory before a run is sorted and spilled again.
  static constexpr size_t kRunBytes = KeyGroupSpill::kRunBytes;

  // Reads every keyed handle of `in` (the input operator) and spills its pairs for
  // `max_parallelism` and `parallelism` output subtasks, `jobs` input subtasks at once. Errors: a key whose hashCode
  // ckpt cannot compute (naming the state and the key serializer), raw keyed state other than
  // timers, unreadable input. With `check_blocks`, each heap and canonical key group is decoded
  // as the input check decodes it before its pairs are spilled (read_raw_keyed): the rewrite
  // then needs no check pass over those streams (RewriteOptions::check_on_read).
  static Result<std::unique_ptr<Regrouper>> make(const OperatorState& in, int32_t max_parallelism, int32_t parallelism,
                                                 const StreamOpener& streams, int jobs,
                                                 const SerializerSnapshot* key_fallback = nullptr,
                                                 size_t run_bytes = kRunBytes, bool check_blocks = false,
                                                 const RegroupOutput& output = {});
  ~Regrouper();

  // The keyed source of output subtask `index` (its stream already written, with a
  // RegroupOutput); nullopt where no input subtask had keyed state.
  std::optional<KeyedSource> source(int32_t index);
  // The raw keyed state of output subtask `index`: the legacy timers (Flink < 1.10 RocksDB jobs
  // with heap timers) moved with their keys, a block for each of its key groups as Flink writes
  // them; nullopt where no input subtask had raw keyed state.
  std::optional<RawKeyedStream> raw_keyed(int32_t index) const;

  // With a RegroupOutput that applies (a multiple of the max parallelism, at most 256
  // subtasks, for RocksDB at most 512 lanes of SSTs in all): nothing is read by make(); write()
  // then writes the output subtasks given, with `jobs` 2 or more one thread reading every input
  // once and the others (and the reader, when they fall behind) writing.
  bool writes_directly() const;
  Status write(const std::vector<int32_t>& subtasks, int jobs);

  // Pairs and raw keyed timers moved (with a RegroupOutput: into the subtasks written).
  uint64_t pairs() const { return pairs_; }

 private:
  struct Impl;
  explicit Regrouper(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  uint64_t pairs_ = 0;
};

}  // namespace ckpt
