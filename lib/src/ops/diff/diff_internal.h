// ops/diff/diff_internal.h - the parts of `ckpt diff` shared between its source files.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/diff.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "support/spill_file.h"

namespace ckpt {

// What the backend proxies say about one state: its kind and a serializer signature per role.
struct StateShape {
  std::string kind;                                   // state_kind_name()
  std::map<std::string, std::string> serializers;     // role -> "LongSerializer", "MapSerializer<..>"
  // The serializer snapshots' bytes (a keyed state's with the backend's key serializer), as
  // every subtask stores them; `mixed` when subtasks disagree. Two sides whose bytes are equal
  // write a value as the same bytes, so their entries compare as bytes (diff --keys).
  std::string snapshot_bytes;
  bool mixed = false;
};

// Per operator (32 hex digits): the states its subtasks' proxies name, by state name.
struct OperatorStates {
  std::map<std::string, StateShape> states;
  std::vector<std::string> notes;  // parts whose proxy could not be read
};
std::map<std::string, OperatorStates> collect_states(const Metadata& m, const SnapshotLocation& where,
                                                     const std::vector<PrefixRule>& remap);

// Appends the state additions, removals, kind and serializer changes of operators in both.
void diff_states(const std::map<std::string, OperatorStates>& a, const std::map<std::string, OperatorStates>& b,
                 DiffReport& report);

// An operator's differing entries, found key group by key group across all its states, handed
// on by state (`named`, the proxies' states in order, then the others by name), each state's
// by key group, as `ckpt diff` documents them. The first named state's pass straight through;
// the others wait in a spill file each (memory stays bounded) until finish().
class StateOrderedChanges : public KeyChangeSink {
 public:
  StateOrderedChanges(KeyChangeSink* out, std::vector<std::string> named);
  void change(const KeyChange& c) override;
  // The waiting states' changes, in order; the first error of a spill file, if any.
  Status finish();

 private:
  KeyChangeSink* out_;
  std::vector<std::string> named_;
  std::optional<std::string> first_;
  std::map<std::string, std::unique_ptr<SpillFile>> waiting_;
  std::string record_;
  Status status_ = Status::OK();
};

// What the logical diff held at most at once, for tests of its memory bound: entries buffered
// for comparison (the current key group of both sides, or an operator's operator state).
struct KeyDiffStats {
  uint64_t peak_buffered = 0;
  uint64_t passes = 0;      // operators read, each once per side that has it
  uint64_t bytes_read = 0;  // of state, both sides (Progress::bytes_done)
  // Entries (of either side) compared by the bytes the serializers wrote, and by JSON text
  // (states whose serializers differ between the sides, timers, change-log entries).
  uint64_t compared_as_bytes = 0;
  uint64_t compared_as_text = 0;
};

// The logical diff: fills report.keys and passes each differing entry to `changes`. The
// states come from the proxies (collect_states of each side); each side's `_metadata` is the
// one given, read once by the caller.
Status diff_keys(const SnapshotLocation& a, const Metadata& ma, const std::map<std::string, OperatorStates>& sa,
                 const SnapshotLocation& b, const Metadata& mb, const std::map<std::string, OperatorStates>& sb,
                 const DiffOptions& options, DiffReport& report, KeyChangeSink* changes, KeyDiffStats* stats = nullptr);

}  // namespace ckpt
