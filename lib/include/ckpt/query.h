// ckpt/query.h - the snapshots under a path, and SQL over their state.
//
// list_snapshots() is discovery: PATH is a snapshot (its directory or `_metadata`), a job's
// checkpoint directory (`chk-<id>/`, `savepoint-*/`) or a directory holding many jobs or
// snapshots (searched a few levels deep; below PATH a directory of any name with a `_metadata`
// is a snapshot); a `chk-<id>/` or `savepoint-*/` directory without `_metadata` is a checkpoint
// in progress (or abandoned) and is listed as incomplete.
//
// run_query() runs SQL (SQLite's dialect) over the complete snapshots found under its paths.
// Its tables are SQLite virtual tables: `entries` streams every state entry from the entry
// iterator (ckpt/entries.h), one row per `ckpt dump` line, nothing loaded first; equality on
// `snapshot`, `operator`, `state`, `subtask`, `key_group` and `key` narrows what is read (a key
// reads only the key group Flink assigns it, as `ckpt dump --key` does). `snapshots`,
// `operators`, `states` and `files` describe the snapshots (ckpt-query(1) lists the columns).
// Each state has a table of its own, "<operator>.<state>" (the operator by its uid, V5+ name
// or id), with its key, user key and value split into the columns its serializers name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/names.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"

namespace ckpt {

// One snapshot discovery found.
struct CKPT_API ListedSnapshot {
  std::string job;            // the name of the directory holding it (the job's checkpoint directory)
  std::string name;           // "chk-7", "savepoint-3f0c1e-ab12cd34ef56": its directory's name
  std::string path;           // its directory
  std::string kind;           // "checkpoint" or "savepoint" (from `_metadata`, else from a name Flink gives), "" unknown
  std::optional<int64_t> id;  // the checkpoint id (`_metadata`'s, else the name's)
  bool complete = false;      // `_metadata` present
  // When `_metadata` (for an incomplete one, the directory) was last modified, ISO 8601 UTC.
  std::string time;
  // From `_metadata` (complete snapshots that decode; zero or empty otherwise):
  std::string format;   // snapshot_kind_name(): checkpoint, savepoint-canonical, savepoint-native, unknown
  std::string backend;  // "rocksdb", "heap", "changelog", or "" where the layout does not say
  int32_t metadata_version = 0;
  int64_t state_size = 0;
  size_t operator_count = 0;
  size_t file_count = 0;  // distinct files referenced
  std::string problem;    // why `_metadata` could not be read; "" when it could
  // What `ckpt gc` on its job directory does about it (its default margin, ckpt/gc.h):
  // "retained" (its files are kept), "refused" (its `_metadata` cannot be read: gc stops),
  // "young" or "orphaned" (in progress: what it uploaded to shared/ and taskowned/ is kept
  // for now, or deleted, unless a retained snapshot references it).
  std::string gc;
};

struct CKPT_API ListOptions {
  std::vector<PrefixRule> remap;
};

// The snapshots under `path`: jobs in name order, each job's checkpoints by id, then its
// savepoints by name. Errors: `path` does not exist, holds no snapshot (kNotFound), or cannot
// be listed. A `_metadata` that does not decode is no error: the snapshot's `problem` says why.
CKPT_API Result<std::vector<ListedSnapshot>> list_snapshots(const std::string& path, const ListOptions& options = {});

// ckpt-ls(1)'s text: one aligned row per snapshot (job, name, kind, id, time, size, backend, gc,
// status), names made printable().
CKPT_API std::string ls_text(const std::vector<ListedSnapshot>& found);

// One cell of a result row, as SQLite types it.
struct CKPT_API QueryCell {
  enum class Type : uint8_t { kNull, kInteger, kReal, kText, kBlob };
  Type type = Type::kNull;
  int64_t integer = 0;
  double real = 0;
  std::string text;  // kText, kBlob
};

class CKPT_API QuerySink {
 public:
  virtual ~QuerySink() = default;
  // Before the rows of each statement that returns rows.
  virtual void columns(const std::vector<std::string>& names) = 0;
  virtual void row(const std::vector<QueryCell>& cells) = 0;
};

struct CKPT_API QueryOptions {
  OperatorNames names;  // uids and SQL key column names (ckpt/names.h), as `ckpt dump` uses them
  std::vector<PrefixRule> remap;
  int jobs = 1;                  // subtasks decoded at once
  Progress* progress = nullptr;  // bytes read and entries decoded (ckpt/progress.h)
  // A damaged part (handle, key group, SST, change log) met mid-query is listed in
  // QuerySummary::problems and stepped over: the rows are those of the undamaged parts.
  // Without it, it ends the query with its error.
  bool keep_going = false;
};

struct CKPT_API QuerySummary {
  uint64_t rows = 0;
  std::vector<ListedSnapshot> snapshots;  // what the paths held
  std::vector<Error> problems;            // QueryOptions::keep_going: the parts stepped over
};

// Runs every statement of `sql` over the snapshots under `paths`, handing result rows to
// `sink` as they come. Errors: a path holds no snapshot; the SQL does not parse or names an
// unknown table or column (kInvalidArgument, SQLite's message); a snapshot that cannot be read
// (the reader's error: file, offset, operator and subtask).
CKPT_API Result<QuerySummary> run_query(const std::vector<std::string>& paths, const std::string& sql,
                                        const QueryOptions& options, QuerySink& sink);

}  // namespace ckpt
