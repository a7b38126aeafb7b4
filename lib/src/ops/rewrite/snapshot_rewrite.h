// ops/rewrite/snapshot_rewrite.h - a snapshot rewritten subtask by subtask: the engine of
// `ckpt convert` and `ckpt edit`.
//
// The input is read and checked as convert checks it, every keyed handle is re-framed in a
// target layout one key group at a time, every other stream is copied as it is, and the output
// is published atomically as a self-contained savepoint. Edit, load and upgrade differ from
// convert only in the edits they apply (SnapshotEdit): which operators are written (and under
// which id), which states a keyed proxy keeps, which pairs of a key group are written, and how
// an operator-state stream is cut. Values that no edit changes are never re-encoded.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
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
#include "state/rocksdb/rocks_instance_writer.h"
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

// A subtask's heap or canonical stream, or RocksDB instance, an edit has written into the output
// directory itself (edit's regrouping to a multiple of the max parallelism, which writes every
// subtask of an operator at once as it reads the input once).
struct WrittenKeyedStream {
  std::optional<RocksInstanceFiles> instance;  // a RocksDB instance (rocks_instance_name()): its files
  std::string name;               // relative to the output directory
  std::vector<int64_t> offsets;   // KeyedStreamWriter::offsets()
  uint64_t size = 0;
  uint64_t entries = 0;
  uint64_t peak_buffered_bytes = 0;  // ConvertSummary::peak_buffered_bytes
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
  // Instead of `produce`: the stream already written, in `layout`. No edit may then change the
  // subtask's pairs or states (the rewrite refuses one that would).
  std::optional<WrittenKeyedStream> written;
};

// Raw keyed state written for a subtask instead of its input's (edit's regrouping of legacy
// timers): a key-groups stream and where each key group of `range` starts in it.
struct RawKeyedStream {
  KeyGroupRange range;
  std::vector<int64_t> offsets;
  std::string bytes;
};

// Input operator id -> output operator id, as the edits of a rewrite rename operators.
using OutputIds = std::function<OperatorId(const OperatorId& input_id)>;

// One edit a rewrite applies on the way: one of `ckpt edit`'s operations, load's entries,
// upgrade's serializer snapshots. Its methods are grouped by concern and each defaults to
// changing nothing, so an edit names only what it does; a rewrite applies a list of them
// (SnapshotEdits), each concern in the list's order.
class SnapshotEdit {
 public:
  virtual ~SnapshotEdit() = default;

  // --- The input: after it is checked, before anything is written, a pass over it (what the
  // edit reads and checks its arguments against). An error writes nothing.
  virtual Status prepare(const Metadata& in, const StreamOpener& streams) { return Status::OK(); }
  // Told before prepare(): the rewrite's temporary output directory, where an edit may write
  // streams of its own (KeyedSource::written), for the subtasks subtasks() names; empty in a
  // dry run and at --finish.
  virtual void output_directory(const std::string& dir) {}

  // --- The operators: which are written and how (called once, on a copy of the checked input,
  // in list order: an edit before the one that renames sees input ids; the subtasks each
  // operator keeps are rewritten after). `ids` maps an input id to its output id.
  virtual Status operators(Metadata& out, const OutputIds& ids) { return Status::OK(); }
  // The id this edit gives input operator `id`, if it renames it.
  virtual std::optional<OperatorId> renamed(const OperatorId& id) const { return std::nullopt; }

  // --- Where a subtask's state comes from when not its input handles (the first edit that
  // gives one wins). `op` is the output operator.
  virtual Result<std::optional<KeyedSource>> keyed_source(const OperatorState& op, const SubtaskState& st) {
    return std::optional<KeyedSource>();
  }
  virtual Result<std::optional<RawKeyedStream>> raw_keyed_source(const OperatorState& op, const SubtaskState& st) {
    return std::optional<RawKeyedStream>();
  }

  // --- Before any subtask is rewritten: every (output operator, subtask) this rewrite writes
  // (a part's only), with the rewrite's --jobs. What an edit writes itself for them it writes
  // here (edit's regrouping: KeyedSource::written).
  virtual Status subtasks(const std::vector<std::pair<const OperatorState*, const SubtaskState*>>& written, int jobs) {
    return Status::OK();
  }

  // --- The entries. Per subtask with keyed state, before any pair: may drop states from `meta`
  // (the proxy written out; never adds or renames one), whose pairs are then left out, and
  // returns what to do with the pairs (null: nothing); the edits' KeyedEdits run in list order,
  // each on what the one before left. `op` is the output operator.
  virtual Result<std::unique_ptr<KeyedEdit>> keyed(const OperatorState& op, int32_t subtask, KeyedBackendMeta& meta) {
    return std::unique_ptr<KeyedEdit>();
  }
  // An operator-state stream (`bytes`, its handle `h`) before it is written: may cut states out
  // or add elements.
  virtual Status operator_state(const OperatorState& op, int32_t subtask, OperatorHandle& h, std::string& bytes) {
    return Status::OK();
  }

