// Change logs in files: Flink's flink-dstl-dfs log files read piece by piece (formats/keyed-state.md §15).
#include "state/changelog/changelog_file_reader.h"

#include <fmt/format.h>

#include "state/snappy_framed.h"
#include "support/byte_reader.h"

namespace ckpt {
namespace {

// StateChangeFsUploader writes `compression ? 1 : 0` before the stream; ChangelogStreamWrapper
// reads anything but 1 as uncompressed, but nothing else is ever written.
constexpr uint8_t kUncompressed = 0;
constexpr uint8_t kSnappy = 1;

// The stream of one log file after its flag byte, in place or decompressed.
struct LogStream {
  const StreamHandle* handle = nullptr;  // what is loaded: consecutive pieces share a file
  StateStream source;      // stamps the errors of its bytes
  std::string buffer;      // the file's bytes, or the decompressed stream
  std::string_view bytes;  // the stream after the flag
  uint64_t base = 0;       // absolute offset of bytes[0] in the source's file; 0 when decompressed
  bool compressed = false;
};

// The stream after the flag byte of the file `s.source` opened.
Status decode_log(const StreamHandle& handle, LogStream& s) {
  const StateStream& stream = s.source;
  s.buffer.clear();
  CKPT_ASSIGN_OR_RETURN(std::string_view all, stream.view(0, stream.size(), &s.buffer));
  ByteReader r(all, stream.base());
  if (r.at_end())
    return Error(ErrorCode::kCorruption, "empty change log file, expected its compression flag byte", r.offset());
  uint64_t flag_at = r.offset();
  uint8_t flag = r.u8();
  if (flag == kUncompressed) {
    s.bytes = all.substr(1);
    s.base = r.offset();
    s.compressed = false;
  } else if (flag == kSnappy) {
    // SnappyStreamCompressionDecorator over the rest of the file; offsets count its output.
    std::string out;
    CKPT_RETURN_IF_ERROR(decode_snappy_framed(r, &out, snappy_decompressed_limit(r.remaining())));
    s.buffer = std::move(out);
    s.bytes = s.buffer;
    s.base = 0;
    s.compressed = true;
  } else {
    return Error(ErrorCode::kCorruption,
                 fmt::format("change log compression flag {}, expected 0 (none) or 1 (snappy)", flag), flag_at);
  }
  s.handle = &handle;
  return Status::OK();
}

Status load(const StreamHandle& handle, const StreamOpener& streams, LogStream& s) {
  s.handle = nullptr;
  CKPT_ASSIGN_OR_RETURN(s.source, streams.open(handle));
  return s.source.stamp(decode_log(handle, s));
}

// The one change set StateChangeFormat#writeChangeSet wrote at `offset`: i32 key-group count,
// then per key group i32 change count, i32 key group, and per change i32 length and the bytes.
Status read_change_set(const LogStream& s, int64_t offset, const LoggedChangeFn& fn) {
  if (offset < 0 || static_cast<uint64_t>(offset) > s.bytes.size())
    return Error(ErrorCode::kCorruption,
                 fmt::format("piece offset {} lies past the end of the log stream ({} bytes)", offset, s.bytes.size()),
                 s.base + s.bytes.size());
  ByteReader r(s.bytes.substr(static_cast<size_t>(offset)), s.base + static_cast<uint64_t>(offset));
  int32_t groups = r.count(8, "key group");
  size_t index = 0;
  for (int32_t g = 0; g < groups && r.ok(); ++g) {
    uint64_t group_at = r.offset();
    int32_t n = r.count(4, "change");
    int32_t key_group = r.i32();
    if (!r.ok()) break;
    // Flink's reader would misalign on an empty group (it skips the key group); its writer
    // groups existing changes and so never writes one.
    if (n == 0)
      return Error(ErrorCode::kCorruption, fmt::format("key group {} without changes in a change set", key_group),
                   group_at);
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      int32_t len = r.count(1, "change byte");
      uint64_t at = r.offset();
      std::string_view bytes = r.bytes(static_cast<size_t>(len));
      if (!r.ok()) break;
      CKPT_RETURN_IF_ERROR(fn(LoggedChange{key_group, bytes, at, index++}));
    }
  }
  if (!r.ok()) return r.take_error();
  return Status::OK();
}

}  // namespace

bool is_file_changelog(uint8_t handle_type) {
  return handle_type == handle_type::kChangelogFileV1 || handle_type == handle_type::kChangelogFile;
}

Status for_each_logged_change(const KeyedHandle& log, const StreamOpener& streams, const LoggedChangeFn& fn) {
  if (log.type == handle_type::kInMemoryChangelog) {
    // Its records are bytes of `_metadata` (at offsets the decoded model does not keep).
    for (size_t i = 0; i < log.changes.size(); ++i) {
      Status s = fn(LoggedChange{log.changes[i].key_group, log.changes[i].bytes, 0, i});
      if (!s.ok()) return streams.in_metadata(std::move(s).error());
    }
    return Status::OK();
  }
  if (log.is_null()) return Status::OK();
  if (!is_file_changelog(log.type))
    return Error(ErrorCode::kNotSupported, fmt::format("handle type {:#04x} is not a change log", log.type));
  LogStream stream;
  for (size_t p = 0; p < log.pieces.size(); ++p) {
    const ChangelogPiece& piece = log.pieces[p];
    auto where = [&] {
      std::string c = fmt::format("piece {} (offset {}) of change log '{}'", p, piece.offset, log.handle_id);
      // Offsets of a compressed log count its uncompressed stream, as Flink's do.
      if (stream.handle && stream.compressed) c += " (snappy-compressed: offsets in its uncompressed stream)";
      return c;
    };
    if (!stream.handle || !(*stream.handle == piece.handle)) {
      Status s = load(piece.handle, streams, stream);
      if (!s.ok()) return std::move(s).error().with_context(where());
    }
    Status s = stream.source.stamp(read_change_set(stream, piece.offset, fn));
    if (!s.ok()) return std::move(s).error().with_context(where());
  }
  return Status::OK();
}

}  // namespace ckpt
