// Opening stream handles: inline bytes, relative and absolute files, file segments.
#include "state/state_stream.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "ckpt/file_system.h"
#include "ckpt/io.h"
#include "state/state_entry.h"

namespace ckpt {
namespace fs = std::filesystem;

// The open file behind a stream, shared by its copies.
struct StateStream::Fd {
  std::shared_ptr<ReadableFile> file;
};

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
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<FileSystem> files, file_system_for(s.path_));
  CKPT_ASSIGN_OR_RETURN(fd->file, files->open(s.path_));
  const uint64_t file_size = fd->file->size();
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

bool StateStream::is_remote() const { return fd_ && fd_->file->is_copy(); }

Result<std::string> StateStream::local_file() const {
  if (!fd_) return path_;
  return fd_->file->local_path();
}

Status StateStream::read(uint64_t offset, uint64_t len, std::string* out) const {
  CKPT_RETURN_IF_ERROR(check_range(offset, len));
  if (progress_) progress_->add_bytes(len);
  if (inline_) {
    out->assign(*inline_, offset, len);
    return Status::OK();
  }
  Status got = fd_->file->read(base_ + offset, len, out);
  if (got.ok()) return got;
  Error e = std::move(got).error();
  if (!e.offset) e.offset = base_ + offset;  // where in the file the read was going
  return stamp(Status(std::move(e)));
}

}  // namespace ckpt
