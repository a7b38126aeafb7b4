// support/remote_files.h - files of a staging tree that stand for objects in a store.
//
// A snapshot in an object store is read through a local tree (s3/staging.cc): its `_metadata`
// is fetched, every other object stands as a placeholder, a sparse file of the listed size, so
// that what only stats files (verify without --deep, gc's ages) needs no bytes. The bytes come
// when something reads:
// - a StateStream (state/state_stream.h) reads ranges by ranged GETs, in blocks that grow while
//   it reads on sequentially: inspect learns a 1 GiB file's meta data from its first block;
// - whatever opens the file by path (open_regular_input, copy_file_contents) or hands the path
//   to RocksDB (StateStream::local_file) gets the whole object, downloaded over the placeholder
//   and pinned while it is used.
// Downloaded files form a cache of at most `cache_bytes`: beyond it the least recently used
// unpinned files become placeholders again (a rename; a reader that has the file open keeps
// its bytes until it closes it). Pinned files are never evicted, so the cache can exceed its
// bound by the files being read at the moment, never by the snapshot's size.
//
// Installed for the process while a command runs on a staging tree (one at a time); with none
// installed every lookup is one atomic load.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/error.h"

namespace ckpt {

// The store's side: implemented over ckpt::ObjectStore by s3/staging.cc.
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

  // `path` (a placeholder of `size` bytes) stands for `uri`. Before install().
  void add(const std::string& path, const std::string& uri, uint64_t size);

  // The registry readers consult, or null. install(nullptr) uninstalls.
  static void install(std::shared_ptr<RemoteFiles> files);
  static std::shared_ptr<RemoteFiles> installed();

  // Whether `path` stands for an object, and whether its bytes are here now.
  bool holds(const std::string& path) const;
  // The path that stands for the object `uri` (as add() was given it), if any: where a reader
  // finds a file a `_metadata` names by its URI in the store.
  std::optional<std::string> path_of(const std::string& uri) const;

  // Keeps a downloaded file from eviction while it lives. The registry must outlive its pins:
  // the staging uninstalls and destroys it only after the command's readers are gone.
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
  // Downloads `paths` (files of this registry, in the order the command will read them) ahead
  // of the readers on `threads` threads (started by the first call; later calls queue more),
  // while the files downloaded ahead and not yet read take at most half the cache. A file a
  // reader asks for while it is being downloaded ahead is waited for; one whose download ahead
  // failed is tried again by the reader, who reports the error. The destructor stops them.
  void prefetch(const std::vector<std::string>& paths, int threads);

  // Whether readers should fetch whole files rather than read ranges: set when the command
  // reads every byte anyway (a dump, a restore), where whole objects take fewer requests.
  void set_prefer_whole(bool whole) { prefer_whole_ = whole; }
  bool prefer_whole() const { return prefer_whole_; }

  RemoteFileStats stats() const;

  struct Entry;
  struct State;

 private:
  void unpin(Entry* e);
  Result<Pin> fetch_for(const std::string& path, bool reader);
  void prefetch_loop();
  std::shared_ptr<RemoteSource> source_;
  uint64_t cache_bytes_;
  bool prefer_whole_ = false;
  std::unique_ptr<State> state_;
};

// The installed registry's pin on `path` if it stands for an object (its bytes fetched), else
// an empty pin: what every reader that opens a path calls first.
Result<RemoteFiles::Pin> fetch_if_remote(const std::string& path);

}  // namespace ckpt
