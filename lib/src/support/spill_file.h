// support/spill_file.h - an anonymous temporary file written and read back sequentially.
//
// For output that is ready before it may be printed: created with mkstemp in $TMPDIR (default
// /tmp) and unlinked at once, so nothing is left behind even if the process dies. Unbuffered
// (the default), appends are all or nothing: a failed append (ENOSPC, I/O error) leaves the
// file's logical end where it was, so the caller can keep the data in memory instead.
//
// Buffered (`buffer_bytes` > 0), small appends and reads are gathered into writes and reads of
// that size: a shuffle of millions of small records then costs a few thousand system calls
// instead of several per record. A failed write of the buffer loses the records in it, so the
// file then refuses every further call; only for callers to whom a spill failure is fatal.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ckpt/error.h"

namespace ckpt {

class SpillFile {
 public:
  // A new empty file in $TMPDIR (or /tmp), already unlinked.
  static Result<std::unique_ptr<SpillFile>> create(size_t buffer_bytes = 0);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends `a` then `b` as one record; on failure nothing counts as written.
  Status append(std::string_view a, std::string_view b);
  // The next `n` bytes after what was read so far (never past the appended end).
  Status read(size_t n, char* out);

  uint64_t written() const { return end_; }


 private:
  SpillFile(int fd, std::string dir, size_t buffer_bytes)
      : fd_(fd), dir_(std::move(dir)), buffer_bytes_(buffer_bytes) {}
  Status write_at(uint64_t at, std::string_view bytes);
  Status flush();  // the write buffer to the file
  Status read_file(uint64_t at, size_t n, char* out);

  int fd_;
  std::string dir_;  // for messages: the file itself has no name once unlinked
  size_t buffer_bytes_;
  uint64_t end_ = 0;        // logical end: what was appended, buffered or not
  uint64_t flushed_ = 0;    // the file's end
  uint64_t read_ = 0;       // logical position of the next read
  std::string pending_;     // appended, not yet written (buffered only)
  std::string ahead_;       // read ahead from the file, starting at ahead_at_ (buffered only)
  uint64_t ahead_at_ = 0;
  bool broken_ = false;     // a buffered write failed: records were lost
};

}  // namespace ckpt
