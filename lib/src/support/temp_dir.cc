// TempDir: an output built beside its final path, published by one rename, and the cleanup of
// what killed runs left.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "ckpt/io.h"
#include "support/io_hooks.h"
#include "support/io_internal.h"
#include "support/rename_flags.h"

namespace ckpt {
namespace fs = std::filesystem;

// The marker: a file named TempDir::kLockName with this content in a "<final>.ckpt-tmp-*"
// directory says ckpt made it, and its flock says whether the ckpt that made it still runs.
constexpr const char* kLockName = TempDir::kLockName;
constexpr std::string_view kLockText = "ckpt temporary directory; removed by the next ckpt once unlocked\n";

Result<int> hold_temp_lock(const std::string& dir) {
  const std::string pending = dir + "/" + kLockName + ".new";
  int fd = ::open(pending.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return io_error(pending, "cannot create lock file", errno);
  int err = 0;
  if (::flock(fd, LOCK_EX) != 0) err = errno;
  for (size_t done = 0; err == 0 && done < kLockText.size();) {
    ssize_t n = ::write(fd, kLockText.data() + done, kLockText.size() - done);
    if (n < 0 && errno != EINTR) err = errno;
    if (n > 0) done += static_cast<size_t>(n);
  }
  if (err == 0 && ::rename(pending.c_str(), (dir + "/" + kLockName).c_str()) != 0) err = errno;
  if (err != 0) {
    ::close(fd);
    ::unlink(pending.c_str());
    return io_error(pending, "cannot lock", err);
  }
  return fd;
}

void remove_temp_if_abandoned(const std::string& dir) {
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0) return;
  int fd = ::openat(dfd, kLockName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  ::close(dfd);
  if (fd < 0) return;
  struct stat st;
  char text[kLockText.size() + 1];
  bool ours = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
              ::read(fd, text, sizeof text) == static_cast<ssize_t>(kLockText.size()) &&
              std::string_view(text, kLockText.size()) == kLockText;
  if (ours && ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    std::error_code ec;
    fs::remove_all(dir, ec);  // holding the lock: a second cleaner skips it meanwhile
  }
  ::close(fd);
}

namespace {

void remove_abandoned_siblings(const std::string& final_path) {
  const fs::path p(final_path);
  const std::string prefix = p.filename().string() + ".ckpt-tmp-";
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > prefix.size() && name.starts_with(prefix)) remove_temp_if_abandoned(it->path().string());
  }
}

// Renames the directory `from` onto `to`, which must not exist or be an empty directory at the
// moment of the rename: what appeared in it meanwhile stays, and this fails.
Status rename_without_replacing(const std::string& from, const std::string& to) {
  int err = rename_noreplace(from.c_str(), to.c_str());
  if (err == EEXIST) {
    // An empty directory the user made for the output; rmdir refuses it once anything is in it.
    if (::rmdir(to.c_str()) != 0)
      return io_error(to, "output is no longer absent or empty; nothing was removed", errno);
    err = rename_noreplace(from.c_str(), to.c_str());
  }
  if (err == EINVAL) {
    // No RENAME_NOREPLACE on this file system. rename(2) of a directory replaces only an empty
    // one, so what appears in `to` meanwhile still makes it fail.
    if (::rmdir(to.c_str()) != 0 && errno != ENOENT)
      return io_error(to, "output is no longer absent or empty; nothing was removed", errno);
    err = ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
  }
  if (err != 0) return io_error(to, "cannot rename the temporary directory into place", err);
  return Status::OK();
}

// The output's own name inside its holder, so that paths in errors read as the output's.
std::string inner_name(const std::string& final_path) {
  std::string name = fs::path(final_path).filename().string();
  return name.empty() || name == "." || name == ".." ? std::string("output") : name;
}

}  // namespace

// The output is built in a directory inside the holder "<final>.ckpt-tmp-XXXXXX", which keeps the
// marker locked until the output has left it by the rename: a run killed at any point, syncing
// included, leaves a marked holder (with a partial output, an old output being removed, or
// nothing but the marker) for the next run to remove, and the output never holds the marker.
Result<TempDir> TempDir::create_beside(const std::string& final_path) {
  std::string p = final_path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  remove_abandoned_siblings(p);
  std::string tmpl = p + ".ckpt-tmp-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return io_error(final_path, "cannot create temporary directory", errno);
  TempDir t(tmpl + "/" + inner_name(p), p);
  t.holder_ = tmpl;
  CKPT_ASSIGN_OR_RETURN(t.lock_fd_, hold_temp_lock(tmpl));
  // It becomes the output: the mode mkdir(2) would give it there.
  if (::mkdir(t.path_.c_str(), directory_mode()) != 0)
    return io_error(t.path_, "cannot create temporary directory", errno);
  return t;
}

TempDir::TempDir(TempDir&& other) noexcept
    : path_(std::move(other.path_)),
      final_(std::move(other.final_)),
      holder_(std::move(other.holder_)),
      lock_fd_(other.lock_fd_) {
  other.holder_.clear();
  other.lock_fd_ = -1;
}

TempDir::~TempDir() {
  if (!holder_.empty()) {
    std::error_code ec;
    fs::remove_all(holder_, ec);  // still locked: no other run removes it meanwhile
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Status TempDir::commit(bool replace) {
  CKPT_RETURN_IF_ERROR(sync_tree(path_));
  if (io_hooks().before_commit) io_hooks().before_commit(path_, final_);
  // With `replace` the old output is swapped out whole into the holder, and removed with it only
  // once the new one is in place; where the file system cannot swap, it is moved there first.
  std::string old;
  if (replace) {
    int err = rename_exchange(path_.c_str(), final_.c_str());
    if (err == 0) {
      old = path_;
    } else if (err == EINVAL) {
      std::string aside = holder_ + "/old";
      if (::rename(final_.c_str(), aside.c_str()) == 0) old = aside;
      else if (errno != ENOENT) return io_error(final_, "cannot move the old output aside", errno);
    } else if (err != ENOENT) {
      return io_error(final_, "cannot replace the output", err);
    }
  }
  if (old != path_) {
    Status moved = rename_without_replacing(path_, final_);
    if (!moved.ok()) {
      if (!old.empty() && ::rename(old.c_str(), final_.c_str()) != 0) {
        // The old output stays where it is, unmarked, so that no run removes it.
        ::unlink((holder_ + "/" + kLockName).c_str());
        Error e = std::move(moved).error();
        e.message += "; the old output is at " + old;
        holder_.clear();
        return e;
      }
      return moved;
    }
  }
  Status durable = sync_path(parent_directory(final_));
  // The holder (the marker, and the old output if any) goes while still locked.
  std::error_code ec;
  fs::remove_all(holder_, ec);
  holder_.clear();
  return durable;
}

}  // namespace ckpt
