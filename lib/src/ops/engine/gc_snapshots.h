// ops/engine/gc_snapshots.h - the snapshots whose references `ckpt gc` must honour.
//
// A snapshot that exists but cannot be read might reference any file, so anything short of a
// readable regular `_metadata` (a dangling symlink, a directory, a FIFO) is an error here, never
// a snapshot silently skipped. Only a snapshot directory without any `_metadata` entry (a
// checkpoint in progress or abandoned) is skipped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"

namespace ckpt::gc_detail {

struct SnapshotDir {
  std::string name;           // "chk-7", "savepoint-3f0c1e-ab12cd34ef56", or "." for DIR itself
  std::string directory;      // where its relative handles point
  std::string metadata_path;  // a regular file (possibly through a symlink); "" when in progress
};

// Why gc stops at an unreadable snapshot, the context of every such error.
extern const char* const kRefusal;

struct FindSnapshots {
  bool self = false;               // first `dir` itself when it holds a `_metadata`
  bool in_progress = false;        // also the snapshot directories without any `_metadata` (ckpt ls)
  const char* context = kRefusal;  // the context of an error; nullptr: none
};

// The snapshots directly in `dir`: `chk-<id>` directories (by id), then `savepoint-*`
// directories (by name), each with a `_metadata`. Errors name the entry that is not a readable
// snapshot.
Result<std::vector<SnapshotDir>> find_snapshots(const std::string& dir, const FindSnapshots& how);
inline Result<std::vector<SnapshotDir>> find_snapshots(const std::string& dir, bool self) {
  return find_snapshots(dir, FindSnapshots{.self = self});
}

// What `ckpt gc` does about a snapshot directory find_snapshots() finds (`ckpt ls` shows it).
enum class GcFate : uint8_t {
  kRetained,  // a readable `_metadata`: every file it references is kept
  kRefused,   // a `_metadata` that cannot be read: gc refuses to run in its job directory at all
  // In progress (no `_metadata`): it protects nothing; what it uploaded to shared/ and
  // taskowned/ that no retained snapshot references is an orphan, kept while younger than the
  // margin (its directory's age stands for its files'), deleted after. Its own directory stays.
  kYoung,
  kOrphaned,
};
GcFate gc_fate(const SnapshotDir& s, bool readable, int64_t age_seconds, int64_t margin_seconds);
// "retained", "refused", "young", "orphaned"
const char* gc_fate_name(GcFate fate);

// The id of a checkpoint directory's name ("chk-42" -> 42); nullopt for any other name,
// including one whose digits overflow an i64.
std::optional<int64_t> checkpoint_id(std::string_view name);

// A `--referenced-by` DIR that holds no snapshot: a mistyped one would protect nothing.
Error no_snapshot_in(const std::string& dir);
// No snapshot at all to honour (without allow_empty).
Error nothing_retained(const std::string& root);

// The decoded `_metadata` of `s`; the error names it and says why gc refuses to go on.
Result<Metadata> read_snapshot(const SnapshotDir& s);

}  // namespace ckpt::gc_detail
