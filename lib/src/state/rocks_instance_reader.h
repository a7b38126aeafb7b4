// state/rocks_instance_reader.h - a native handle's files opened as a read-only RocksDB instance.
//
// When several SSTs of one column family overlap (Flink's L0 files, a partly compacted
// instance), only the instance's MANIFEST says which entry is newest; per-file iterators
// would show deleted and overwritten values. This reads the handle the way Flink's restore
// does: its files placed in a temporary directory (SSTs hard-linked when possible, inline and
// segment files written out) and the instance opened with Flink's merge operator.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/state_stream.h"

namespace ckpt {

class RocksInstanceReader {
 public:
  // Places the handle's files and opens every column family read-only. Errors:
  // "rocksdb file name '...' is not a plain file name", "rocksdb cannot open the instance: ...".
  static Result<std::unique_ptr<RocksInstanceReader>> open(const KeyedHandle& handle, const PathResolver& resolve,
                                                           const std::string& metadata_file);
  ~RocksInstanceReader();  // closes the instance and removes the temporary directory

  // Calls `fn(key, value)` for every live key of column family `cf` in key order (nothing if
  // the instance has no such column family); `fn`'s error stops the scan.
  Status for_each(const std::string& cf,
                  const std::function<Status(std::string_view key, std::string_view value)>& fn) const;

 private:
  RocksInstanceReader() = default;
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace ckpt
