// tests/testlib/sample_savepoint.h - the project's own sample savepoint (testdata/sample-savepoint).
//
// A small job as Flink 1.20 would have saved it as a native savepoint of the heap backend: a
// source with a list (SPLIT_DISTRIBUTE) operator state of offsets, and a keyed counter with a
// ValueState<Long> per Long key in two subtasks, each in heap key-group layout. Written with the
// project's writer (encode_metadata, encode_checkpoint_properties); testdata/make_sample.cc
// writes it to disk and tests/cli/sample_savepoint_test.cc checks that this is reproducible.
#pragma once

#include <map>
#include <string>

#include "ckpt/error.h"

namespace ckpt::test {

// File name -> bytes, "_metadata" included.
Result<std::map<std::string, std::string>> build_sample_savepoint();

// Writes every file of build_sample_savepoint() into `dir` (created if needed).
Status write_sample_savepoint(const std::string& dir);

// The keys and counts the keyed operator holds, for tests: key -> count.
const std::map<int64_t, int64_t>& sample_counts();

}  // namespace ckpt::test
