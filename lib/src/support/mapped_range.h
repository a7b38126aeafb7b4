// support/mapped_range.h - a byte range of an open file mapped read-only, read in place.
//
// Large regions of state files (a key group of a heap stream: a MiB and more) are read where
// the page cache holds them rather than copied into a buffer: on tmpfs the copy was a tenth of
// `ckpt convert` heap -> rocksdb. The mapping is checked against the file's current size
// first; a file truncated by someone else while mapped would still fault (SIGBUS), as any
// reader that maps does: snapshot files are not rewritten in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ckpt {

class MappedRange {
 public:
  MappedRange() = default;
  MappedRange(const MappedRange&) = delete;
  MappedRange& operator=(const MappedRange&) = delete;
  ~MappedRange() { reset(); }

  // Maps bytes [offset, offset + len) of `fd` (replacing the previous mapping); false where the
  // file is shorter or mapping fails, and the caller reads the bytes instead.
  bool map(int fd, uint64_t offset, size_t len);
  // The mapped bytes (empty before a successful map()).
  std::string_view bytes() const { return {start_, len_}; }
  void reset();

 private:
  void* base_ = nullptr;  // page-aligned start of the mapping
  size_t mapped_ = 0;
  const char* start_ = nullptr;
  size_t len_ = 0;
};

}  // namespace ckpt
