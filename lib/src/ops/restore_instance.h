// ops/restore_instance.h - one subtask's RocksDB instance: its files placed, then checked.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "ckpt/restore.h"

namespace ckpt {

struct InstanceJob {
  const OperatorState* op = nullptr;
  const SubtaskState* subtask = nullptr;
  const KeyedHandle* handle = nullptr;  // a native (incremental) handle
  std::string directory;                // where to write it (inside the temporary output)
  KeyGroupRange keep;                   // key groups to keep; the handle's range when not clipping
  bool clip = false;                    // delete entries outside `keep`, then compact
  bool link = false;
  bool full_check = false;              // read every entry back, checksums verified
};

// Where every file handle's URI was found, resolved up front (the resolver is not shared
// between threads).
using ResolvedPaths = std::unordered_map<std::string, std::string>;

// Writes the instance and checks it: all column families open with Flink's merge operator,
// every entry reads back, the column families are the meta data stream's states.
Result<RestoredInstance> restore_instance(const InstanceJob& job, const ResolvedPaths& paths,
                                          const std::string& metadata_file);

}  // namespace ckpt
