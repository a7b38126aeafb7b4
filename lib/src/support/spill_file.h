// support/spill_file.h - an anonymous temporary file written and read back sequentially.
//
// For output that is ready before it may be printed: created with mkstemp in $TMPDIR (default
// /tmp) and unlinked at once, so nothing is left behind even if the process dies. Appends are
// all or nothing: a failed append (ENOSPC, I/O error) leaves the file's logical end where it
// was, so the caller can keep the data in memory instead.
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
  static Result<std::unique_ptr<SpillFile>> create();
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends `a` then `b` as one record; on failure nothing counts as written.
  Status append(std::string_view a, std::string_view b);
  // The next `n` bytes after what was read so far (never past the appended end).
  Status read(size_t n, char* out);

  uint64_t written() const { return end_; }

 private:
  SpillFile(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {}
  Status write_at(uint64_t at, std::string_view bytes);

  int fd_;
  std::string dir_;  // for messages: the file itself has no name once unlinked
  uint64_t end_ = 0;
  uint64_t read_ = 0;
};

}  // namespace ckpt
