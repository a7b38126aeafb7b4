// File input, atomic output and copies.
#include "ckpt/io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "support/io_hooks.h"
#include "support/io_internal.h"
#include "support/rename_flags.h"

namespace ckpt {
namespace fs = std::filesystem;

IoHooks& io_hooks() {
  static IoHooks hooks;
  return hooks;
}

Error io_error(const std::string& path, const std::string& what, int err) {
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

// 0 or the errno of the first failed write.
static int write_all(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<size_t>(n);
  }
  return 0;
}

mode_t process_umask() {
  // Read from /proc (Linux 4.7+) where umask(2) could only be read by changing it, which other
  // threads would see; read once, as nothing in ckpt changes it.
  static const mode_t mask = [] {
    if (FILE* f = std::fopen("/proc/self/status", "re")) {
      char line[256];
      unsigned value = 0;
      bool found = false;
      while (!found && std::fgets(line, sizeof line, f)) found = std::sscanf(line, "Umask: %o", &value) == 1;
      std::fclose(f);
      if (found) return static_cast<mode_t>(value);
    }
    mode_t m = ::umask(022);
    ::umask(m);
    return m;
  }();
  return mask;
}

static void synced(const std::string& path) {
  if (io_hooks().synced) io_hooks().synced(path);
}

// `bytes` in a new, synced "<path>.ckpt-tmp-XXXXXX"; its name.
static Result<std::string> write_synced_temp(const std::string& path, std::string_view bytes) {
  std::string tmpl = path + ".ckpt-tmp-XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return io_error(path, "cannot create temporary file", errno);
  if (int err = write_all(fd, bytes)) {
    ::close(fd);
    ::unlink(tmpl.c_str());
    return io_error(tmpl, "cannot write", err);
  }
  ::fchmod(fd, file_mode());
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    return io_error(tmpl, "cannot flush", err);
  }
  synced(tmpl);
  return tmpl;
}

Status write_file_atomic(const std::string& path, std::string_view bytes) {
  CKPT_ASSIGN_OR_RETURN(std::string tmp, write_synced_temp(path, bytes));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return io_error(path, "cannot rename temporary file into place", err);
  }
  return Status::OK();
}

std::string parent_directory(const std::string& path) {
  std::string p = fs::path(path).parent_path().string();
  return p.empty() ? "." : p;
}

Status publish_file(const std::string& path, std::string_view bytes, bool replace) {
  CKPT_ASSIGN_OR_RETURN(std::string tmp, write_synced_temp(path, bytes));
  return publish_synced_temp(tmp, path, replace);
}

Status publish_synced_temp(const std::string& tmp, const std::string& path, bool replace) {
  int err = 0;
  if (replace) {
    if (::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  } else {
    err = rename_noreplace(tmp.c_str(), path.c_str());
    if (err == EINVAL) {  // no RENAME_NOREPLACE here: link(2) refuses an existing name too
      err = ::link(tmp.c_str(), path.c_str()) == 0 ? 0 : errno;
    }
  }
  ::unlink(tmp.c_str());  // renamed away already, or the link's second name, or a failure's leftover
  if (err == EEXIST) {
    Error e(ErrorCode::kInvalidArgument, "output exists (--force replaces it)");
    e.file = path;
    return e;
  }
  if (err != 0) return io_error(path, "cannot rename temporary file into place", err);
  return sync_path(parent_directory(path));
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
  synced(path);
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

// copy_file_range moves the bytes in the kernel (or shares extents); where it cannot (another
// file system on old kernels, special files), read and write. Either way the errno of the
// failure is kept: std::filesystem::copy_file reports a sendfile cut short by a full disk as
// EIO.
static int copy_fd(int in, int out) {
  constexpr size_t kKernelChunk = size_t{1} << 30;
  constexpr size_t kChunk = size_t{1} << 20;
  bool kernel_copy = true;
  std::vector<char> buffer;
  for (;;) {
    if (kernel_copy) {
      ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, kKernelChunk, 0);
      if (n > 0) continue;
      if (n == 0) return 0;
      if (errno == EINTR) continue;
      if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return errno;
      kernel_copy = false;  // both offsets are where the kernel copy left them
      buffer.resize(kChunk);
    }
    ssize_t n = ::read(in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return 0;
    if (int err = write_all(out, std::string_view(buffer.data(), static_cast<size_t>(n)))) return err;
  }
}

Status copy_file_contents(const std::string& from, const std::string& to) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return io_error(from, "cannot open", errno);
  int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);  // less the umask
  if (out < 0) {
    int err = errno;
    ::close(in);
    return io_error(to, "cannot create", err);
  }
  int err = copy_fd(in, out);
  ::close(in);
  if (::close(out) != 0 && err == 0) err = errno;
  if (err != 0) return io_error(to, fmt::format("cannot copy '{}'", from), err);
  return Status::OK();
}

}  // namespace ckpt
