// Opening stream handles: inline bytes, relative and absolute files, file segments.
#include "state/state_stream.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "state/state_entry.h"
#include "support/remote_files.h"

namespace ckpt {
namespace fs = std::filesystem;

struct StateStream::Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  // A file standing for an object: ranges fetched in blocks that double while reads go on
  // sequentially (kFirstBlock up to kLastBlock), so that a header costs one small request and
  // a scan few large ones; memory stays one block per open stream.
  static constexpr uint64_t kFirstBlock = 64 << 10;
  static constexpr uint64_t kLastBlock = 8 << 20;
  std::shared_ptr<RemoteFiles> remote;  // set when the bytes are read by ranges
  // The registry the path stands in, in either mode: `fd` may hold a download whose name the
  // cache has since evicted, so whoever opens the name again goes through local_file().
  std::shared_ptr<RemoteFiles> store;
  uint64_t file_size = 0;
  std::mutex mu;
  RemoteFiles::Pin pin;  // local_file()'s download, held while the stream lives
  bool pinned = false;
  std::string block;
  uint64_t block_at = 0;
  uint64_t next_block = kFirstBlock;
};

namespace {

Error file_error(const std::string& path, const std::string& what, int err) {
  Error e(err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIOError,
          fmt::format("{}: {}", what, std::strerror(err)));
  e.file = path;
  return e;
}

}  // namespace

Result<StateStream> StateStream::open(const StreamHandle& handle, const PathResolver& resolve,
                                      const std::string& metadata_file) {
  StateStream s;
  switch (handle.type) {
    case handle_type::kByteStream:
      s.inline_ = &handle.data;
      s.size_ = handle.data.size();
      s.file_ = metadata_file;
      s.description_ = fmt::format("inline stream '{}'", handle.name);
      return s;
    case handle_type::kKeyGroups:
      if (handle.key_groups.size() != 1)
        return Error(ErrorCode::kCorruption, "key-groups stream handle without its delegate");
      return open(handle.key_groups[0].delegate, resolve, metadata_file);
    case handle_type::kRelativeFile:
    case handle_type::kFile:
      break;
    case handle_type::kSegmentFile:
      if (handle.start < 0 || handle.size < 0)
        return Error(ErrorCode::kCorruption,
                     fmt::format("segment handle with negative start {} or size {}", handle.start, handle.size));
      s.base_ = static_cast<uint64_t>(handle.start);
      s.size_ = static_cast<uint64_t>(handle.size);
      break;
    case handle_type::kNull:
      return Error(ErrorCode::kInvalidArgument, "null stream handle has no bytes");
    default:
      return Error(ErrorCode::kNotSupported,
                   fmt::format("stream handle type {:#04x} ({}) has no readable bytes", handle.type,
                               handle_type_name(handle.type)));
  }
  CKPT_ASSIGN_OR_RETURN(std::optional<std::string> found, resolve(handle.type, handle.path));
  if (!found) {
    Error e(ErrorCode::kNotFound, fmt::format("state file '{}' not found", handle.path));
    e.file = metadata_file;
    return e;
  }
  s.path_ = std::move(*found);
  s.file_ = s.path_;
  s.description_ = fmt::format("file '{}'", fs::path(s.path_).filename().string());
  auto fd = std::make_shared<Fd>();
  uint64_t file_size = 0;
  std::shared_ptr<RemoteFiles> remote = RemoteFiles::installed();
  if (remote && !remote->prefer_whole() && remote->holds(s.path_)) {
    // The placeholder has the object's listed size; its bytes come by ranges.
    CKPT_RETURN_IF_ERROR(check_regular_input(s.path_));
    struct stat st;
    if (::stat(s.path_.c_str(), &st) != 0) return file_error(s.path_, "cannot stat", errno);
    file_size = static_cast<uint64_t>(st.st_size);
    fd->store = remote;
    fd->remote = std::move(remote);
    fd->file_size = file_size;
  } else {
    if (remote && remote->holds(s.path_)) fd->store = std::move(remote);
    CKPT_ASSIGN_OR_RETURN(InputFile in, open_regular_input(s.path_));
    fd->fd = in.fd;
    file_size = in.size;
  }
  if (handle.type == handle_type::kSegmentFile) {
    if (s.base_ > file_size || s.size_ > file_size - s.base_) {
      Error e(ErrorCode::kCorruption,
              fmt::format("segment [{:#x}, {:#x}) lies beyond the end of the file ({:#x} bytes)", s.base_,
                          s.base_ + s.size_, file_size));
      e.file = s.path_;
      return e;
    }
  } else {
    s.size_ = file_size;
  }
  s.fd_ = std::move(fd);
  return s;
}

