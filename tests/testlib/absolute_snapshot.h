// tests/testlib/absolute_snapshot.h - a synthetic snapshot whose files are referenced by
// absolute URIs (type 2), as Flink writes for shared files and for checkpoints before 1.11.
// The corpus has none, so resolution, --remap and relocate are tested on this one.
#pragma once

#include <string>

#include "ckpt/metadata.h"

namespace ckpt::test {

// A V3 metadata with one operator of parallelism 2:
// - subtask 0: key-groups handle (type 12) over "file:" + snap_dir + "/kg-0" (type 2, 100 bytes);
// - subtask 1: incremental handle (type 11) with meta "file://" + snap_dir + "/meta-1" (40 bytes),
//   shared file shared_prefix + "/sst-1" (300 bytes) and private "file:" + snap_dir + "/MANIFEST-1"
//   (20 bytes); an inline operator state whose name is the path-like "file:/tmp/not-a-file".
Metadata absolute_metadata(const std::string& snap_dir, const std::string& shared_prefix);

// Writes absolute_metadata(snap_dir, shared_prefix) as snap_dir/_metadata together with the
// files it names under snap_dir (kg-0, meta-1, MANIFEST-1) and, if `shared_dir` is non-empty,
// shared_dir/sst-1. Returns the _metadata bytes.
std::string write_absolute_snapshot(const std::string& snap_dir, const std::string& shared_prefix,
                                    const std::string& shared_dir);

}  // namespace ckpt::test
