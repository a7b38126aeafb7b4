// File input and atomic output.
#include "ckpt/io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

namespace ckpt {
namespace fs = std::filesystem;

static Error io_error(const std::string& path, const std::string& what, int err) {
  Error e(err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIOError,
          fmt::format("{}: {}", what, std::strerror(err)));
  e.file = path;
  return e;
}

// "a FIFO", ...: what stands where a regular file was expected.
static const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "of an unknown type";
}

static Error not_regular(const std::string& path, mode_t mode) {
  Error e(ErrorCode::kInvalidArgument, fmt::format("not a regular file: {}", file_type_name(mode)));
  e.file = path;
  return e;
}

// An open() or stat() that failed with `err`: a link pointing nowhere says so, as "No such
// file or directory" for a name that is listed would mislead.
static Error input_error(const std::string& path, const std::string& what, int err) {
  struct stat ls;
  if (err == ENOENT && ::lstat(path.c_str(), &ls) == 0 && S_ISLNK(ls.st_mode)) {
    Error e(ErrorCode::kNotFound, "dangling symbolic link");
    e.file = path;
    return e;
  }
  return io_error(path, what, err);
}

Result<InputFile> open_regular_input(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return input_error(path, "cannot open", errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return io_error(path, "cannot stat", err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return not_regular(path, st.st_mode);
  }
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    int err = errno;
    ::close(fd);
    return io_error(path, "cannot clear O_NONBLOCK", err);
  }
  return InputFile{fd, static_cast<uint64_t>(st.st_size)};
}

Status check_regular_input(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return input_error(path, "cannot stat", errno);
  if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode);
  return Status::OK();
}

Result<std::string> read_whole_file(const std::string& path, uint64_t max_size) {
  CKPT_ASSIGN_OR_RETURN(InputFile in, open_regular_input(path));
  int fd = in.fd;
  if (in.size > max_size) {
    ::close(fd);
    Error e(ErrorCode::kInvalidArgument,
            fmt::format("file of {} bytes is larger than the limit of {} bytes", in.size, max_size));
    e.file = path;
    return e;
  }
  std::string out;
  out.resize(static_cast<size_t>(in.size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return io_error(path, "cannot read", err);
    }
    if (n == 0) break;  // shrank while reading
    done += static_cast<size_t>(n);
  }
  out.resize(done);
  ::close(fd);
  return out;
}

Status write_file_atomic(const std::string& path, std::string_view bytes) {
  std::string tmpl = path + ".ckpt-tmp-XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return io_error(path, "cannot create temporary file", errno);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      return io_error(tmpl, "cannot write", err);
    }
    done += static_cast<size_t>(n);
  }
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    return io_error(tmpl, "cannot flush", err);
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    return io_error(path, "cannot rename temporary file into place", err);
  }
  return Status::OK();
}

Status sync_path(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(path, "cannot open to sync", errno);
  if (::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    return io_error(path, "cannot sync", err);
  }
  ::close(fd);
  return Status::OK();
}

Status sync_tree(const std::string& dir) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_symlink(ec)) continue;
    if (it->is_directory(ec)) {
      dirs.push_back(it->path().string());
    } else if (it->is_regular_file(ec)) {
      CKPT_RETURN_IF_ERROR(sync_path(it->path().string()));
    }
  }
  if (ec) return io_error(dir, "cannot list", ec.value());
  // A directory's entries are durable once it is synced after them: deepest first.
  for (auto d = dirs.rbegin(); d != dirs.rend(); ++d) CKPT_RETURN_IF_ERROR(sync_path(*d));
  return sync_path(dir);
}

Result<TempDir> TempDir::create_beside(const std::string& final_path) {
  std::string p = final_path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  std::string tmpl = p + ".ckpt-tmp-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) return io_error(final_path, "cannot create temporary directory", errno);
  return TempDir(tmpl, p);
}

TempDir::TempDir(TempDir&& other) noexcept
    : path_(std::move(other.path_)), final_(std::move(other.final_)), done_(other.done_) {
  other.done_ = true;
}

TempDir::~TempDir() {
  if (done_) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

Status TempDir::commit() {
  std::error_code ec;
  if (fs::is_directory(final_, ec) && fs::is_empty(final_, ec)) fs::remove(final_, ec);
  if (::rename(path_.c_str(), final_.c_str()) != 0) return io_error(final_, "cannot rename temporary directory into place", errno);
  done_ = true;
  return Status::OK();
}

}  // namespace ckpt
