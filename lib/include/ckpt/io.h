// ckpt/io.h - reading inputs and writing outputs safely.
//
// Inputs are read-only. Outputs appear atomically: written under a temporary name in the
// target directory, flushed, then renamed into place, so a crash leaves either the old state or
// the new one, never half a file. A rename never replaces what the caller was not told to
// replace, and an output is durable once the call that published it returns.
#pragma once

#include <string>
#include <string_view>

#include "ckpt/error.h"
#include "ckpt/export.h"
namespace ckpt {

// The whole file; kIOError / kNotFound naming `path` on failure. Refuses files larger than
// `max_size` (a metadata file is small; callers with larger files stream instead).
CKPT_API Result<std::string> read_whole_file(const std::string& path, uint64_t max_size = uint64_t{1} << 32);

// An input file opened read-only, for the caller to read and ::close(). Its type is checked
// before anything can block: opened with O_NONBLOCK (a FIFO without a writer would block
// open() and read() forever), fstat'ed, O_NONBLOCK cleared. A FIFO, socket, device or
// directory is refused (kInvalidArgument "not a regular file: a FIFO"), a dangling symbolic
// link is named as such (kNotFound); every error names `path`.
struct CKPT_API InputFile {
  int fd = -1;
  uint64_t size = 0;
};
CKPT_API Result<InputFile> open_regular_input(const std::string& path);
// The same check by path (stat, links followed), for inputs handed to code that opens them
// itself: RocksDB, file copies.
CKPT_API Status check_regular_input(const std::string& path);

// Write `bytes` to `path` atomically (temporary "<path>.ckpt-tmp-XXXXXX", fsync, rename).
CKPT_API Status write_file_atomic(const std::string& path, std::string_view bytes);

// A command's output file: written as write_file_atomic does, but an existing `path` is
// replaced only with `replace` (else kInvalidArgument "output exists", even for a file that
// appeared while the bytes were written), and its directory is synced after the rename.
CKPT_API Status publish_file(const std::string& path, std::string_view bytes, bool replace);

// The regular file `from` copied to `to` (created, or truncated). A failure keeps its errno:
// a full disk is "No space left on device", naming `to`.
CKPT_API Status copy_file_contents(const std::string& from, const std::string& to);

// A fresh temporary directory for an output at `final_path`: "<final_path>.ckpt-tmp-XXXXXX/NAME"
// (NAME: the output's own name). Its holder "<final_path>.ckpt-tmp-XXXXXX" is marked as ckpt's by
// a lock file (".ckpt-tmp-lock") that this process holds locked (flock) while the object lives,
// syncing and the rename included. Creating one first removes the marked holders beside the same
// final path whose lock can be taken: those of a ckpt that was killed, at whatever point. Nothing
// else is ever removed. The destructor removes the holder if never committed.
class CKPT_API TempDir {
 public:
  // The lock file's name: in the holder, never in the output.
  static constexpr const char* kLockName = ".ckpt-tmp-lock";
  static Result<TempDir> create_beside(const std::string& final_path);
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir();
  const std::string& path() const { return path_; }
  // Publishes the directory as final_path: everything in it synced, one rename, then the parent
  // synced and the holder removed. Without `replace`, final_path must be absent or an empty
  // directory at the rename itself (RENAME_NOREPLACE): whatever appeared in it meanwhile stays, and commit fails
  // ("Directory not empty"). With `replace`, an existing final_path is swapped for the new one
  // and only then removed.
  Status commit(bool replace = false);

 private:
  TempDir(std::string path, std::string final_path) : path_(std::move(path)), final_(std::move(final_path)) {}
  std::string path_;
  std::string final_;
  std::string holder_;  // the marked directory around path_; empty once removed
  int lock_fd_ = -1;
};

}  // namespace ckpt
