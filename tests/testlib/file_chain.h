// tests/testlib/file_chain.h - a job's checkpoint directory with a chain of incremental
// checkpoints whose files are placeholders: enough for the file-level operations (diff, gc)
// to be tested on chains of any shape before real RocksDB chains are at hand.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ckpt/metadata.h"

namespace ckpt::test {

struct FileChainSpec {
  uint32_t seed = 1;
  int checkpoints = 4;
  int subtasks = 2;
  int initial_ssts = 4;   // per subtask in chk-1
  double churn = 0.3;     // chance an SST of the previous checkpoint is dropped
  int new_ssts = 2;       // per subtask and checkpoint after the first
  // Shared files are referenced as "<uri_base>/shared/<name>"; empty: "file:" + root. Another
  // base (s3://bucket/flink/<job>) stands for a chain written on another machine.
  std::string uri_base;
};

struct FileChain {
  std::string root;
  // Per checkpoint (index 0 = chk-1): the files it references, as paths relative to root.
  std::vector<std::set<std::string>> referenced;
  // Per checkpoint: the shared files it references (a subset of `referenced`).
  std::vector<std::set<std::string>> shared;
  std::vector<Metadata> metadata;
};

// Writes root/chk-1..chk-N/_metadata (V3, one operator, type-11 handles whose shared SSTs are
// type-2 URIs under shared/, meta and private files in the checkpoint's own directory) and
// every file they name, 1-4 KiB of filler each.
FileChain write_file_chain(const std::string& root, const FileChainSpec& spec);

}  // namespace ckpt::test
