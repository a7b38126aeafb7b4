// ops/rewrite/rewrite_parts.h - a rewrite (convert, edit) run in parts by a job runner and
// assembled by a last step (ckpt/plan.h).
//
// Part K of N is the directory "<output>.part-K-of-N" beside the output, published atomically
// as any output is (TempDir): it exists only once complete. It holds the files of the part's
// subtasks under the names a run in one go gives them, its `_metadata` as ckpt would write it
// with only those subtasks rewritten ("_part-metadata", never "_metadata": it is no snapshot),
// and what it wrote ("_part.json"). The last step finds the N parts, takes each part's subtasks
// from its `_part-metadata`, links (or copies) every file into one temporary directory, writes
// the coordinator streams and `_metadata` last and publishes the output; then the part
// directories are removed. The file names are those of one run, so the result is the same.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "ckpt/plan.h"

namespace ckpt {

inline constexpr const char* kPartMetadataName = "_part-metadata";
inline constexpr const char* kPartManifestName = "_part.json";

// What one part wrote: its counters, summed by the last step.
struct PartCounts {
  uint64_t subtasks = 0, entries = 0, files = 0, bytes = 0;
  uint64_t canonical = 0, native = 0;
  // What the part was cut from and by (part_fingerprint()): the last step takes only parts of
  // its own command line and snapshot.
  std::string fingerprint;
  // What the command's operations found in the part's subtasks (SnapshotEdit::found), for the
  // last step's checks over every subtask.
  std::vector<std::string> found;
};

// 16 hex digits (FNV-1a, 64 bits) of `text`: the same on every machine.
std::string part_fingerprint(std::string_view text);

// "<output>.part-K-of-N" (a trailing '/' of `output` ignored).
std::string part_directory(const std::string& output, const ShardSpec& shard);

// `_part-metadata` and `_part.json` written into `dir` (the part's temporary directory).
Status write_part_files(const std::string& dir, const ShardSpec& shard, const std::string& metadata_bytes,
                        const PartCounts& counts);

struct FoundPart {
  ShardSpec shard;
  std::string dir;
  Metadata metadata;  // its `_part-metadata`
  PartCounts counts;
};

// Every part of `output`, by index: all N of one N, each complete (its two files readable and
// naming its index and count, every relative file its subtasks in `plan` reference present with
// its size). kNotFound naming the missing parts, kInvalidArgument for parts of several counts,
// kCorruption for a damaged part.
Result<std::vector<FoundPart>> find_parts(const std::string& output);

// The subtasks `plan` (made over `out`) gives `part`, taken from its `_part-metadata` into `out`,
// after checking that the part was cut from the same operators and subtasks and that every
// relative file they reference is in the part with its size (kCorruption naming the part).
Status take_part_subtasks(const FoundPart& part, const Plan& plan, Metadata& out);

// Every file under `part_dir` but the part's own two, hard-linked (or copied where a link is
// refused) to the same relative path under `dir`; directories made as needed.
Status link_part_files(const std::string& part_dir, const std::string& dir);

}  // namespace ckpt
