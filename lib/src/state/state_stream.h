// state/state_stream.h - random access to the bytes behind one stream handle.
//
// A stream handle's bytes live inline in `_metadata` (type 1), in a file named relative to the
// snapshot directory (6), in a file named by an absolute URI from the machine that wrote it
// (2), or in a byte range of a shared file (15, file merging). A key-groups handle in stream
// context (3) stands for its delegate. Readers see one interface and absolute offsets, so
// every error names the file and the byte where the problem is. Streams are opened by
// StreamOpener (state/stream_opener.h), which stamps their errors with file().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "ckpt/progress.h"

namespace ckpt {

// Where the file of a type 2, 6 or 15 handle is on this machine (ckpt/resolve.h's
// FileResolver in practice), nullopt when nothing is there, or why what is there may not be
// read (a symbolic link out of the snapshot).
using PathResolver = std::function<Result<std::optional<std::string>>(uint8_t handle_type, const std::string& uri)>;

class StateStream {
 public:
  uint64_t size() const { return size_; }
  // Stream bytes [offset, offset + len) into `out` (replacing its content).
  Status read(uint64_t offset, uint64_t len, std::string* out) const;
  Status read_all(std::string* out) const { return read(0, size_, out); }
  // Stream bytes [offset, offset + len): inline bytes in place (the view lives as long as the
  // handle's Metadata), file bytes read into `buffer`.
  Result<std::string_view> view(uint64_t offset, uint64_t len, std::string* buffer) const;
  // Absolute position of stream byte 0 in file(): the segment start, else 0.
  uint64_t base() const { return base_; }
  // What errors name: the file opened, or the `_metadata` file for inline bytes.
  const std::string& file() const { return file_; }
  // A plain file readable in place from base() to base() + size(); empty for inline bytes.
  // An object in a store (ckpt/file_system.h) is no local path at all: code that opens files by
  // name (RocksDB, links) asks local_file() for a download.
  const std::string& path() const { return path_; }
  // A local path with the bytes of path(), kept while this stream (or a copy) lives.
  Result<std::string> local_file() const;
  // Whether local_file() is a download of an object: it may be evicted once the stream is
  // gone, never to be linked to by name.
  bool is_remote() const;
  bool is_inline() const { return inline_ != nullptr; }
  // A short description of the handle for error context, e.g. "file 'ab12-…'".
  const std::string& description() const { return description_; }
  // An error about a place `_metadata` points to beyond the stream: reported at the stream's
  // end, where the bytes it expects are missing.
  Error past_end(std::string message) const;

  // An error raised from this stream's bytes with the stream's file named, unless it names one
  // already; inline bytes add their handle's name, as their offsets count from its first byte.
  // The error that stops a dump is passed through as it is.
  Error stamp(Error e) const;
  // What stamp() adds to the context: how offsets count in an inline stream, else empty.
  std::string offsets_context() const;
  Status stamp(Status s) const { return s.ok() ? s : Status(stamp(std::move(s).error())); }
  // Where bytes read through read() are counted (the opener's), or null. Readers that hand
  // path() to RocksDB count what it read themselves (SstFile).
  Progress* progress() const { return progress_; }
  // The same bytes, read without counting them (a check ahead of a read that counts them).
  StateStream uncounted() const {
    StateStream s = *this;
    s.progress_ = nullptr;
    return s;
  }
  template <class T>
  Result<T> stamp(Result<T> r) const {
    if (r.ok()) return r;
    return stamp(std::move(r).error());
  }

 private:
  friend class StreamOpener;
  // `metadata_file` is named in errors about inline bytes and missing files.
  static Result<StateStream> open(const StreamHandle& handle, const PathResolver& resolve,
                                  const std::string& metadata_file);
  Status check_range(uint64_t offset, uint64_t len) const;

  struct Fd;
  std::shared_ptr<Fd> fd_;
  const std::string* inline_ = nullptr;  // points into the caller's Metadata
  std::string path_;
  std::string file_;
  std::string description_;
  uint64_t base_ = 0;
  uint64_t size_ = 0;
  Progress* progress_ = nullptr;
};

}  // namespace ckpt
