// s3/store_files.h - what the object-store file system (ckpt/file_system.h) and the outputs
// published through it (s3/output_directory.h) share: the store as the source of a cache of
// downloaded files, the scratch directories that cache and outputs live in, a file standing for
// an object in that cache, and how many transfers run at once.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <string>

#include "ckpt/error.h"
#include "ckpt/file_system.h"
#include "ckpt/object_store.h"
#include "support/remote_files.h"

namespace ckpt {

class StoreSource : public RemoteSource {
 public:
  StoreSource(std::shared_ptr<ObjectStore> store, int connections) : store_(std::move(store)), jobs_(connections) {}
  Status read_range(const std::string& uri, uint64_t offset, uint64_t length, uint64_t size,
                    std::string* out) override {
    return store_->read_range(uri, offset, length, size, out);
  }
  Status download(const std::string& uri, const std::string& local_path, uint64_t size, bool ahead) override {
    // Downloads ahead run `jobs_` at once: two connections each keep the total near it.
    return store_->download(uri, local_path, size, ahead ? std::min(jobs_, 2) : jobs_);
  }

 private:
  std::shared_ptr<ObjectStore> store_;
  int jobs_;
};

// A "ckpt-s3-*" directory in the temp directory, canonical, marked as in use while `lock_fd`
// is held (support/io_internal.h); those of killed runs are removed first.
struct StoreScratch {
  std::string root;
  int lock_fd = -1;
  unsigned generation = 0;  // fork_generation() of the process that made it: a child never removes it
};
Result<StoreScratch> create_store_scratch();
// Removes the directory and lets go of its marker.
void remove_store_scratch(StoreScratch& scratch);

// Starts reading the object `path` whole through the process's store file system, for the
// read_through_file_system() of it that follows: a snapshot's `_metadata` fetched while its
// directory is listed, the two requests side by side where they went in line. A hint: nothing
// for a local path, an object already listed, or a store that cannot be opened.
void read_ahead_through_file_system(const std::string& path);

// Transfers at once (uploads of an output, downloads of parts): the process's store options'
// `connections` (--connections).
int store_connections();

// What a store's `requests` and a cache's `files` cost, as CKPT_S3_STATS reports it.
StoreFileSystemStats store_stats(uint64_t requests, const RemoteFileStats& files);

// The object that `cache_path` stands for in `files` (RemoteFiles::add() done), of `size` bytes:
// ranges read in blocks that grow while the reads go on sequentially, local_path() a download
// pinned while the file lives. Errors name `name`. With `whole`, a first read that covers the
// object takes it by `whole()`, one GET checked in full (length, ETag, checksums), not a range.
std::shared_ptr<ReadableFile> object_file(std::shared_ptr<RemoteFiles> files, std::string cache_path, std::string name,
                                          uint64_t size, std::function<Result<std::string>()> whole = {});

}  // namespace ckpt
