// ops/convert/snapshot_rewrite.h - a snapshot rewritten subtask by subtask: the engine of
// `ckpt convert` and `ckpt edit`.
//
// The input is read and checked as convert checks it, every keyed handle is re-framed in a
// target layout one key group at a time, every other stream is copied as it is, and the output
// is published atomically as a self-contained savepoint. Edit differs from convert only in the
// hooks: which operators are written (and under which id), which states a keyed proxy keeps,
// which pairs of a key group are written, and how an operator-state stream is cut. Values are
// never re-encoded either way.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/metadata.h"
#include "ckpt/plan.h"
#include "ckpt/resolve.h"
#include "state/backend_meta.h"
#include "state/raw_keyed_reader.h"
#include "state/stream_opener.h"

namespace ckpt {

// What happens to one subtask's keyed state between reading and writing.
class KeyedEdit {
 public:
  virtual ~KeyedEdit() = default;
  // One key group's pairs, indexed by the input proxy's states; the edit removes pairs in
  // place. The vector itself is the reader's (reused for the next key group): its size stays.
  virtual Status key_group(int32_t key_group, std::vector<std::vector<RocksPair>>& by_state) = 0;
  // Key groups the edit adds pairs to though the input may have none there (a new key of an
  // upsert), ascending: each is passed to key_group() even when the input has no pair in it.
  virtual std::vector<int32_t> added_key_groups() const { return {}; }
};

// A subtask's keyed state taken from elsewhere than its input handle (edit's regrouping).
struct KeyedSource {
  KeyedBackendMeta meta;
  KeyGroupRange range;
  ConvertTarget layout = ConvertTarget::kHeap;  // written in when RewriteOptions::to is unset
  // Heap and canonical output: each state's pairs written in the order produced, not sorted
  // (a load keeping the order of a heap backend's stream).
  bool keep_order = false;
  // Heap and canonical output: the order of the states in each key group (by `meta` position;
  // empty: ascending).
  std::vector<size_t> state_order;
  // Calls its argument once per key group with data, ascending, by_state indexed as `meta`.
  std::function<Status(const KeyGroupPairsFn& fn)> produce;
};

// Raw keyed state written for a subtask instead of its input's (edit's regrouping of legacy
// timers): a key-groups stream and where each key group of `range` starts in it.
struct RawKeyedStream {
  KeyGroupRange range;
  std::vector<int64_t> offsets;
  std::string bytes;
};

struct RewriteHooks {
  // After the input is checked, before the operators hook: a pass over the input, if needed.
  std::function<Status(const Metadata& in, const StreamOpener& streams)> prepare;
  // The keyed state of output subtask `st` of `op` when not its input handle (may be null).
  std::function<Result<std::optional<KeyedSource>>(const OperatorState& op, const SubtaskState& st)> source;
  // The raw keyed state of output subtask `st` of `op` when not its input's (may be null).
  std::function<Result<std::optional<RawKeyedStream>>(const OperatorState& op, const SubtaskState& st)> raw_keyed;
  // The operators to write, with their ids (called once, on a copy of the checked input; the
  // subtasks each operator keeps are rewritten after).
  std::function<Status(Metadata& out)> operators;
  // Called per subtask with keyed state, before any pair: may drop states from `meta` (the proxy
  // written out; never adds or renames one), whose pairs are then left out, and returns what to
  // do with the pairs; nullptr: the pairs as read. `op` is the output operator.
  std::function<Result<std::unique_ptr<KeyedEdit>>(const OperatorState& op, int32_t subtask, KeyedBackendMeta& meta)>
      keyed;
  // An operator-state stream (`bytes`, its handle `h`) before it is written: may cut states out.
  std::function<Status(const OperatorState& op, int32_t subtask, OperatorHandle& h, std::string& bytes)> operator_state;
  // After every subtask, before anything is published: an error here leaves nothing behind.
  // Not called in parts (RewriteOptions::shard, finish): its checks need every subtask.
  std::function<Status()> finish;
  // In parts: what this part's subtasks showed of what the operations name (opaque strings),
  // kept in the part; `finish_parts` then gets the union over every part at --finish, where
  // it makes `finish`'s checks (an error writes nothing).
  std::function<std::vector<std::string>()> found;
  std::function<Status(const std::set<std::string>& found)> finish_parts;
  // The id the operators hook gives input operator `id` (null: the same): which input subtasks
  // a part checks before it writes its own.
  std::function<OperatorId(const OperatorId& id)> output_id;
};

struct RewriteOptions {
  // The layout keyed state is written in; unset: each subtask's input layout
  // (same_layout_target()).
  std::optional<ConvertTarget> to;
  std::string output;
  bool force = false;
  int jobs = 1;
  std::vector<PrefixRule> remap;
  std::string key_serializers_from;
  // Read, check and run the hooks, write nothing: the summary counts what would be written.
  bool dry_run = false;
  // The input's bytes read (checked first, then rewritten: twice its state size) and the
  // entries written (ckpt/progress.h).
  Progress* progress = nullptr;
  // Only the subtasks of this part of the written snapshot (plan_parts() over the operators the
  // hook gives), into part_directory(output, shard) with its part files instead of a snapshot
  // (ops/convert/rewrite_parts.h); the operators' coordinator state is left to `finish`.
  std::optional<ShardSpec> shard;
  // Rewrite nothing: assemble `output` from its parts, copy the coordinator state and write
  // `_metadata`, then remove the parts. Same snapshot and hooks as the parts'.
  bool finish = false;
  // What else the parts must agree on (the edit's options): with the snapshot, the operators
  // written and the target, it makes the fingerprint --finish checks every part against.
  std::string fingerprint;
  // The operators whose keyed state the hooks read entry by entry through RocksDB (edit
  // --max-parallelism): their SSTs are checked by that read, not whole first (InputChecks).
  std::function<bool(const OperatorState&)> entries_read;
};

// Errors name the operator, subtask and file; nothing is left at `options.output` then.
Result<ConvertSummary> rewrite_snapshot(const std::string& snapshot, const RewriteOptions& options,
                                        const RewriteHooks& hooks);

// The layout `h` is written in when no target is given: its own (a changelog handle's, that of
// its materialized part, heap if it has none).
ConvertTarget same_layout_target(const KeyedHandle& h);

}  // namespace ckpt
