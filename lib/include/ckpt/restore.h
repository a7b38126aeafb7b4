// ckpt/restore.h - a subtask's keyed state as a RocksDB instance on local disk.
//
// restore_snapshot() writes one RocksDB instance directory per restored subtask at
// OUTPUT/<operator id>/subtask-<n>/. A RocksDB native handle (incremental checkpoint, native
// savepoint) becomes its files under their RocksDB names, as Flink's restore lays them out; a
// heap or canonical key-groups handle becomes the same kind of instance, its entries re-framed
// in Flink's RocksDB key layout and written with the RocksDB API.
// Every instance is opened with RocksDB (all column families, Flink's merge operator) and
// checked before the output appears, atomically (a temporary directory, then a rename).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/metadata.h"
#include "ckpt/plan.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"

namespace ckpt {

struct CKPT_API RestoreOptions {
  std::string output;           // must be absent or empty unless `force`
  std::string operator_filter;  // as operator_matches(): id, id prefix, uid, V5+ name; empty: every operator
  std::optional<int32_t> subtask;
  // Keep only these key groups (inclusive), as a rescaled restore clips: entries outside are
  // deleted and compacted away. Subtasks whose range misses it are not restored.
  std::optional<std::pair<int32_t, int32_t>> key_groups;
  bool link = false;   // native handles: hard-link SSTs where the file system allows (else copy)
  // Read every entry of every instance back with checksums verified. Without it the check
  // reads table properties and first and last keys: a few reads per file.
  bool full_check = false;
  int jobs = 1;        // subtasks restored at once
  bool force = false;  // replace a non-empty output directory (never one that is or holds the input)
  std::vector<PrefixRule> remap;
  // Another snapshot of the job whose keyed proxies name the key serializers that changelog
  // handles without a materialized part lack (as ckpt-convert's --key-serializers-from).
  std::string key_serializers_from;
  // The input's bytes read (checked first, then copied or rebuilt) and, for heap and canonical
  // state, the entries written (ckpt/progress.h).
  Progress* progress = nullptr;
  // Only the subtasks of this part (ckpt/plan.h): the parts' instances, each restored into
  // its own output, are those of one run. An empty part writes nothing and is no error.
  std::optional<ShardSpec> shard;
};

struct CKPT_API RestoredInstance {
  std::string operator_id;  // 32 hex digits
  int32_t subtask = 0;
  std::string directory;    // the final instance directory
  KeyGroupRange key_groups; // what the instance holds
  std::vector<std::string> column_families;  // Flink's states, in the meta stream's order
  uint64_t files = 0;
  uint64_t bytes = 0;
  uint64_t linked_files = 0;  // of `files`, hard-linked instead of copied
  // Records in all column families: live keys read back with a full check, else the tables'
  // entries less their deletions (merge operands count one each).
  uint64_t entries = 0;
};

// A subtask with keyed state that was not restored, and why (a changelog handle naming no key
// serializer, a state that cannot be re-framed without the job's classes).
struct CKPT_API SkippedSubtask {
  std::string operator_id;
  int32_t subtask = 0;
  std::string reason;
};

struct CKPT_API RestoreReport {
  std::string output;
  std::vector<RestoredInstance> instances;  // operators in file order, subtasks ascending
  std::vector<SkippedSubtask> skipped;

  // An `ldb` command line that scans the first instance's first column family.
  std::string ldb_command() const;
};

// Errors: the snapshot cannot be read, the output is not empty (without force) or is, holds or
// lies inside an input (ckpt(1), OUTPUTS), the filters
// match nothing restorable, a file is missing, or an instance fails its check. On error the
// output directory is left as it was.
CKPT_API Result<RestoreReport> restore_snapshot(const std::string& snapshot, const RestoreOptions& options);

// What was written, one line per instance, then the ldb command line.
CKPT_API void write_restore_text(const RestoreReport& r, std::ostream& out);
// The JSON document: write_restore_json (ckpt/json.h).

}  // namespace ckpt
