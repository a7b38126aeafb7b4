// support/byte_reader.h - the one bounds-checked reader for all untrusted bytes.
//
// Modelled on LLVM's DataExtractor::Cursor: the reader carries an absolute offset (so errors
// point into the file, not into a sub-buffer) and a sticky error. A read that does not fit
// records "unexpected end of data", returns zero / empty, and leaves the offset unchanged; every
// later read is a no-op. Decoders read a group of fields and check ok() once.
// Integers are big-endian, as java.io.DataOutputStream writes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/error.h"

namespace ckpt {

class ByteReader {
 public:
  // `base` is the absolute offset of data[0] in the file it came from.
  ByteReader(const void* data, size_t size, uint64_t base = 0)
      : data_(static_cast<const uint8_t*>(data)), size_(size), base_(base) {}
  explicit ByteReader(std::string_view bytes, uint64_t base = 0)
      : ByteReader(bytes.data(), bytes.size(), base) {}

  uint8_t u8() {
    const uint8_t* p = take(1);
    return p ? p[0] : 0;
  }
  int8_t i8() { return static_cast<int8_t>(u8()); }
  bool boolean() { return u8() != 0; }
  uint16_t u16();
  int16_t i16() { return static_cast<int16_t>(u16()); }
  uint32_t u32();
  int32_t i32() { return static_cast<int32_t>(u32()); }
  uint64_t u64();
  int64_t i64() { return static_cast<int64_t>(u64()); }
  float f32();
  double f64();
  // Little-endian and varint forms, for RocksDB-side and Kryo-style data.
  uint32_t u32le();
  uint64_t u64le();
  // Unsigned LEB128 as RocksDB and Flink's DataOutputView varints use; at most `max_bytes`.
  uint64_t varint(int max_bytes = 10);

  // A view of the next n bytes (valid as long as the underlying buffer is).
  std::string_view bytes(size_t n) {
    const uint8_t* p = take(n);
    return p ? std::string_view(reinterpret_cast<const char*>(p), n) : std::string_view();
  }
  // Java's DataInput.readUTF: u16 byte count, then modified UTF-8, returned as UTF-8
  // (a lone surrogate becomes its 3-byte form, so writing it back gives the same bytes).
  // Non-canonical forms that Java's writer never produces are rejected as corruption so
  // that reading then writing is the identity.
  std::string utf();
  // An i32 element count, checked to be >= 0 and to fit the bytes left at `min_element_size`
  // bytes each, before anyone allocates for it. `what` names the count in the error.
  int32_t count(size_t min_element_size, const char* what);
  void skip(size_t n) { (void)bytes(n); }

  uint64_t offset() const { return base_ + pos_; }     // absolute offset of the next byte
  size_t position() const { return pos_; }             // relative to data[0]
  size_t remaining() const { return size_ - pos_; }
  size_t size() const { return size_; }
  bool at_end() const { return pos_ == size_; }
  const uint8_t* data() const { return data_; }
  // The bytes from relative position `start` up to the next byte: what was read since then.
  std::string_view since(size_t start) const {
    return std::string_view(reinterpret_cast<const char*>(data_) + start, pos_ - start);
  }
  void seek(size_t position);                          // relative; past the end is an error

  bool ok() const { return !error_.has_value(); }
  const std::optional<Error>& error() const { return error_; }
  Error take_error() { Error e = std::move(*error_); error_.reset(); return e; }

  // Record an error at the current offset or at an absolute one; the first error wins.
  void fail(std::string message) { fail_at(offset(), std::move(message)); }
  void fail_at(uint64_t absolute_offset, std::string message,
               ErrorCode code = ErrorCode::kCorruption);
  void not_supported_at(uint64_t absolute_offset, std::string message) {
    fail_at(absolute_offset, std::move(message), ErrorCode::kNotSupported);
  }

 private:
  // Inline, with the failure out of line: decoders skipping values call u8() and bytes() per
  // field, and a call into the library for each was a few per cent of `ckpt convert`.
  const uint8_t* take(size_t n) {
    if (error_ || n > size_ - pos_) return take_short(n);
    const uint8_t* p = data_ + pos_;
    pos_ += n;
    return p;
  }
  const uint8_t* take_short(size_t n);

  const uint8_t* data_;
  size_t size_;
  uint64_t base_;
  size_t pos_ = 0;
  std::optional<Error> error_;
};

// Java strings: UTF-16 code units, held in ckpt as UTF-8 where a lone surrogate keeps its 3-byte
// (WTF-8) form, so that every string read from Java's bytes is written back to the same bytes
// (formats/metadata.md §1). One pair of conversions serves every encoding Java or Flink writes:
// modified UTF-8 (writeUTF, object streams), StringValue's varint units, String.hashCode().

// UTF-16 units to UTF-8, one unit at a time: a surrogate pair becomes its 4-byte character, a
// lone surrogate its 3-byte form. Call finish() after the last unit.
class Utf8FromUtf16 {
 public:
  explicit Utf8FromUtf16(std::string* out) : out_(out) {}
  void unit(uint16_t u);
  void finish();

 private:
  void put(uint32_t code_point);
  std::string* out_;
  uint16_t high_ = 0;  // a high surrogate waiting for its low half
};
void append_utf16_as_utf8(const uint16_t* units, size_t n, std::string* out);

// The UTF-16 units of a UTF-8 (WTF-8) string, as Java holds it: a 4-byte character as its
// surrogate pair, a 3-byte surrogate as that unit, a byte that starts no valid sequence (or one
// cut short) as U+FFFD.
template <class F>
void for_each_utf16_unit(std::string_view s, F&& unit) {
  size_t i = 0;
  while (i < s.size()) {
    auto b0 = static_cast<uint8_t>(s[i]);
    uint32_t cp;
    size_t len;
    if (b0 < 0x80) { cp = b0; len = 1; }
    else if ((b0 & 0xE0) == 0xC0) { cp = b0 & 0x1F; len = 2; }
    else if ((b0 & 0xF0) == 0xE0) { cp = b0 & 0x0F; len = 3; }
    else if ((b0 & 0xF8) == 0xF0) { cp = b0 & 0x07; len = 4; }
    else { cp = 0xFFFD; len = 1; }
    if (i + len > s.size()) { cp = 0xFFFD; len = 1; }
    else for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<uint8_t>(s[i + k]) & 0x3F);
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      unit(static_cast<uint16_t>(0xD800 + (cp >> 10)));
      unit(static_cast<uint16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      unit(static_cast<uint16_t>(cp));
    }
  }
}

// Modified UTF-8 (DataOutput.writeUTF's bytes, without the length): each UTF-16 unit as 1, 2 or
// 3 bytes, U+0000 as C0 80. Decode: false on malformed or non-canonical input (a zero byte, an
// overlong or 4-byte form). Encode: exactly what Java writes for the string.
bool decode_modified_utf8(std::string_view in, std::string* out);
std::string encode_modified_utf8(std::string_view utf8);
void append_modified_utf8_unit(std::string* out, uint16_t unit);

}  // namespace ckpt
