// ckpt/file_system.h - where files are: the local disk or an object store, behind one interface
// (as RocksDB's FileSystem and LLVM's vfs::FileSystem). The library's readers and writers name
// files by strings; a string that is an object-store URI (s3://bucket/key, s3a://, s3p://) is a
// file of the store, anything else a local path. file_system_for() picks the file system a path
// belongs to, so that snapshots in different buckets, or one in a bucket and one on disk, open
// side by side in one process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/object_store.h"

namespace ckpt {

struct CKPT_API FileInfo {
  std::string path;  // as the file system names it: a local path, or s3://bucket/key
  uint64_t size = 0;
  int64_t modified = 0;  // seconds since the epoch
  bool directory = false;
  // False for a FIFO, device or socket (nothing reads those); objects are always regular.
  bool regular = true;
};

// One file opened for reading. Sequential reads are served from read-ahead blocks (an object
// store's ranges grow while the reader goes on), random ones by ranged reads. Thread-safe.
class CKPT_API ReadableFile {
 public:
  virtual ~ReadableFile() = default;
  virtual uint64_t size() const = 0;
  // Bytes [offset, offset + length) into `out`; a file shorter than that is kCorruption.
  virtual Status read(uint64_t offset, uint64_t length, std::string* out) const = 0;
  // A local path holding the file's bytes while this object lives: the file itself on disk, a
  // download for an object (what RocksDB, which opens files by name, needs).
  virtual Result<std::string> local_path() const = 0;
  // Whether local_path() is a copy (never to be linked to: it may be evicted after this closes).
  virtual bool is_copy() const = 0;
};

class CKPT_API FileSystem {
 public:
  virtual ~FileSystem() = default;
  virtual Result<std::shared_ptr<ReadableFile>> open(const std::string& path) = 0;
  // kNotFound when nothing is there; a prefix of objects in a store is a directory.
  virtual Result<FileInfo> stat(const std::string& path) = 0;
  // What is directly inside the directory `path`: files and directories, paths in full. A store
  // answers a directory listed through it in the last 10 s from that listing (a command's lookups
  // cost one LIST), unless something was written or removed under it through this file system.
  virtual Result<std::vector<FileInfo>> list(const std::string& path) = 0;
  // `bytes` as the file `path`, published atomically: readers see the old file or the new one.
  virtual Status write(const std::string& path, std::string_view bytes) = 0;
  // The local file `local_path` as the file `path`, published as write() publishes (an object
  // store uploads it from the disk, never holding it whole in memory).
  virtual Status write_from_local(const std::string& path, const std::string& local_path);
  virtual Status remove(const std::string& path) = 0;
  // Files about to be read whole, in the order they will be (a hint: a store downloads ahead).
  virtual void will_read(const std::vector<std::string>& paths) { (void)paths; }
};

CKPT_API std::shared_ptr<FileSystem> local_file_system();

// How object-store file systems are opened when a path names a store.
struct CKPT_API StoreFileSystemOptions {
  ObjectStoreOptions store;
  int connections = 8;                       // requests at once
  uint64_t cache_bytes = uint64_t{4} << 30;  // downloaded files kept at most (local_path())
};
// A file system over the object store: every bucket the credentials reach.
CKPT_API Result<std::shared_ptr<FileSystem>> open_store_file_system(const StoreFileSystemOptions& options);

// The file system of `path`: the local disk, or for an object-store URI the store opened (once
// for the process) with the options last given to set_store_file_system_options().
CKPT_API Result<std::shared_ptr<FileSystem>> file_system_for(std::string_view path);
CKPT_API void set_store_file_system_options(const StoreFileSystemOptions& options);
// The store file_system_for() reads `uri` through, for what works on objects as such (gc's
// listings of whole prefixes and its batched deletes).
CKPT_API Result<std::shared_ptr<ObjectStore>> object_store_for(std::string_view uri);

// The whole file at `path`, on the file system of its scheme (a local path as read_whole_file()
// of ckpt/io.h reads it); kInvalidArgument beyond `max_size` bytes.
CKPT_API Result<std::string> read_through_file_system(const std::string& path, uint64_t max_size = uint64_t{1} << 32);

// What the object-store file systems opened by file_system_for() cost so far (CKPT_S3_STATS).
struct CKPT_API StoreFileSystemStats {
  uint64_t requests = 0;  // every request made to the store
  // Ranges read, whole objects downloaded (for local_path()), evicted from the cache; the most
  // bytes cached at once; of the downloads, those made ahead of the readers (will_read()).
  uint64_t ranged_reads = 0, ranged_bytes = 0;
  uint64_t downloads = 0, downloaded_bytes = 0;
  uint64_t evictions = 0, peak_cached_bytes = 0;
  uint64_t prefetched = 0;
};
CKPT_API StoreFileSystemStats store_file_system_stats();

}  // namespace ckpt
