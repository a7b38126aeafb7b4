// ckpt/gc.h - files under a job's checkpoint directory that no retained checkpoint references.
//
// A job's checkpoint directory, as Flink lays it out, holds `chk-<id>/` (each with `_metadata`
// once complete), `shared/` (incremental RocksDB files reused across checkpoints) and
// `taskowned/`. Flink deletes what its current run tracked; files of crashed runs, failed
// uploads and discarded checkpoints stay forever. collect_garbage() reads every `chk-*/_metadata`
// (refusing to run if one cannot be read: a checkpoint that cannot be read cannot be known not
// to need a file), matches the URIs they reference against the files under `shared/` and
// `taskowned/` by their path from the job directory on (so a checkpoint written on another
// machine or under another mount still protects its files), and lists the rest. Files younger
// than the margin may belong to a checkpoint still being written: they are listed, marked, and
// never deleted.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "ckpt/error.h"

namespace ckpt {

// "90s", "15m", "1h", "2d", "1h30m"; a bare number is seconds. kInvalidArgument otherwise.
Result<int64_t> parse_duration(const std::string& text);

struct GcFile {
  std::string path;  // relative to the root, e.g. "shared/3f0c...-sst"
  uint64_t size = 0;
  int64_t age_seconds = 0;  // since its last modification
  bool young = false;       // younger than the margin: never deleted
  bool deleted = false;     // apply: deleted
  std::string error;        // apply: why it could not be deleted
};

struct GcOptions {
  int64_t older_than_seconds = 3600;
  bool apply = false;  // delete the orphans older than the margin
  // apply: called after each deletion attempt (deleted, or error set).
  std::function<void(const GcFile&)> on_delete;
};

struct GcReport {
  std::string root;
  std::vector<std::string> retained;  // "chk-<id>" with a readable `_metadata`, sorted by id
  size_t files_scanned = 0;           // under shared/ and taskowned/
  uint64_t bytes_scanned = 0;
  size_t referenced = 0;              // of those, referenced by a retained checkpoint
  std::vector<GcFile> orphans;        // sorted by path
  uint64_t orphan_bytes = 0;
  uint64_t young_bytes = 0;           // of orphan_bytes, in young files
  size_t deleted = 0;
  uint64_t deleted_bytes = 0;
  size_t failed = 0;                  // apply: deletions that failed
};

// Errors: ROOT is not a directory, or a `chk-*/_metadata` exists but cannot be read or decoded
// (the error names it); deletion failures are recorded per file, not returned.
Result<GcReport> collect_garbage(const std::string& root, const GcOptions& options);

// Path relative to a job directory that a referenced URI stands for, found by its suffix: every
// suffix of the URI's path starting at a "shared" or "taskowned" component that names one of
// `candidates` (relative paths) is returned ("s3://b/x/job/shared/f" -> "shared/f").
std::vector<std::string> suffix_matches(const std::string& uri,
                                        const std::function<bool(const std::string&)>& is_candidate);

void write_gc_text(const GcReport& r, const GcOptions& options, std::ostream& out);
// {"root":..,"retained":[..],"files_scanned":..,"orphans":[{"path","size","age_seconds","young",
//  "deleted"}],"orphan_bytes":..,"young_bytes":..,"deleted":..,"deleted_bytes":..}
void write_gc_json(const GcReport& r, std::ostream& out);

}  // namespace ckpt
