// Anonymous temporary files for output that must wait its turn.
#include "support/spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <algorithm>
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

Result<std::unique_ptr<SpillFile>> SpillFile::create(size_t buffer_bytes) {
  const char* env = std::getenv("TMPDIR");
  std::string dir = env && *env ? env : "/tmp";
  std::string path = dir + "/ckpt-spill-XXXXXX";
  int fd = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) return spill_error(dir, "cannot create", errno);
  // Unlinked before the first byte: the file lives only as long as the descriptor.
  ::unlink(path.c_str());
  return std::unique_ptr<SpillFile>(new SpillFile(fd, std::move(dir), buffer_bytes));
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

Status SpillFile::flush() {
  if (pending_.empty()) return Status::OK();
  Status s = write_at(flushed_, pending_);
  if (!s.ok()) {
    broken_ = true;
    return s;
  }
  flushed_ += pending_.size();
  pending_.clear();
  return Status::OK();
}

Status SpillFile::append(std::string_view a, std::string_view b) {
  if (broken_) return spill_error(dir_, "cannot write", EIO);
  const size_t n = a.size() + b.size();
  if (buffer_bytes_ > 0 && n < buffer_bytes_) {
    if (pending_.size() + n > buffer_bytes_) CKPT_RETURN_IF_ERROR(flush());
    if (pending_.capacity() < buffer_bytes_) pending_.reserve(buffer_bytes_);
    pending_.append(a);
    pending_.append(b);
    end_ += n;
    return Status::OK();
  }
  CKPT_RETURN_IF_ERROR(flush());
  // Written past the logical end; a partial record is overwritten by the next append.
  Status s = write_at(flushed_, a);
  if (s.ok()) s = write_at(flushed_ + a.size(), b);
  if (s.ok()) {
    flushed_ += n;
    end_ += n;
  }
  return s;
}

Status SpillFile::read_file(uint64_t at, size_t n, char* out) {
  size_t done = 0;
  while (done < n) {
    ssize_t got = ::pread(fd_, out + done, n - done, static_cast<off_t>(at + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return spill_error(dir_, "cannot read", errno);
    }
    if (got == 0) return spill_error(dir_, "cannot read", EIO);
    done += static_cast<size_t>(got);
  }
  return Status::OK();
}

Status SpillFile::read(size_t n, char* out) {
  if (broken_) return spill_error(dir_, "cannot read", EIO);
  if (n > end_ - read_)
    return Error(ErrorCode::kCorruption,
                 fmt::format("spill file read of {} bytes past its end ({} of {} bytes read)", n, read_, end_));
  CKPT_RETURN_IF_ERROR(flush());  // what is read may still be in the write buffer
  if (buffer_bytes_ == 0 || n >= buffer_bytes_) {
    // Unbuffered, or too large to gain from a buffer: what is read ahead first, then the file.
    size_t from_ahead = 0;
    if (read_ >= ahead_at_ && read_ < ahead_at_ + ahead_.size()) {
      from_ahead = std::min<size_t>(n, ahead_at_ + ahead_.size() - read_);
      std::memcpy(out, ahead_.data() + (read_ - ahead_at_), from_ahead);
    }
    CKPT_RETURN_IF_ERROR(read_file(read_ + from_ahead, n - from_ahead, out + from_ahead));
    read_ += n;
    return Status::OK();
  }
  size_t done = 0;
  while (done < n) {
    if (read_ < ahead_at_ || read_ >= ahead_at_ + ahead_.size()) {
      const size_t chunk = static_cast<size_t>(std::min<uint64_t>(buffer_bytes_, flushed_ - read_));
      ahead_.resize(chunk);
      CKPT_RETURN_IF_ERROR(read_file(read_, chunk, ahead_.data()));
      ahead_at_ = read_;
    }
    const size_t take = std::min<size_t>(n - done, ahead_at_ + ahead_.size() - read_);
    std::memcpy(out + done, ahead_.data() + (read_ - ahead_at_), take);
    done += take;
    read_ += take;
  }
  return Status::OK();
}

}  // namespace ckpt
