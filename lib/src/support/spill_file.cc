// Anonymous temporary files for output that must wait its turn.
#include "support/spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace ckpt {
namespace {

Error spill_error(const std::string& dir, const char* what, int err) {
  Error e(ErrorCode::kIOError, fmt::format("{} temporary spill file: {}", what, std::strerror(err)));
  e.file = dir;
  return e;
}

}  // namespace

Result<std::unique_ptr<SpillFile>> SpillFile::create() {
  const char* env = std::getenv("TMPDIR");
  std::string dir = env && *env ? env : "/tmp";
  std::string path = dir + "/ckpt-spill-XXXXXX";
  int fd = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) return spill_error(dir, "cannot create", errno);
  // Unlinked before the first byte: the file lives only as long as the descriptor.
  ::unlink(path.c_str());
  return std::unique_ptr<SpillFile>(new SpillFile(fd, std::move(dir)));
}

SpillFile::~SpillFile() { ::close(fd_); }

Status SpillFile::write_at(uint64_t at, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(at + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return spill_error(dir_, "cannot write", errno);
    }
    if (n == 0) return spill_error(dir_, "cannot write", ENOSPC);
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

Status SpillFile::append(std::string_view a, std::string_view b) {
  // Written past the logical end; a partial record is overwritten by the next append.
  Status s = write_at(end_, a);
  if (s.ok()) s = write_at(end_ + a.size(), b);
  if (s.ok()) end_ += a.size() + b.size();
  return s;
}

Status SpillFile::read(size_t n, char* out) {
  if (n > end_ - read_)
    return Error(ErrorCode::kCorruption,
                 fmt::format("spill file read of {} bytes past its end ({} of {} bytes read)", n, read_, end_));
  size_t done = 0;
  while (done < n) {
    ssize_t got = ::pread(fd_, out + done, n - done, static_cast<off_t>(read_ + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return spill_error(dir_, "cannot read", errno);
    }
    if (got == 0) return spill_error(dir_, "cannot read", EIO);
    done += static_cast<size_t>(got);
  }
  read_ += n;
  return Status::OK();
}

}  // namespace ckpt
