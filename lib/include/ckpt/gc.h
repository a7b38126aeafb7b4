// ckpt/gc.h - files under a job's checkpoint directory that no retained snapshot references.
//
// A job's checkpoint directory, as Flink lays it out, holds `chk-<id>/` (each with `_metadata`
// once complete), `shared/` (incremental RocksDB files reused across checkpoints) and
// `taskowned/`. Flink deletes what its current run tracked; files of crashed runs, failed
// uploads and discarded checkpoints stay forever. collect_garbage() reads every
// `chk-*/_metadata` and `savepoint-*/_metadata` of ROOT and of every `referenced_by` directory
// (refusing to run if one exists but cannot be read: a snapshot that cannot be read cannot be
// known not to need a file), matches the URIs they reference against the files under `shared/`
// and `taskowned/` by their path from the job directory on (so a checkpoint written on another
// machine or under another mount still protects its files), and lists the rest.
//
// Other jobs: a job restored in CLAIM (or legacy) mode references its predecessor's `shared/`
// from its own checkpoints, which live under another root. Those roots must be named in
// `referenced_by`; with nothing retained at all, every file would look orphaned, so that is
// refused unless `allow_empty`.
//
// The margin: files modified within `older_than_seconds` are listed, marked young, and never
// deleted. A shared file exists before any `_metadata` references it: Flink uploads a
// checkpoint's new SSTs while the checkpoint is in progress (up to its timeout, 10 minutes by
// default, often raised to hours for large state) and writes `_metadata` only on completion; and Flink 2.x's
// ForSt backend keeps its live database in `shared/op_<operator>_attempt_<n>/` by default
// (state.backend.forst.primary-dir: checkpoint-dir), where compactions write SSTs that the next
// completed checkpoint adopts in place, without a copy. Such a file is unreferenced for as long
// as no checkpoint completes after it was written. The default margin is therefore a day, not
// an hour: several checkpoint intervals even for jobs that checkpoint hourly, and room for a
// run of failed checkpoints.
//
// Safety: nothing outside ROOT is ever listed or deleted. Symlinks under ROOT are reported in
// `skipped_symlinks`, never followed (`shared/` or `taskowned/` themselves included); deletions
// go through directory fds opened without following symlinks from ROOT, and unlink a file only
// if it is still the regular file scanned (device, inode, size, modification time).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
namespace ckpt {

class ObjectStore;

// "90s", "15m", "1h", "2d", "1h30m"; a bare number is seconds. kInvalidArgument otherwise.
CKPT_API Result<int64_t> parse_duration(const std::string& text);

struct CKPT_API GcFile {
  std::string path;  // relative to the root, e.g. "shared/3f0c...-sst"
  uint64_t size = 0;
  int64_t age_seconds = 0;  // since its last modification
  bool young = false;       // younger than the margin: never deleted
  bool deleted = false;     // apply: deleted
  std::string error;        // apply: why it could not be deleted
};

struct CKPT_API GcOptions {
  int64_t older_than_seconds = 86400;  // one day: why, in the comment at the top
  bool apply = false;  // delete the orphans older than the margin
  // Other jobs' checkpoint directories, savepoint directories or snapshot directories whose
  // snapshots (`chk-*`, `savepoint-*`, or DIR itself) count as references. Each must hold one.
  std::vector<std::string> referenced_by;
  bool allow_empty = false;  // run even if no snapshot at all is retained
  // apply: called after each deletion attempt (deleted, or error set).
  std::function<void(const GcFile&)> on_delete;

  // ROOT an s3:// URI (see "Object stores" below): the store it is in (null: the one
  // ckpt/file_system.h reads the URI through).
  std::shared_ptr<ObjectStore> store;
  // Flink's `s3.entropy.key`: ROOT is spelled as `state.checkpoints.dir` is, with the key in it.
  std::string entropy_key;
  int jobs = 8;  // requests in flight (listings of entropy prefixes)
  // apply on a store: hears each DeleteObjects batch (at most 1000 orphans) before it is sent.
  std::function<void(const std::vector<const GcFile*>& batch)> on_batch;
};

// A `referenced_by` directory and the snapshots read from it.
struct CKPT_API GcReferencingDir {
  std::string dir;                     // as given
  std::vector<std::string> snapshots;  // "chk-<id>", "savepoint-*", or "." for DIR itself
};

struct CKPT_API GcReport {
  std::string root;
  // "chk-<id>" with a readable `_metadata`, sorted by id (then those read just before deleting)
  std::vector<std::string> retained;
  std::vector<std::string> savepoints;  // "savepoint-*" under ROOT with a readable `_metadata`
  std::vector<GcReferencingDir> referenced_by;
  std::vector<std::string> skipped_symlinks;  // under shared/ and taskowned/, relative to ROOT
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

// Object stores. ROOT an s3:// (s3a://, s3p://) URI: the objects under ROOT/shared/ and
// ROOT/taskowned/ are listed (their LastModified as their age), the snapshots are
// ROOT/chk-<id>/_metadata and ROOT/savepoint-*/_metadata (a `referenced_by` entry may be a URI
// too), and the orphans are deleted in DeleteObjects batches, each heard by `on_batch` first.
// Nothing outside ROOT's prefixes is listed or deleted. An object is referenced when a handle
// names its URI, or by the suffix rule of suffix_matches().
//
// Entropy injection (Flink's EntropyInjector, `s3.entropy.key`): Flink writes each data file at
// the checkpoint path with the key replaced by random characters (`s3.entropy.length`,
// alphanumeric) and each `_metadata` at the path with the key removed. With `entropy_key`, ROOT
// holds the key; the snapshots are read under ROOT without it, and the data files are listed
// under ROOT with the key replaced by every alphanumeric value found by one delimited listing at
// the key's place (GcFile::path is then the object's URI). Without it, a retained snapshot that
// references a shared/ or taskowned/ file of this job (the same job directory name) outside
// ROOT is refused: its files are elsewhere and the orphans under ROOT would not be all.
//
// Errors: ROOT (or a `referenced_by` directory) is not a directory, a `referenced_by` directory
// holds no snapshot, a `_metadata` exists but is not a readable regular file or cannot be
// decoded (the error names it), nothing is retained without `allow_empty`; deletion failures
// are recorded per file, not returned.
CKPT_API Result<GcReport> collect_garbage(const std::string& root, const GcOptions& options);

// Path relative to a job directory that a referenced URI stands for, found by its suffix: every
// suffix of the URI's path starting at a "shared" or "taskowned" component that names one of
// `candidates` (relative paths) is returned ("s3://b/x/job/shared/f" -> "shared/f"). The path
// is normalized first, so no match contains "..". A file of another job with the same suffix
// matches too: harmless, it only keeps more.
CKPT_API std::vector<std::string> suffix_matches(const std::string& uri,
                                        const std::function<bool(const std::string&)>& is_candidate);

CKPT_API void write_gc_text(const GcReport& r, const GcOptions& options, std::ostream& out);
// The JSON document: write_gc_json (ckpt/json.h).

}  // namespace ckpt
