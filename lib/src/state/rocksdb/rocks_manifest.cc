// CURRENT and MANIFEST files of a native handle checked record by record (RocksDB's log format).
#include "state/rocksdb/rocks_manifest.h"

#include <array>
#include <cctype>

#include <fmt/format.h>

#include "support/crc32.h"

namespace ckpt {
namespace {

constexpr uint64_t kBlockSize = 32768;
constexpr uint64_t kHeaderSize = 7;  // checksum (4), length (2), type (1)
enum RecordType : uint8_t { kFull = 1, kFirst = 2, kMiddle = 3, kLast = 4 };

// RocksDB stores crc32c::Mask(crc): rotated right by 15 bits plus a constant.
uint32_t unmask(uint32_t masked) {
  uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

uint32_t le32(std::string_view b, uint64_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(b[at])) | static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 2])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 3])) << 24;
}

Error manifest_corrupt(const std::string& file, uint64_t at, std::string message) {
  Error e(ErrorCode::kCorruption, std::move(message), at);
  e.file = file;
  return e;
}

// "MANIFEST-" then digits then a newline, naming a MANIFEST file of the handle.
Status check_current(std::string_view bytes, uint64_t base, const std::string& file, const KeyedHandle& h) {
  static constexpr std::string_view kPrefix = "MANIFEST-";
  size_t i = 0;
  while (i < bytes.size() && i < kPrefix.size() && bytes[i] == kPrefix[i]) ++i;
  if (i < kPrefix.size()) return manifest_corrupt(file, base + i, "CURRENT does not start with \"MANIFEST-\"");
  while (i < bytes.size() && std::isdigit(static_cast<unsigned char>(bytes[i]))) ++i;
  if (i == kPrefix.size() || i + 1 != bytes.size() || bytes[i] != '\n')
    return manifest_corrupt(file, base + i, "CURRENT is not \"MANIFEST-<number>\" and a newline");
  std::string_view name = bytes.substr(0, i);
  for (const auto* list : {&h.private_files, &h.shared_files})
    for (const NamedStream& f : *list)
      if (f.name == name) return Status::OK();
  return manifest_corrupt(file, base, fmt::format("CURRENT names '{}', which the handle does not list", name));
}

}  // namespace

Status check_manifest(std::string_view bytes, uint64_t base, const std::string& file) {
  bool in_record = false;  // between a FIRST fragment and its LAST
  uint64_t records = 0;
  for (uint64_t pos = 0; pos < bytes.size();) {
    const uint64_t left = kBlockSize - pos % kBlockSize;
    if (left < kHeaderSize) {
      // The writer pads a block's tail that cannot hold a header with zeros.
      for (uint64_t i = pos; i < std::min<uint64_t>(bytes.size(), pos + left); ++i)
        if (bytes[i] != 0) return manifest_corrupt(file, base + i, "non-zero byte in the padding at the end of a log block");
      pos += left;
      continue;
    }
    if (bytes.size() - pos < kHeaderSize) return manifest_corrupt(file, base + pos, "log record header cut off by the end of the file");
    const uint32_t stored = unmask(le32(bytes, pos));
    const uint64_t length = static_cast<uint8_t>(bytes[pos + 4]) | static_cast<uint64_t>(static_cast<uint8_t>(bytes[pos + 5])) << 8;
    const uint8_t type = static_cast<uint8_t>(bytes[pos + 6]);
    if (type < kFull || type > kLast)
      return manifest_corrupt(file, base + pos + 6, fmt::format("log record of unknown type {}", type));
    if (kHeaderSize + length > left)
      return manifest_corrupt(file, base + pos + 4, fmt::format("log record of {} bytes crosses its block's end", length));
    if (pos + kHeaderSize + length > bytes.size())
      return manifest_corrupt(file, base + pos + 4, fmt::format("log record of {} bytes cut off by the end of the file", length));
    const uint32_t actual = crc32c(crc32c(0, bytes.substr(pos + 6, 1)), bytes.substr(pos + kHeaderSize, length));
    if (actual != stored) return manifest_corrupt(file, base + pos, "log record checksum mismatch");
    const bool starts = type == kFull || type == kFirst;
    if (starts == in_record)
      return manifest_corrupt(file, base + pos + 6, in_record ? "log record starts inside another" : "log record fragment without its start");
    in_record = type == kFirst || type == kMiddle;
    ++records;
    pos += kHeaderSize + length;
  }
  if (in_record) return manifest_corrupt(file, base + bytes.size(), "last log record cut off by the end of the file");
  if (records == 0) return manifest_corrupt(file, base, "MANIFEST holds no log record");
  return Status::OK();
}

Status check_instance_files(const KeyedHandle& h, const StreamOpener& streams) {
  for (const auto* list : {&h.private_files, &h.shared_files})
    for (const NamedStream& f : *list) {
      const bool current = f.name == "CURRENT";
      if (!current && f.name.rfind("MANIFEST-", 0) != 0) continue;
      CKPT_RETURN_IF_ERROR(streams.read(f.handle, [&](const StateStream& stream) -> Status {
        std::string bytes;
        CKPT_RETURN_IF_ERROR(stream.read_all(&bytes));
        return current ? check_current(bytes, stream.base(), stream.file(), h)
                       : check_manifest(bytes, stream.base(), stream.file());
      }));
    }
  return Status::OK();
}

}  // namespace ckpt
