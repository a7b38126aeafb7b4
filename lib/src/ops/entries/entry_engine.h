// ops/entries/entry_engine.h - what an EntryReader holds and how it reads one subtask.
//
// EntryReader (ckpt/entries.h) and dump_snapshot (ckpt/dump.h) share all of this: opening the
// snapshot, selecting operators and subtasks, and the readers of every handle type. They differ
// only in what a worker makes of the entries: public Entry values for the iterator (and a
// dump's entry sinks), NDJSON text for the dump's printer.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/entries.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "ops/engine/input_checks.h"
#include "state/read_options.h"
#include "state/state_entry.h"
#include "state/stream_opener.h"
#include "types/serializer_snapshot.h"

namespace ckpt {

// An entry's key, namespace, user key and value as the public Values, whichever form the
// reader decoded them in (trees, or Values straight from the RocksDB layout).
void move_decoded_fields(StateEntry&& e, Entry& out);

// One subtask of one selected operator: the unit a worker thread reads.
struct EntryTask {
  const OperatorState* op = nullptr;
  const SubtaskState* subtask = nullptr;
  std::string operator_hex;  // operator_id_hex(op->id)
  std::string uid;           // Entry::uid: the operator's uid where known (V5+ `_metadata`, names)
  // The plan's names of the key row's fields (the entries' keys are named after them), or nullptr.
  const std::vector<std::string>* key_columns = nullptr;
};

// Where a worker puts a task's entries. add() and problem() return false once the run is
// stopped (limit reached, another subtask failed, the iterator destroyed).
class TaskOutput {
 public:
  virtual ~TaskOutput() = default;
  virtual bool add(StateEntry&& e) = 0;
  virtual bool problem(Error&& e) = 0;
};

// How one run reads: the selection's filter with the run's output flags (json_text,
// raw_bytes), and whether damage is stepped over (reported through TaskOutput::problem).
struct TaskReading {
  StateFilter filter;
  bool keep_going = false;
};

// A snapshot opened once for every reader of it (a query reads one snapshot in many scans: a
// join scans it once per row of the other side): where it is, its `_metadata`, and the
// structure checks (input_checks.h), run over every subtask by the first iteration that needs
// them and reported by each for the subtasks it reads.
class OpenedSnapshot {
 public:
  OpenedSnapshot(SnapshotLocation where, Metadata metadata, std::vector<PrefixRule> remap)
      : where_(std::move(where)), metadata_(std::move(metadata)), remap_(std::move(remap)) {}
  // `remap` is every reader's EntryReaderOptions::remap: the files the checks look for.
  static Result<std::shared_ptr<OpenedSnapshot>> open(const std::string& snapshot,
                                                      const std::vector<PrefixRule>& remap);

  const SnapshotLocation& where() const { return where_; }
  const Metadata& metadata() const { return metadata_; }
  // find_structure_problems() of the snapshot, found on the first call that succeeds (a store
  // that failed to answer is asked again by the next iteration, not remembered as failing).
  Result<const StructureFindings*> structure();

 private:
  const SnapshotLocation where_;
  const Metadata metadata_;
  const std::vector<PrefixRule> remap_;
  std::mutex mu_;
  std::optional<StructureFindings> structure_;
};

// Internal, though nested in an exported class: not part of libckpt.so's symbols.
struct __attribute__((visibility("hidden"))) EntryReader::Impl {
  std::shared_ptr<OpenedSnapshot> snapshot;
  SnapshotLocation where;  // snapshot->where()
  const Metadata& metadata() const { return snapshot->metadata(); }
  StreamOpener streams;
  EntryReaderOptions options;
  StateFilter filter;                 // the selection's states and key groups
  bool operator_state_wanted = true;  // false with a key-group or key filter
  std::vector<EntryTask> tasks;       // in output order
  // The selection's tasks in every part (EntrySelection::shard): what its filters are checked on.
  std::vector<EntryTask> selected;
  std::vector<const OperatorState*> operators;  // the operator filter's selection, in file order
  // EntrySelection::key_serializers_from's key serializers, by operator id (32 hex digits).
  std::map<std::string, SerializerSnapshot> key_serializers;
  // EntrySelection::keys, each once (parallel to filter.keys->given_texts).
  std::vector<Value> given_keys;

  // Reads task `t` into `out`, problems included; never throws (an exception is reported as
  // an internal error of the subtask).
  void read_task(const EntryTask& t, const TaskReading& reading, TaskOutput& out) const;
  // The keys of EntrySelection::keys that no entry had so far (all of them before a run).
  std::vector<Value> unmatched_keys() const;

 private:
  // With a key filter: `filter` narrowed to the key groups Flink assigns the keys in task `t`
  // (its key serializer read from the subtask's proxy); unchanged where a key's hashCode is not
  // known. Fails only as the proxy read fails.
  Status narrow_to_keys(const EntryTask& t, StateFilter& filter) const;
};

// The way in to an EntryReader's internals for the library's own operations (dump reads a
// reader's tasks with its own output), kept out of the public header.
class EntryReaderAccess {
 public:
  using Impl = EntryReader::Impl;
  static const Impl& impl(const EntryReader& reader) { return *reader.impl_; }
  // EntryReader::open() of a snapshot whose `_metadata` the caller has read already.
  static Result<std::unique_ptr<EntryReader>> open(SnapshotLocation where, Metadata metadata,
                                                   const EntryReaderOptions& options);
  // The same over a snapshot other readers share; options.remap is the one it was opened with.
  static Result<std::unique_ptr<EntryReader>> open(std::shared_ptr<OpenedSnapshot> snapshot,
                                                   const EntryReaderOptions& options);
};
using EntryReaderImpl = EntryReaderAccess::Impl;

// An iteration whose entries the caller may take: current() is entry(), movable from before
// next().
class EntryPull : public EntryIterator {
 public:
  virtual Entry& current() = 0;
  // The entries from the current one to the end of its chunk, into `out` (replacing what it
  // held); the iteration moves on to the next chunk. False at the end (see status()).
  virtual bool take_chunk(std::vector<Entry>* out) = 0;
  // A chunk taken and done with: its memory is reused (and freed) by the workers.
  virtual void recycle(std::vector<Entry>&& chunk) = 0;
};

// Which of a reader's tasks an iteration reads, and how: EntryReader::entries() reads all of
// them with the reader's options; diff --keys one operator's, key-group major.
struct EntryPulling {
  std::vector<EntryTask> tasks;  // of the reader, in output order
  TaskReading reading;           // `values` is set; keep_going follows the reader's on_problem
  int jobs = 1;
  // Chunks of 256 entries decoded ahead of the iteration per running subtask: the memory bound.
  size_t chunks_ahead = 4;
  bool operator_ids = true;  // fill Entry::operator_id and uid (a caller reading one operator knows them)
  // A damaged part is reported here (on the iterating thread) and stepped over; null: the first
  // one ends the iteration with its error.
  std::function<void(const Error&)> on_problem;
};

// `reader` must outlive the iteration; its workers decode ahead of it (ckpt/entries.h).
std::unique_ptr<EntryPull> pull_entries(const EntryReaderImpl& reader, EntryPulling pulling);

}  // namespace ckpt
