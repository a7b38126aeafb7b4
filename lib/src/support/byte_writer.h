// support/byte_writer.h - the mirror of ByteReader: big-endian appends to a growing buffer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ckpt {

class ByteWriter {
 public:
  void u8(uint8_t v) { buf_.push_back(static_cast<char>(v)); }
  void i8(int8_t v) { u8(static_cast<uint8_t>(v)); }
  void boolean(bool v) { u8(v ? 1 : 0); }
  void u16(uint16_t v) { u8(v >> 8); u8(v & 0xff); }
  void i16(int16_t v) { u16(static_cast<uint16_t>(v)); }
  // Whole words appended at once (not byte by byte): load and generate write millions.
  void u32(uint32_t v) {
    const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                       static_cast<char>(v)};
    buf_.append(b, 4);
  }
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void u64(uint64_t v) {
    u32(static_cast<uint32_t>(v >> 32));
    u32(static_cast<uint32_t>(v));
  }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f32(float v);
  void f64(double v);
  void u32le(uint32_t v) { for (int s = 0; s < 32; s += 8) u8((v >> s) & 0xff); }
  void u64le(uint64_t v) { for (int s = 0; s < 64; s += 8) u8((v >> s) & 0xff); }
  void varint(uint64_t v) { while (v >= 0x80) { u8(static_cast<uint8_t>(v | 0x80)); v >>= 7; } u8(static_cast<uint8_t>(v)); }
  void bytes(std::string_view b) { buf_.append(b); }
  // Java's DataOutput.writeUTF. Returns false (writing nothing) if the encoded form exceeds
  // 65535 bytes, which Java refuses too.
  bool utf(std::string_view utf8);

  size_t size() const { return buf_.size(); }
  const std::string& buffer() const { return buf_; }
  std::string& buffer() { return buf_; }
  std::string take() { return std::move(buf_); }

 private:
  std::string buf_;
};

}  // namespace ckpt
