// Scans and deletions of `ckpt gc` through directory fds (ops/gc/gc_tree.h).
#include "ops/gc/gc_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ckpt::gc_detail {

namespace {

// Deeper nesting than Flink ever writes; the bound keeps one fd per level within limits.
constexpr int kMaxTreeDepth = 128;

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

Error tree_io_error(const std::string& what, const std::string& path, int err) {
  return Error(ErrorCode::kIOError, what + " '" + path + "': " + std::strerror(err));
}

std::string child_path(const std::string& dir, const std::string& name) { return dir.empty() ? name : dir + "/" + name; }

// A symlink (or something swapped for one) where a directory was expected: openat with
// O_NOFOLLOW says ELOOP for a symlink, ENOTDIR for a symlink to a non-directory on some kernels.
bool refused_as_link(int err) { return err == ELOOP || err == ENOTDIR; }

// Names in a directory, read through a duplicate of `dir_fd` (fdopendir takes the fd over).
Result<std::vector<std::string>> entries(int dir_fd, const std::string& path) {
  int dup = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return tree_io_error("cannot list", path, errno);
  DIR* d = ::fdopendir(dup);
  if (d == nullptr) {
    int err = errno;
    ::close(dup);
    return tree_io_error("cannot list", path, err);
  }
  std::vector<std::string> names;
  errno = 0;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
    errno = 0;
  }
  int err = errno;
  ::closedir(d);
  if (err != 0) return tree_io_error("cannot list", path, err);
  return names;
}

bool same_file(const struct stat& st, const TreeFile& f) {
  return S_ISREG(st.st_mode) && st.st_dev == f.dev && st.st_ino == f.ino &&
         static_cast<uint64_t>(st.st_size) == f.size && st.st_mtim.tv_sec == f.mtime_sec &&
         st.st_mtim.tv_nsec == f.mtime_nsec;
}

}  // namespace

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

Result<RootTree> RootTree::open(const std::string& root) {
  Fd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return tree_io_error("cannot open directory", root, errno);
  return RootTree(root, std::move(fd));
}

Status RootTree::list(const std::string& top, std::vector<TreeFile>& files, std::vector<std::string>& symlinks) const {
  Fd dir(::openat(fd_.get(), top.c_str(), kDirFlags));
  if (!dir.valid()) {
    int err = errno;
    if (err == ENOENT) return Status::OK();
    struct stat st;
    if (refused_as_link(err) && ::fstatat(fd_.get(), top.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISLNK(st.st_mode)) symlinks.push_back(top);
      return Status::OK();  // a symlink, or a file where a directory belongs: nothing to list
    }
    return tree_io_error("cannot open directory", root_ + "/" + top, err);
  }
  return list_dir(dir.get(), top, 0, files, symlinks);
}

Status RootTree::list_dir(int dir_fd, const std::string& rel, int depth, std::vector<TreeFile>& files,
                          std::vector<std::string>& symlinks) const {
  std::string path = root_ + "/" + rel;
  if (depth > kMaxTreeDepth)
    return Error(ErrorCode::kNotSupported, "directories nested deeper than " + std::to_string(kMaxTreeDepth) + " levels")
        .with_file(path);
  Result<std::vector<std::string>> names = entries(dir_fd, path);
  if (!names.ok()) return std::move(names).error();
  for (const std::string& name : *names) {
    std::string child = child_path(rel, name);
    struct stat st;
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;  // deleted since readdir
      return tree_io_error("cannot stat", root_ + "/" + child, errno);
    }
    if (S_ISLNK(st.st_mode)) {
      symlinks.push_back(child);
    } else if (S_ISREG(st.st_mode)) {
      files.push_back(TreeFile{child, st.st_dev, st.st_ino, static_cast<uint64_t>(st.st_size),
                               static_cast<int64_t>(st.st_mtim.tv_sec), static_cast<int64_t>(st.st_mtim.tv_nsec)});
    } else if (S_ISDIR(st.st_mode)) {
      Fd sub(::openat(dir_fd, name.c_str(), kDirFlags));
      if (!sub.valid()) {
        int err = errno;
        if (err == ENOENT) continue;
        if (refused_as_link(err)) {  // swapped for a symlink since fstatat
          symlinks.push_back(child);
          continue;
        }
        return tree_io_error("cannot open directory", root_ + "/" + child, err);
      }
      CKPT_RETURN_IF_ERROR(list_dir(sub.get(), child, depth + 1, files, symlinks));
    }
    // Sockets, FIFOs and devices are no checkpoint files: neither listed nor touched.
  }
  return Status::OK();
}

Result<Fd> RootTree::open_dir(const std::string& dir_rel) const {
  Fd dir(::fcntl(fd_.get(), F_DUPFD_CLOEXEC, 0));
  if (!dir.valid()) return tree_io_error("cannot open directory", root_, errno);
  std::string walked;
  size_t start = 0;
  while (start < dir_rel.size()) {
    size_t slash = dir_rel.find('/', start);
    if (slash == std::string::npos) slash = dir_rel.size();
    std::string part = dir_rel.substr(start, slash - start);
    start = slash + 1;
    walked = child_path(walked, part);
    if (part.empty() || part == "." || part == "..")
      return Error(ErrorCode::kInvalidArgument, "'" + dir_rel + "' is not a path below the root");
    Fd next(::openat(dir.get(), part.c_str(), kDirFlags));
    if (!next.valid()) {
      if (refused_as_link(errno))
        return Error(ErrorCode::kIOError, "'" + walked + "' is no longer a directory (a symlink?): not deleted");
      return tree_io_error("cannot open directory", root_ + "/" + walked, errno);
    }
    dir = std::move(next);
  }
  return Result<Fd>(std::move(dir));
}

Status RootTree::remove(const TreeFile& f) const {
  size_t slash = f.rel.rfind('/');
  std::string dir_rel = slash == std::string::npos ? std::string() : f.rel.substr(0, slash);
  std::string name = slash == std::string::npos ? f.rel : f.rel.substr(slash + 1);
  if (dir_rel.empty() || name.empty() || name == "." || name == "..")
    return Error(ErrorCode::kInvalidArgument, "'" + f.rel + "' is not a file below the root");
  CKPT_ASSIGN_OR_RETURN(Fd dir, open_dir(dir_rel));
  struct stat st;
  if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return Error(ErrorCode::kIOError, errno == ENOENT ? std::string("no longer exists")
                                                      : std::string("cannot stat: ") + std::strerror(errno));
  if (!same_file(st, f)) return Error(ErrorCode::kIOError, "changed since the scan (not the file scanned): not deleted");
  if (::unlinkat(dir.get(), name.c_str(), 0) != 0)
    return Error(ErrorCode::kIOError, std::string("cannot delete: ") + std::strerror(errno));
  return Status::OK();
}

}  // namespace ckpt::gc_detail
