// ckpt/relocate.h - moving a snapshot: rewriting the file paths stored in `_metadata`.
//
// Absolute file references (type 2 files, type 15 segment files, the directories of type 17
// operator handles) stop working when a snapshot moves between buckets or clusters. This
// rewrites their prefixes (OLD=NEW, the longest matching OLD wins, matching whole path
// components), and optionally turns absolute file handles that point into the snapshot's
// own directory into relative ones (type 2 -> type 6), which Flink resolves against wherever
// `_metadata` is.
#pragma once

#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"

namespace ckpt {

struct CKPT_API RelocateOptions {
  std::vector<PrefixRule> maps;  // OLD=NEW
  // Turn type-2 handles whose path (after `maps`) is a `file:` URI or absolute path inside the
  // snapshot directory into type-6 handles relative to it.
  bool relative = false;
  bool force = false;  // replace an existing output file (never the input or a file it references)
};

struct CKPT_API RelocateStats {
  size_t rewritten = 0;      // paths changed by a mapping
  size_t made_relative = 0;  // absolute handles turned into relative ones
  bool changed() const { return rewritten > 0 || made_relative > 0; }
};

// Rewrite `m` in place. `snapshot_dir` is the directory of its `_metadata` (for `relative`).
CKPT_API RelocateStats relocate_metadata(Metadata& m, const std::string& snapshot_dir, const RelocateOptions& options);

// Read the snapshot at `snapshot` (directory or `_metadata`), rewrite it and write the new
// `_metadata` to `output` atomically. The input is never modified: an `output` that is the
// input file or a file it references is refused (kInvalidArgument), and so is an existing one
// without `force`. When nothing changes the output is the input, byte for byte.
CKPT_API Result<RelocateStats> relocate_snapshot(const std::string& snapshot, const std::string& output,
                                        const RelocateOptions& options);

}  // namespace ckpt
