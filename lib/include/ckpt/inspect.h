// ckpt/inspect.h - what a snapshot holds, as a report for people and scripts.
//
// inspect_snapshot() reads `_metadata`, resolves every file reference (ckpt/resolve.h) and
// summarises operators, subtasks and handles. The printers turn the report into the text
// table and the JSON document that `ckpt-inspect(1)` documents; the library builds strings
// and streams, the tool decides where they go.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/metadata.h"
#include "ckpt/names.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"

namespace ckpt {

// One top-level handle of a subtask (a slot of its record), with its nested files.
struct CKPT_API HandleSummary {
  HandleSlot slot = HandleSlot::kManagedKeyed;
  uint8_t type = 0;
  std::string kind;                         // handle_type_name(type)
  std::optional<KeyGroupRange> key_groups;  // keyed handles only
  int64_t state_size = 0;                   // full size, as Flink's getStateSize()
  int64_t checkpointed_size = 0;            // what this checkpoint added (incremental)
  int64_t inline_bytes = 0;                 // bytes stored inside `_metadata`
  std::vector<std::string> states;          // operator handles: "name (MODE)"
  std::vector<uint32_t> files;              // indices into InspectReport::files
};

struct CKPT_API SubtaskSummary {
  int32_t index = 0;
  bool finished = false;
  std::vector<HandleSummary> handles;
};

// One named state of an operator, from the backend proxies of its subtasks.
struct CKPT_API StateSummary {
  std::string name;
  // VALUE, LIST, MAP, REDUCING, AGGREGATING, FOLDING, PRIORITY_QUEUE (keyed); SPLIT_DISTRIBUTE,
  // UNION, BROADCAST (operator); TIMER for legacy timers found only by counting raw keyed state.
  std::string kind;
  bool keyed = false;
  // Serializer class names as the proxy stores them; "" where the state has none (the key of
  // operator list states, the namespace of operator states).
  std::string key_serializer;
  std::string namespace_serializer;
  std::string value_serializer;
  std::string value_type;  // the value serializer tree, short names, e.g. "ListSerializer[LongSerializer]"
  std::optional<uint64_t> entries;  // with InspectOptions::count: as `ckpt dump` lines
};

struct CKPT_API OperatorSummary {
  std::string id;    // 32 hex digits, file order
  std::string uid;   // V5+ stores it, or InspectOptions::names knows it; "" otherwise
  std::string name;  // "" when not stored (before V5)
  std::string description;  // the compiled plan's node (InspectOptions::names); "" otherwise
  int32_t parallelism = 0;
  int32_t max_parallelism = 0;
  bool fully_finished = false;
  // Sorted, from: keyed-full, keyed-canonical, keyed-rocksdb-incremental, keyed-changelog,
  // raw-keyed, operator-list, operator-union, operator-broadcast, raw-operator,
  // legacy-operator, coordinator, channel.
  std::vector<std::string> kinds;
  std::optional<HandleSummary> coordinator;  // V3+, when stored
  int64_t state_size = 0;
  int64_t checkpointed_size = 0;
  int64_t inline_bytes = 0;
  size_t file_count = 0;     // distinct files this operator references
  size_t missing_files = 0;  // of those, not found
  size_t short_files = 0;    // of those, smaller than the snapshot needs
  std::vector<SubtaskSummary> subtasks;
  std::vector<StateSummary> states;  // first-seen order over subtasks (operator, then keyed)
  // Why states could not all be read (a missing file, a damaged proxy, a failed count): the
  // first problem per operator, as `Error::to_string()`.
  std::string states_error;
};

struct CKPT_API InspectReport {
  std::string metadata_path;
  std::string directory;
  int32_t metadata_version = 0;
  int64_t checkpoint_id = 0;
  SnapshotKind kind = SnapshotKind::kUnknown;
  bool kind_inferred = false;  // V1-V3: guessed from handle kinds
  CheckpointProperties properties;
  size_t metadata_size = 0;
  size_t master_states = 0;
  int64_t state_size = 0;
  int64_t checkpointed_size = 0;
  int64_t inline_bytes = 0;
  size_t missing_files = 0;  // refused files (FileTable::File::refused) included
  size_t short_files = 0;
  size_t outside_files = 0;  // absolute handles' files outside the job directory (a warning)
  std::string job_directory;  // the parent of `directory`, absolute
  std::vector<OperatorSummary> operators;
  FileTable files;           // every referenced file once, in order of first reference
  bool states_read = false;  // InspectOptions::states
  bool counted = false;      // InspectOptions::count
  bool named = false;        // InspectOptions::names was given
  std::vector<std::string> unmatched_uids;  // uids given that name no operator

  bool files_ok() const { return missing_files == 0 && short_files == 0; }
};

struct CKPT_API InspectOptions {
  std::vector<PrefixRule> remap;
  // Read the backend proxy at the head of every state handle for state names and serializers.
  bool states = true;
  // Also count each state's entries by dumping the snapshot (bounded memory, `jobs` subtasks
  // at once). Implies `states`.
  bool count = false;
  int jobs = 1;
  OperatorNames names;  // uids and plan descriptions for the operators (ckpt/names.h)
  Progress* progress = nullptr;  // with `count`: bytes read and entries counted (ckpt/progress.h)
};

// Read and summarise the snapshot at `path` (directory or `_metadata`). Errors: the snapshot
// cannot be found or read, `_metadata` does not decode, or a relative handle's path leaves the
// snapshot directory (check_relative_path()). Missing files are not errors; they are flagged
// in the report, as are files that are not regular and files outside the job directory.
CKPT_API Result<InspectReport> inspect_snapshot(const std::string& path, const InspectOptions& options);
// The same for a metadata already decoded (`where` says where relative files are). Counting
// re-reads `_metadata` from `where`.
CKPT_API Result<InspectReport> inspect_metadata(const Metadata& m, const SnapshotLocation& where,
                                       const InspectOptions& options);

// "0 B", "512 B", "1.5 KiB", "12.0 MiB", ... (1024-based, one decimal).
CKPT_API std::string human_size(int64_t bytes);
// "1 entry", "2 entries", "0 entries": a count and its noun, singular for exactly one (every
// summary line of the program counts with it).
CKPT_API std::string counted(uint64_t n, std::string_view one, std::string_view many);

// The text report (`ckpt inspect`, `-v` adds subtasks, handles and file references).
CKPT_API void write_inspect_text(const InspectReport& r, bool verbose, std::ostream& out);
// The JSON document: write_inspect_json (ckpt/json.h).

}  // namespace ckpt
