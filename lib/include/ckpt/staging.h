// ckpt/staging.h - snapshots in an object store as the local paths the operations take.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/file_system.h"
#include "ckpt/object_store.h"

namespace ckpt {

// Snapshots in a store, as local paths the operations take (the ckpt tool's s3:// arguments).
// input() lists the prefix once and fetches each `_metadata`; every other object stands as a
// placeholder of its listed size, so that checks of existence, sizes and ages need no bytes.
// While the staging lives, the library's readers fetch what they read (support/remote_files.h):
// state files by ranged GETs (inspect reads a file's meta data from its first block), files
// handed to RocksDB or copied whole into a cache of at most `cache_bytes`, the least recently
// used evicted beyond it. Files a `_metadata` names by a URI outside the staged prefixes (a
// chain's shared/, a relocated savepoint's files) are staged under mirror paths that
// remap_specs() points the operation at. Outputs are written locally and uploaded by
// upload_outputs(). The destructor removes everything staged. One staging at a time.
class CKPT_API ObjectStoreStaging {
 public:
  struct Options {
    int connections = 8;                      // requests at once
    uint64_t cache_bytes = uint64_t{4} << 30; // downloaded files kept at most (see above)
    // Whether readers fetch whole objects rather than ranges: for commands that read every
    // byte (dump, restore, convert), where whole objects take fewer requests. The files a
    // snapshot references are then downloaded ahead, `connections` at once, in the order of
    // its `_metadata`, while those not yet read take at most half the cache.
    bool whole_files = false;
  };
  using Stats = StoreFileSystemStats;
  static Result<std::unique_ptr<ObjectStoreStaging>> create(std::shared_ptr<ObjectStore> store, const Options& options);
  ~ObjectStoreStaging();
  ObjectStoreStaging(const ObjectStoreStaging&) = delete;
  ObjectStoreStaging& operator=(const ObjectStoreStaging&) = delete;

  // The snapshot, `_metadata` or directory at `uri` as a local path.
  Result<std::string> input(const std::string& uri);
  // `--remap` specs (PREFIX=DIR) mapping the URIs of staged references to their mirrors.
  std::vector<std::string> remap_specs() const;
  // A local path to write the output `uri` to. Refused when the output is, holds or lies in an
  // input, or when objects exist at it.
  Result<std::string> output(const std::string& uri);
  // The parts of the output `uri` that runs with --shard K/N uploaded ("<uri>.part-K-of-N/..."),
  // downloaded beside output(uri)'s path for the run with --finish; upload_outputs() deletes
  // them from the store once the finished output is up.
  Status stage_output_parts(const std::string& uri);
  // Every output uploaded, each `_metadata` last; on failure what was uploaded is deleted. A
  // part a --shard run wrote beside an output ("<path>.part-K-of-N") goes to "<uri>.part-K-of-N",
  // refused when objects are there already.
  Status upload_outputs();
  // Staging paths in `text` named as the URIs they stand for.
  void rename_paths(std::string* text) const;
  Stats stats() const;

  struct Impl;

 private:
  explicit ObjectStoreStaging(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt
