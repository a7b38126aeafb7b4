// ops/restore/restore_instance.h - one subtask's RocksDB instance: its files placed, then checked.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "ckpt/restore.h"
#include "types/serializer_snapshot.h"
#include "state/stream_opener.h"

namespace ckpt {

struct InstanceJob {
  const OperatorState* op = nullptr;
  const SubtaskState* subtask = nullptr;
  const KeyedHandle* handle = nullptr;  // native (incremental), heap or canonical key groups
  std::string directory;                // where to write it (inside the temporary output)
  KeyGroupRange keep;                   // key groups to keep; the handle's range when not clipping
  bool clip = false;                    // delete entries outside `keep`, then compact
  bool link = false;
  bool full_check = false;              // read every entry back, checksums verified
  const SerializerSnapshot* key_fallback = nullptr;  // changelog handles storing none, else null
  Progress* progress = nullptr;                      // bytes read or copied
};

// Where every file handle's URI was found, resolved up front (the resolver is not shared
// between threads).
using ResolvedPaths = std::unordered_map<std::string, std::string>;

// Heap and canonical key-groups handles and changelog handles: writes the instance at job.directory from the
// handle's entries in Flink's RocksDB layout, keeping only job.keep; `states` gets the proxy's
// state names. kNotSupported where a state's entries cannot be delimited.
Status build_instance(const InstanceJob& job, const StreamOpener& streams, RestoredInstance& out,
                      std::vector<std::string>* states);

// Writes the instance and checks it: all column families open with Flink's merge operator,
// every entry reads back, the column families are the meta data stream's states.
Result<RestoredInstance> restore_instance(const InstanceJob& job, const ResolvedPaths& paths,
                                          const std::string& metadata_file);

}  // namespace ckpt
