// ops/gc/gc_tree.h - listing and deleting files under a job directory without ever leaving it.
//
// gc deletes files; a path string re-resolved at deletion time could lead anywhere a symlink
// (planted before the scan, or swapped in after it) points. Everything here goes through
// directory fds opened from one fd on ROOT with O_NOFOLLOW, so no symlink is ever followed
// below ROOT, and a file is unlinked only if it is still the very file that was scanned.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/error.h"

namespace ckpt::gc_detail {

// A regular file found by a scan, with what identifies it.
struct TreeFile {
  std::string rel;  // relative to ROOT, components separated by '/'
  dev_t dev = 0;
  ino_t ino = 0;
  uint64_t size = 0;
  int64_t mtime_sec = 0;
  int64_t mtime_nsec = 0;
};

// An open file descriptor, closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

class RootTree {
 public:
  // ROOT itself may be a symlink: the user named it. Nothing below it is followed.
  static Result<RootTree> open(const std::string& root);

  // Regular files under ROOT/`top`; symlinks met on the way (`top` itself included) are
  // appended to `symlinks`, relative to ROOT, and never descended. A missing `top` is empty.
  Status list(const std::string& top, std::vector<TreeFile>& files, std::vector<std::string>& symlinks) const;

  // Unlinks `f` if the entry at f.rel, reached without following a symlink, is still the
  // same regular file (device, inode, size, modification time). The error says why not.
  Status remove(const TreeFile& f) const;

 private:
  RootTree(std::string root, Fd fd) : root_(std::move(root)), fd_(std::move(fd)) {}
  Status list_dir(int dir_fd, const std::string& rel, int depth, std::vector<TreeFile>& files,
                  std::vector<std::string>& symlinks) const;
  // Walked from ROOT for every deletion, never cached: a directory moved or swapped since
  // the previous deletion must not be reused.
  Result<Fd> open_dir(const std::string& dir_rel) const;

  std::string root_;
  Fd fd_;
};

}  // namespace ckpt::gc_detail
