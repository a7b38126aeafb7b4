// tests/testlib/job_dir.h - a job's checkpoint directory to aim misdirected outputs at, and a
// listing to prove it survived.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace ckpt::test {

// What Flink leaves for a job with retained incremental RocksDB checkpoints: dir/chk-1 ..
// dir/chk-3 (each a _metadata and private files), dir/shared/ with the SSTs they share,
// dir/taskowned/; written by generate_snapshot (small: 2 subtasks, 300 keys).
void write_job_dir(const std::string& dir);

// Every entry under `dir`, relative path -> size (-1 for a directory).
std::map<std::string, int64_t> tree_of(const std::string& dir);

}  // namespace ckpt::test
