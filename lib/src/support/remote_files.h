// support/remote_files.h - local files that stand for objects in a store: the cache of the
// object-store file system (s3/store_file_system.cc, ckpt/file_system.h).
//
// Each object the file system opens stands as a placeholder, a sparse file of its listed size, in
// the file system's scratch directory. The bytes come when something reads:
// - ReadableFile::read() reads ranges by ranged GETs, in blocks that grow while it reads on
//   sequentially: inspect learns a 1 GiB file's meta data from its first block;
// - ReadableFile::local_path() (what RocksDB, which opens files by name, needs) gets the whole
//   object, downloaded over the placeholder and pinned while the file is open.
// Downloaded files form a cache of at most `cache_bytes`: beyond it the least recently used
// unpinned files become placeholders again (a rename; a reader that has the file open keeps
// its bytes until it closes it). Pinned files are never evicted, so the cache can exceed its
// bound by the files being read at the moment, never by the snapshot's size.
//
// Nothing here is global: each file system owns its cache, so stores and buckets open side by side.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/error.h"

namespace ckpt {

// The store's side: implemented over ckpt::ObjectStore by s3/store_files.h.
class RemoteSource {
 public:
  virtual ~RemoteSource() = default;
  // Bytes [offset, offset + length) of the object, listed with `size` bytes, into `out` (its
  // buffer reused): fewer only at the object's end; an object of another size is kCorruption.
  virtual Status read_range(const std::string& uri, uint64_t offset, uint64_t length, uint64_t size,
                            std::string* out) = 0;
  // The whole object (of `size` bytes, as listed) into `local_path`; `ahead` for a download
  // ahead of the readers, one of several at once (fewer connections each).
  virtual Status download(const std::string& uri, const std::string& local_path, uint64_t size, bool ahead) = 0;
};

struct RemoteFileStats {
  uint64_t ranged_reads = 0;  // GETs of ranges for StateStream reads
  uint64_t ranged_bytes = 0;
  uint64_t downloads = 0;  // whole objects fetched (again, after an eviction)
  uint64_t downloaded_bytes = 0;
  uint64_t evictions = 0;
  uint64_t peak_cached_bytes = 0;  // the most bytes downloaded and not yet evicted at once
  uint64_t prefetched = 0;         // of the downloads, those made ahead of the readers
};

class RemoteFiles {
 public:
  RemoteFiles(std::shared_ptr<RemoteSource> source, uint64_t cache_bytes);
  ~RemoteFiles();
  RemoteFiles(const RemoteFiles&) = delete;
  RemoteFiles& operator=(const RemoteFiles&) = delete;

  // `path` (a placeholder of `size` bytes) stands for `uri`.
  void add(const std::string& path, const std::string& uri, uint64_t size);

  // Whether `path` stands for an object.
  bool holds(const std::string& path) const;

  // Keeps a downloaded file from eviction while it lives. The registry must outlive its pins
  // (each open file holds the registry it was opened from).
  class Pin {
   public:
    Pin() = default;
    Pin(Pin&& o) noexcept : owner_(o.owner_), entry_(o.entry_) { o.owner_ = nullptr; }
    Pin& operator=(Pin&& o) noexcept;
    ~Pin();

   private:
    friend class RemoteFiles;
    Pin(RemoteFiles* owner, void* entry) : owner_(owner), entry_(entry) {}
    RemoteFiles* owner_ = nullptr;
    void* entry_ = nullptr;
  };
  // The object's bytes at `path`: downloaded (or waited for, when another thread is
  // downloading it) unless they are there. The error names the URI.
  Result<Pin> fetch(const std::string& path);
  // Bytes [offset, offset + length) of the object `path` stands for into `out` (its buffer
  // reused): from the downloaded file if it is here, else by a ranged GET.
  Status read_range(const std::string& path, uint64_t offset, uint64_t length, std::string* out);
  // read_range() started on one of the registry's threads (up to kRangeThreads, each keeping its
  // connection for the next), for a reader going on sequentially that wants the next bytes on
  // their way while it works on these: a store's round trip each time otherwise. An invalid
  // future where none could be started. A failure is the reader's to meet again when it reads.
  static constexpr int kRangeThreads = 4;
  std::future<Result<std::string>> read_range_ahead(const std::string& path, uint64_t offset, uint64_t length);
  // Downloads `paths` (files of this registry, in the order the command will read them) ahead
  // of the readers on `threads` threads (started by the first call; later calls queue more),
  // while the files downloaded ahead and not yet read take at most half the cache. A file a
  // reader asks for while it is being downloaded ahead is waited for; one whose download ahead
  // failed is tried again by the reader, who reports the error. The destructor stops them.
  void prefetch(const std::vector<std::string>& paths, int threads);

  RemoteFileStats stats() const;

  struct Entry;
  struct State;

 private:
  void unpin(Entry* e);
  Result<Pin> fetch_for(const std::string& path, bool reader);
  void prefetch_loop();
  void range_loop();
  std::shared_ptr<RemoteSource> source_;
  uint64_t cache_bytes_;
  std::unique_ptr<State> state_;
};

}  // namespace ckpt