Error StateStream::stamp(Error e) const {
  if (!e.file.empty() || is_stop(e)) return e;
  e.file = file_;
  if (inline_) return std::move(e).with_context(offsets_context());
  return e;
}

std::string StateStream::offsets_context() const {
  return inline_ ? description_ + " (offsets from its first byte)" : std::string();
}

Status StateStream::check_range(uint64_t offset, uint64_t len) const {
  if (offset <= size_ && len <= size_ - offset) return Status::OK();
  Error e(ErrorCode::kCorruption,
          fmt::format("range [{:#x}, {:#x}) lies beyond the end of the stream ({:#x} bytes)", base_ + offset,
                      base_ + offset + len, base_ + size_),
          base_ + offset);
  e.file = file_;
  return e;
}

Error StateStream::past_end(std::string message) const {
  Error e(ErrorCode::kCorruption, std::move(message), base_ + size_);
  e.file = file_;
  return e;
}

Result<std::string_view> StateStream::view(uint64_t offset, uint64_t len, std::string* buffer) const {
  CKPT_RETURN_IF_ERROR(check_range(offset, len));
  if (inline_) return std::string_view(*inline_).substr(offset, len);
  CKPT_RETURN_IF_ERROR(read(offset, len, buffer));
  return std::string_view(*buffer);
}

bool StateStream::is_remote() const { return fd_ && fd_->store; }

Result<std::string> StateStream::local_file() const {
  if (!is_remote()) return path_;
  std::lock_guard<std::mutex> lock(fd_->mu);
  if (!fd_->pinned) {
    CKPT_ASSIGN_OR_RETURN(fd_->pin, fd_->store->fetch(path_));
    fd_->pinned = true;
  }
  return path_;
}

Status StateStream::read_remote(uint64_t at, uint64_t len, std::string* out) const {
  Fd& f = *fd_;
  std::lock_guard<std::mutex> lock(f.mu);
  if (at >= f.block_at && at - f.block_at <= f.block.size() && len <= f.block.size() - (at - f.block_at)) {
    out->assign(f.block, at - f.block_at, len);
    return Status::OK();
  }
  const bool sequential = !f.block.empty() && at >= f.block_at + f.block.size() &&
                          at - (f.block_at + f.block.size()) < Fd::kFirstBlock;
  f.next_block = sequential ? std::min(f.next_block * 2, Fd::kLastBlock) : Fd::kFirstBlock;
  const uint64_t want = std::min(std::max(len, f.next_block), f.file_size - at);
  Result<std::string> got = f.remote->read_range(path_, at, want);
  if (!got.ok()) {
    Error e = std::move(got).error();
    if (!e.offset) e.offset = at;  // where in the file the read was going
    return stamp(Status(std::move(e)));
  }
  if (got.value().size() < len) {
    Error e(ErrorCode::kCorruption, "state file shrank while being read", at + got.value().size());
    e.file = file_;
    return e;
  }
  if (len >= Fd::kLastBlock) {
    *out = std::move(got).value();
    out->resize(len);
    return Status::OK();
  }
  f.block = std::move(got).value();
  f.block_at = at;
  out->assign(f.block, 0, len);
  return Status::OK();
}

Status StateStream::read(uint64_t offset, uint64_t len, std::string* out) const {
  CKPT_RETURN_IF_ERROR(check_range(offset, len));
  if (progress_) progress_->add_bytes(len);
  if (inline_) {
    out->assign(*inline_, offset, len);
    return Status::OK();
  }
  if (fd_->remote) return read_remote(base_ + offset, len, out);
  out->resize(len);
  uint64_t done = 0;
  while (done < len) {
    ssize_t n = ::pread(fd_->fd, out->data() + done, len - done, static_cast<off_t>(base_ + offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return file_error(file_, "cannot read state file", errno);
    }
    if (n == 0) {
      Error e(ErrorCode::kCorruption, "state file shrank while being read", base_ + offset + done);
      e.file = file_;
      return e;
    }
    done += static_cast<uint64_t>(n);
  }
  return Status::OK();
}

}  // namespace ckpt
