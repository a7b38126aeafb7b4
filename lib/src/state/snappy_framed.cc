// The framed Snappy decoder (framing_format.txt as xerial's SnappyFramedInputStream reads it).
#include "state/snappy_framed.h"

#include <fmt/format.h>
#include <snappy.h>

#include "support/crc32.h"

namespace ckpt {
namespace {

constexpr uint8_t kCompressedChunk = 0x00;
constexpr uint8_t kUncompressedChunk = 0x01;
constexpr uint8_t kStreamIdentifier = 0xff;
// framing_format.txt caps a chunk's uncompressed data at 65536 bytes.
constexpr size_t kMaxBlock = 65536;
constexpr std::string_view kIdentifier = "sNaPpY";

}  // namespace

Status decode_snappy_framed(ByteReader& in, std::string* out, size_t max_output,
                            bool expect_identifier, std::vector<size_t>* stream_starts) {
  bool first = expect_identifier;
  bool any = false;
  while (!in.at_end()) {
    uint64_t chunk_start = in.offset();
    uint8_t type = in.u8();
    uint32_t len = in.u8();
    len |= uint32_t{in.u8()} << 8;
    len |= uint32_t{in.u8()} << 16;
    std::string_view body = in.bytes(len);
    if (!in.ok()) return in.take_error();
    if (first && type != kStreamIdentifier)
      return Error(ErrorCode::kCorruption,
                   fmt::format("expected a snappy stream identifier chunk, found chunk type {:#04x}", type),
                   chunk_start);
    first = false;
    any = true;
    if (type == kStreamIdentifier) {
      if (body != kIdentifier)
        return Error(ErrorCode::kCorruption, "malformed snappy stream identifier", chunk_start);
      if (stream_starts) stream_starts->push_back(out->size());
      continue;
    }
    if (type == kCompressedChunk || type == kUncompressedChunk) {
      if (body.size() < 4)
        return Error(ErrorCode::kCorruption,
                     fmt::format("snappy chunk of {} bytes is too short for its checksum", body.size()),
                     chunk_start);
      std::string_view data = body.substr(4);
      size_t n = data.size();
      if (type == kCompressedChunk &&
          !snappy::GetUncompressedLength(data.data(), data.size(), &n))
        return Error(ErrorCode::kCorruption, "malformed snappy block header", chunk_start + 8);
      if (n > kMaxBlock)
        return Error(ErrorCode::kCorruption,
                     fmt::format("snappy chunk of {} uncompressed bytes exceeds the 65536 byte limit", n),
                     chunk_start);
      if (out->size() + n > max_output)
        return Error(ErrorCode::kCorruption,
                     fmt::format("decompressed data exceeds the limit of {} bytes", max_output),
                     chunk_start);
      if (type == kUncompressedChunk) {
        out->append(data);
        continue;
      }
      size_t at = out->size();
      out->resize(at + n);
      if (!snappy::RawUncompress(data.data(), data.size(), out->data() + at))
        return Error(ErrorCode::kCorruption, "malformed snappy compressed block", chunk_start + 8);
      continue;
    }
    // 0x02-0x7f are reserved unskippable chunks; 0x80-0xfe (padding included) are skippable.
    if (type < 0x80)
      return Error(ErrorCode::kCorruption,
                   fmt::format("reserved unskippable snappy chunk type {:#04x}", type), chunk_start);
  }
  if (!any) return Error(ErrorCode::kCorruption, "empty snappy stream: expected a chunk", in.offset());
  return Status::OK();
}

std::string encode_snappy_framed(std::string_view data) {
  std::string out;
  for (size_t at = 0; at < data.size(); at += kMaxBlock) {
    const std::string_view block = data.substr(at, kMaxBlock);
    const uint32_t crc = crc32c(0, block);
    const uint32_t masked = ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
    std::string compressed;
    snappy::Compress(block.data(), block.size(), &compressed);
    const bool use = static_cast<double>(compressed.size()) / static_cast<double>(block.size()) <= 0.85;
    const std::string_view body = use ? std::string_view(compressed) : block;
    const size_t length = body.size() + 4;
    out.push_back(static_cast<char>(use ? kCompressedChunk : kUncompressedChunk));
    for (int i = 0; i < 3; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((masked >> (8 * i)) & 0xff));
    out.append(body);
  }
  return out;
}

}  // namespace ckpt
