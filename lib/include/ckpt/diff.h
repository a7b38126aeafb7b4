// ckpt/diff.h - what changed between two snapshots: structure, files and, on request, state.
//
// diff_snapshots() compares snapshot A with snapshot B at three levels. Structure: operators
// (matched by id) added or removed, parallelism and max-parallelism changes, key-group ranges
// per subtask (at the same parallelism: a range that shrank lost entries), states (from the
// backends' proxies) added or removed, serializer changes. Files: every file either snapshot
// references, identified by where it really is (the stored URI for absolute handles, the path
// inside the snapshot directory for relative ones), split into shared by both, new in B and
// dropped since A, per operator and subtask too, so that B's incremental size over A shows
// next to its full size. Keys (DiffOptions::keys): the logical entries through the dump layer,
// which reads every backend and kind alike, both sides read in step a state at a time and
// compared a key group at a time (key groups are global: rescaled sides line up), so memory
// stays bounded by one key group per side plus the state's operator (non-keyed) entries.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/entries.h"
#include "ckpt/error.h"
#include "ckpt/names.h"
#include "ckpt/export.h"
#include "ckpt/resolve.h"

namespace ckpt {

struct CKPT_API DiffOptions {
  bool keys = false;              // also compare state entries
  std::string state;              // keys: only this state; empty: every state
  int jobs = 1;                   // keys: subtasks decoded at once per side
  std::vector<PrefixRule> remap;  // as ckpt-inspect's --remap, for both snapshots
  OperatorNames names;            // uids and plan descriptions (ckpt/names.h)
  // keys: key serializers for change logs that name none, for both sides (EntrySelection).
  std::string key_serializers_from;
};

// One file, by identity, with the bytes the referring handle declares (-1: unknown).
struct CKPT_API DiffFile {
  std::string uri;
  int64_t size = -1;
};

// A structural difference, e.g. {"parallelism", op, "", "2", "4"}.
struct CKPT_API StructureChange {
  // "operator-added", "operator-removed", "parallelism", "max-parallelism", "key-group-range",
  // "raw-key-group-range", "state-added", "state-removed", "state-kind", "serializer".
  std::string what;
  std::string operator_id;  // 32 hex digits
  std::string state;        // state changes only
  std::string before;       // empty for additions
  std::string after;        // empty for removals
  int32_t subtask = -1;     // key-group range changes only
};

// Files of one subtask of one operator (a side may lack the subtask: counts are then 0).
struct CKPT_API SubtaskFileDiff {
  std::string operator_id;
  int32_t subtask = 0;
  uint64_t shared = 0, added = 0, removed = 0;
  int64_t shared_bytes = 0, added_bytes = 0, removed_bytes = 0;
};

// Entry counts of one state of one operator.
struct CKPT_API KeyDiffCounts {
  std::string operator_id;
  std::string state;
  uint64_t same = 0, added = 0, removed = 0, changed = 0;
  bool differs() const { return added || removed || changed; }
};

// One entry that differs. `before` is A's entry (absent for "added"), `after` B's, each with
// its operator id and, where the layout keeps them, its bytes (ckpt/entries.h); a SQL key row
// has its fields named when DiffOptions::names has the plan.
struct CKPT_API KeyChange {
  std::string what;  // "added", "removed", "changed"
  std::optional<Entry> before;
  std::optional<Entry> after;
  std::string uid;  // the uid of the operator the change names (B's where B has the entry), when known
};

class CKPT_API KeyChangeSink {
 public:
  virtual ~KeyChangeSink() = default;
  virtual void change(const KeyChange& c) = 0;
};

struct CKPT_API DiffReport {
  std::string a, b;  // the `_metadata` files compared
  std::vector<StructureChange> structure;
  // Keys compared: (A's id, B's id) of an operator only A has and one only B has with the same
  // states and entries, one operator given a new id; not in `structure` as removed and added.
  struct Renamed {
    std::string operator_a, operator_b;
  };
  std::vector<Renamed> renamed;
  // States whose proxy could not be read, so their structure was not compared ("op: why").
  std::vector<std::string> notes;
  std::vector<DiffFile> files_added;    // in B only, in B's order
  std::vector<DiffFile> files_removed;  // in A only, in A's order
  std::vector<DiffFile> files_shared;   // in both, in B's order, with B's size
  std::vector<SubtaskFileDiff> subtasks;  // by operator (A's order, then B's new ones), subtask
  int64_t a_full_bytes = 0;         // every file A references
  int64_t b_full_bytes = 0;         // every file B references
  int64_t b_incremental_bytes = 0;  // of those, the files A does not reference
  bool keys_compared = false;
  std::vector<KeyDiffCounts> keys;  // keys_compared: per operator and state, sorted
  // Operators of A, then B's others, that DiffOptions::names or V5+ `_metadata` name.
  std::vector<NamedOperator> named;
  bool naming = false;                      // DiffOptions::names was given
  std::vector<std::string> unmatched_uids;  // uids given that name no operator of A or B

  bool structure_differs() const { return !structure.empty() || !renamed.empty(); }
  bool files_differ() const { return !files_added.empty() || !files_removed.empty(); }
  bool keys_differ() const;
  // What the exit status reports: with keys compared, structure or entries (two snapshots of
  // one state in different backends share no file yet do not differ); else structure or files.
  bool differs() const { return structure_differs() || (keys_compared ? keys_differ() : files_differ()); }
};

// Compare A and B. `changes` (may be null) receives every differing entry when keys are
// compared. Errors: a snapshot cannot be read, or (keys) a state cannot be decoded.
CKPT_API Result<DiffReport> diff_snapshots(const std::string& a, const std::string& b, const DiffOptions& options,
                                  KeyChangeSink* changes = nullptr);

// The structural and file parts only, for two decoded `_metadata` models: no state is read
// and no file is looked at (the files-only diff of ckpt-diff(1) is this plus the states).
CKPT_API DiffReport diff_metadata(const Metadata& a, const SnapshotLocation& where_a, const Metadata& b,
                         const SnapshotLocation& where_b);

// The identity diff compares files by: the stored URI of an absolute handle (a `file:` URI
// as its local path, so "file:/x" and "file:///x" are one file), the path inside the
// snapshot directory of a relative one, "uri@start+length" for a segment.
CKPT_API std::string file_identity(const StreamHandle& s, const SnapshotLocation& where);

// The text report: structure, per-subtask file table, totals, key counts.
CKPT_API void write_diff_text(const DiffReport& r, std::ostream& out);
// The JSON document: write_diff_json (ckpt/json.h).
// {"change":"added|removed|changed","operator":..,"uid":.. (when known),"subtask":..,"state":..,"kind":..,
//  "key_group":..,"key":..,"namespace":..,"user_key":..,"before":..,"after":..}
CKPT_API std::string to_ndjson(const KeyChange& c);

}  // namespace ckpt
