// ops/gc/gc_store.h - `ckpt gc` on a job directory in an object store (ckpt/gc.h, "Object stores").
#pragma once

#include <string>

#include "ckpt/error.h"
#include "ckpt/gc.h"

namespace ckpt::gc_detail {

// collect_garbage() for an s3:// ROOT; options.store must be set.
Result<GcReport> collect_store_garbage(const std::string& root, const GcOptions& options);

// The URIs that Flink's entropy injection makes of `root` (which holds `key`): the `_metadata`
// side (the key removed, a doubled '/' collapsed) and, for a segment `seg` found at the key's
// place, the data side (the key replaced). Exposed for the tests.
struct EntropyPath {
  std::string metadata_root;  // s3://b/checkpoints/job for s3://b/_entropy_/checkpoints/job
  std::string before;         // s3://b/            (what precedes the key)
  std::string segment_rest;   // ""                 (the rest of the key's path segment)
  std::string after;          // /checkpoints/job   (what follows the key)
};
Result<EntropyPath> split_entropy_path(const std::string& root, const std::string& key);

}  // namespace ckpt::gc_detail
