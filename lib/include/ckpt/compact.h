// ckpt/compact.h - a RocksDB checkpoint or native savepoint rewritten as a compact, self-contained
// native savepoint.
//
// An incremental checkpoint references SST files written by any number of earlier checkpoints,
// holding overwritten and deleted entries until RocksDB compacts them. compact_snapshot() does,
// per subtask, what Flink's restore does (every file of the handle copied into a fresh
// instance directory, opened with every column family and Flink's merge operator), then a full
// RocksDB compaction of every column family and a RocksDB Checkpoint of the result. The output
// is a native savepoint: a new `_metadata` whose handles are all relative (type 6) to files in
// the output directory, the state of non-RocksDB handles copied as it is. The input is only
// read; the output directory appears atomically, complete or not at all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"

namespace ckpt {

enum class CompactCompression : uint8_t { kZstd, kLz4, kSnappy, kNone };
// "zstd", "lz4", "snappy", "none" -> value; kInvalidArgument otherwise.
CKPT_API Result<CompactCompression> parse_compact_compression(const std::string& name);

struct CKPT_API CompactOptions {
  CompactCompression compression = CompactCompression::kZstd;
  int jobs = 1;                   // subtasks compacted at once
  std::vector<PrefixRule> remap;  // as ckpt-inspect's --remap
  bool force = false;             // replace an existing output (never one that is or holds the input)
  // The input's bytes read: checked, then each instance's files copied and compacted (ckpt/progress.h).
  Progress* progress = nullptr;
};

struct CKPT_API CompactReport {
  std::string input;   // the `_metadata` read
  std::string output;  // the directory written
  size_t instances = 0;             // RocksDB instances compacted (subtasks with a native handle)
  size_t files_before = 0;          // distinct files the input references
  uint64_t bytes_before = 0;
  size_t sst_files_before = 0;      // of those, SSTs of native handles
  size_t files_after = 0;           // files in the output, `_metadata` excluded
  uint64_t bytes_after = 0;
  size_t sst_files_after = 0;
};

// Errors: the input cannot be read, holds no RocksDB native handle, or references a file
// that is missing; `output` exists and is not empty (without `force`), or is, holds or lies
// inside the input (ckpt(1), OUTPUTS); RocksDB fails (the message names the operator and
// subtask).
CKPT_API Result<CompactReport> compact_snapshot(const std::string& snapshot, const std::string& output,
                                       const CompactOptions& options);

}  // namespace ckpt
