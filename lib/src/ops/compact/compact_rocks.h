// ops/compact/compact_rocks.h - one RocksDB instance restored from a native handle's files, fully
// compacted, and checkpointed into a directory.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ckpt/compact.h"
#include "ckpt/error.h"

namespace ckpt {

struct RocksCompactJob {
  std::vector<std::pair<std::string, std::string>> files;  // (RocksDB file name, local source path)
  std::string work_dir;  // created; holds the restored instance; the caller removes it
  Progress* progress = nullptr;  // each file's bytes as it is copied, all of them again once compacted
  std::string out_dir;   // must not exist; receives the compacted instance
  CompactCompression compression = CompactCompression::kZstd;
};

// The files of the compacted instance in out_dir (SSTs, MANIFEST, CURRENT, OPTIONS; no logs),
// sorted by name.
Result<std::vector<std::string>> compact_instance(const RocksCompactJob& job);

}  // namespace ckpt