  // --- The end. After every subtask, before anything is published: an error leaves nothing
  // behind. Not called in parts (RewriteOptions::shard, finish): its checks need every subtask.
  virtual Status finish() { return Status::OK(); }
  // In parts: what this part's subtasks showed of what the edit names (opaque strings), kept
  // in the part; finish_parts() then gets the union over every part (of every edit) at
  // --finish, where it makes finish()'s checks.
  virtual std::vector<std::string> found() const { return {}; }
  virtual Status finish_parts(const std::set<std::string>& found) { return Status::OK(); }
};

// The edits of one rewrite, in the order they apply (none: convert). The list does not own them.
class SnapshotEdits {
 public:
  SnapshotEdits() = default;
  SnapshotEdits(std::initializer_list<SnapshotEdit*> edits) : edits_(edits) {}
  void add(SnapshotEdit* edit) { edits_.push_back(edit); }

  Status prepare(const Metadata& in, const StreamOpener& streams, const std::string& out_dir) const;
  Status operators(Metadata& out) const;
  OperatorId output_id(const OperatorId& id) const;
  Status subtasks(const std::vector<std::pair<const OperatorState*, const SubtaskState*>>& written, int jobs) const;
  Result<std::optional<KeyedSource>> keyed_source(const OperatorState& op, const SubtaskState& st) const;
  Result<std::optional<RawKeyedStream>> raw_keyed_source(const OperatorState& op, const SubtaskState& st) const;
  // Every edit's KeyedEdit, chained; null when none has one.
  Result<std::unique_ptr<KeyedEdit>> keyed(const OperatorState& op, int32_t subtask, KeyedBackendMeta& meta) const;
  Status operator_state(const OperatorState& op, int32_t subtask, OperatorHandle& h, std::string& bytes) const;
  Status finish() const;
  std::vector<std::string> found() const;
  Status finish_parts(const std::set<std::string>& found) const;
  bool empty() const { return edits_.empty(); }

 private:
  std::vector<SnapshotEdit*> edits_;
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
  // Read, check and run the edits, write nothing: the summary counts what would be written.
  bool dry_run = false;
  // The input's bytes read (checked first, then rewritten: twice its state size, once with
  // check_on_read) and the entries written (ckpt/progress.h).
  Progress* progress = nullptr;
  // Only the subtasks of this part of the written snapshot (plan_parts() over the operators the
  // edits give), into part_directory(output, shard) with its part files instead of a snapshot
  // (ops/rewrite/rewrite_parts.h); the operators' coordinator state is left to `finish`.
  std::optional<ShardSpec> shard;
  // Rewrite nothing: assemble `output` from its parts, copy the coordinator state and write
  // `_metadata`, then remove the parts. Same snapshot and edits as the parts'.
  bool finish = false;
  // What else the parts must agree on (the edit's options): with the snapshot, the operators
  // written and the target, it makes the fingerprint --finish checks every part against.
  std::string fingerprint;
  // The operators whose keyed state the edits read entry by entry through RocksDB (edit
  // --max-parallelism): their SSTs are checked by that read, not whole first (InputChecks).
  std::function<bool(const OperatorState&)> entries_read;
  // The input's keyed state checked as the rewrite reads it, not by a pass over it before:
  // each heap and canonical key group is decoded as the check pass decodes it before its pairs
  // are made, and each SST is checksummed whole as its instance opens (the check pass only opens
  // it for its key-group bounds). Damage found late still publishes nothing: the output is
  // abandoned with its temporary directory. Only for a caller whose rewrite reads every
  // subtask's keyed state whole, in the rewrite or in an edit's prepare() with the same checks
  // (convert; edit when it drops no operator, its regrouping reading with check_blocks): an
  // edit that left a subtask unread would leave it unchecked, and the edits' KeyedEdits see a
  // key group's pairs only once the key group is checked.
  bool check_on_read = false;
};

// Errors name the operator, subtask and file; nothing is left at `options.output` then.
Result<ConvertSummary> rewrite_snapshot(const std::string& snapshot, const RewriteOptions& options,
                                        const SnapshotEdits& edits);

// The layout `h` is written in when no target is given: its own (a changelog handle's, that of
// its materialized part, heap if it has none).
ConvertTarget same_layout_target(const KeyedHandle& h);

}  // namespace ckpt
