// ckpt/verify.h - would Flink restore this snapshot? A gate to run before a deploy.
//
// verify_snapshot() never stops at the first fault: it returns every problem it finds, each
// naming the operator, subtask, handle and file concerned. Quick checks look at `_metadata`
// and the file system only (existence, declared sizes, key-group ranges, offsets, files
// referenced twice); deep checks read every byte (every stream decodes, every SST passes
// RocksDB's checksum verification, every entry lies in a key group of its job).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/names.h"
#include "ckpt/plan.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"

namespace ckpt {

enum class ProblemKind : uint8_t {
  kMissingFile,          // a referenced file is not there
  kSizeMismatch,         // a file's size differs from the size its handle declares
  kOffsetOutsideFile,    // an offset or segment stored in `_metadata` lies beyond its stream
  kFileConflict,         // one file referenced with different sizes or names
  kKeyGroupOverlap,      // two subtasks of an operator claim the same key group
  kKeyGroupGap,          // a key group no subtask holds although its subtask has keyed state
  kBadKeyGroupRange,     // a handle's range does not fit 0..max_parallelism-1
  kUndecodable,          // deep: a stream or SST does not decode
  kChecksumMismatch,     // deep: RocksDB's checksum verification fails
  kKeyGroupOutOfRange,   // deep: an entry's key group is not one of the job's
  kPathOutsideSnapshot,  // a relative handle's path leaves the snapshot directory (not followed)
  kNotRegularFile,       // a FIFO, device, socket or directory stands where a file is referenced
  kOutsideJobDirectory,  // warning: an absolute handle's file lies outside the job directory
  kBadFileName,          // an incremental handle names a RocksDB file by a path, not a plain name
};
// "missing-file", "size-mismatch", "offset-outside-file", "file-conflict", "key-group-overlap",
// "key-group-gap", "bad-key-group-range", "undecodable", "checksum-mismatch",
// "key-group-out-of-range", "path-outside-snapshot", "not-regular-file", "outside-job-directory",
// "bad-file-name".
CKPT_API const char* problem_kind_name(ProblemKind kind);

struct CKPT_API VerifyProblem {
  ProblemKind kind = ProblemKind::kUndecodable;
  std::string operator_id;  // 32 hex digits; empty when the problem is not an operator's
  std::string uid;          // the operator's uid, when VerifyOptions::names or V5+ knows it
  int32_t subtask = -1;     // -1 when the problem is the operator's as a whole
  std::string handle;       // e.g. "managed-keyed key-groups", "managed-keyed incremental/shared 000010.sst"
  // What is wrong and where, as every other error of the library says it: error.message
  // (lower-case, no trailing period), error.file (the file as `_metadata` names it, or the local
  // path found), error.offset (absolute, in that file, when known) and error.code (kNotFound for
  // a missing file, kNotSupported for a part that could not be checked, else kCorruption).
  // error.context stays empty: the fields above place the problem.
  Error error;
};

struct CKPT_API VerifyOptions {
  bool deep = false;
  int jobs = 1;                   // deep: subtasks and SSTs checked at once
  std::vector<PrefixRule> remap;  // as ckpt-inspect's --remap
  OperatorNames names;            // uids and plan descriptions (ckpt/names.h)
  Progress* progress = nullptr;   // deep: SST bytes checksummed, state bytes and entries decoded
  // Only the subtasks of this part (ckpt/plan.h), quick and deep checks alike; the operators'
  // coordinator state and finished subtasks go with part 0. The parts' problems together are
  // those of one run.
  std::optional<ShardSpec> shard;
};

struct CKPT_API VerifyReport {
  std::string metadata_path;
  bool deep = false;
  size_t operators = 0;
  size_t subtasks = 0;          // subtask records (finished ones included)
  size_t files = 0;             // distinct referenced files
  size_t sst_files = 0;         // deep: SSTs checksummed
  uint64_t entries = 0;         // deep: state entries decoded
  // Deep: SSTs of native handles holding key groups outside their handle's (but inside the
  // job's) range. Not a problem: rescaling leaves them, and Flink's restore clips them.
  size_t sst_files_beyond_range = 0;
  std::vector<VerifyProblem> problems;
  // Deep: parts that could not be checked although nothing says they are damaged (a value
  // that needs the job's classes to be delimited, a feature ckpt cannot decode yet). Not
  // problems; listed so that a clean result is not read as more than it is.
  std::vector<VerifyProblem> unchecked;
  // Not problems either: files of absolute handles read from outside the job directory and
  // every --remap target. Flink stores absolute paths into checkpoint storage, which may have
  // moved since; the files may be right, but they are not where the job's files live.
  std::vector<VerifyProblem> warnings;
  std::vector<NamedOperator> named;         // the operators VerifyOptions::names or V5+ name
  bool naming = false;                      // VerifyOptions::names was given
  std::vector<std::string> unmatched_uids;  // uids given that name no operator

  bool clean() const { return problems.empty(); }
  // Deep: every part was read. A gate should not pass on what it did not check (ckpt-verify(1)
  // exits 1 unless told --allow-unread).
  bool complete() const { return unchecked.empty(); }
};

// Errors only when the snapshot cannot be checked at all (no `_metadata`, or it does not
// decode); everything else is a problem in the report.
CKPT_API Result<VerifyReport> verify_snapshot(const std::string& snapshot, const VerifyOptions& options);

// One line: "operator 1f2b… (uid 'u'), subtask 3, managed-keyed key-groups, file 'x': size-mismatch: ..."
CKPT_API std::string format_problem(const VerifyProblem& p);

// The key-group checks of verify (`bad-key-group-range`: a max parallelism no job has, a range
// outside 0..max_parallelism-1, offsets not one per key group) with the first problem as a
// kCorruption error naming `metadata_path` and the offset. Every command runs them before it
// sizes anything by a max parallelism or a range: dump, convert, edit and restore as part of
// their input checks, the others on their own.
CKPT_API Status check_key_group_ranges(const Metadata& m, const std::string& metadata_path);
// The problems, one per line, then a summary line.
CKPT_API void write_verify_text(const VerifyReport& r, std::ostream& out);
// The JSON document: write_verify_json (ckpt/json.h).

}  // namespace ckpt
