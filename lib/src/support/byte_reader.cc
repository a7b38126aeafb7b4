// The bounds-checked reader and the modified UTF-8 codec.
#include "support/byte_reader.h"

#include <cstring>

#include <fmt/format.h>

#include "support/ascii_scan.h"
#include "support/byte_writer.h"

namespace ckpt {

void ByteReader::fail_at(uint64_t absolute_offset, std::string message, ErrorCode code) {
  if (error_) return;
  error_ = Error(code, std::move(message), absolute_offset);
}

const uint8_t* ByteReader::take_short(size_t n) {
  if (!error_) fail(fmt::format("unexpected end of data: expected {} bytes, found {}", n, size_ - pos_));
  return nullptr;
}

void ByteReader::seek(size_t position) {
  if (error_) return;
  if (position > size_) {
    fail(fmt::format("seek to {:#x} beyond the end of data ({:#x})", base_ + position, base_ + size_));
    return;
  }
  pos_ = position;
}

uint16_t ByteReader::u16() {
  const uint8_t* p = take(2);
  return p ? static_cast<uint16_t>((p[0] << 8) | p[1]) : 0;
}

uint32_t ByteReader::u32() {
  const uint8_t* p = take(4);
  if (!p) return 0;
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

uint64_t ByteReader::u64() {
  const uint8_t* p = take(8);
  if (!p) return 0;
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

uint32_t ByteReader::u32le() {
  const uint8_t* p = take(4);
  if (!p) return 0;
  return (uint32_t{p[3]} << 24) | (uint32_t{p[2]} << 16) | (uint32_t{p[1]} << 8) | uint32_t{p[0]};
}

uint64_t ByteReader::u64le() {
  const uint8_t* p = take(8);
  if (!p) return 0;
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

float ByteReader::f32() {
  uint32_t bits = u32();
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

double ByteReader::f64() {
  uint64_t bits = u64();
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

uint64_t ByteReader::varint(int max_bytes) {
  if (error_) return 0;
  uint64_t start = offset();
  size_t saved = pos_;
  uint64_t v = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (pos_ >= size_) {
      pos_ = saved;
      fail_at(start, "unexpected end of data inside a varint");
      return 0;
    }
    uint8_t b = data_[pos_++];
    if (i < 10) v |= uint64_t{b & 0x7fu} << (7 * i);
    if ((b & 0x80) == 0) return v;
  }
  pos_ = saved;
  fail_at(start, fmt::format("varint longer than {} bytes", max_bytes));
  return 0;
}

std::string ByteReader::utf() {
  if (error_) return {};
  uint64_t start = offset();
  size_t saved = pos_;
  uint16_t n = u16();
  std::string_view raw = bytes(n);
  if (!ok()) return {};
  std::string out;
  if (!decode_modified_utf8(raw, &out)) {
    pos_ = saved;
    fail_at(start, fmt::format("malformed modified UTF-8 string of {} bytes", n));
    return {};
  }
  return out;
}

int32_t ByteReader::count(size_t min_element_size, const char* what) {
  if (error_) return 0;
  uint64_t start = offset();
  int32_t n = i32();
  if (!ok()) return 0;
  if (n < 0) {
    fail_at(start, fmt::format("negative {} count {}", what, n));
    return 0;
  }
  if (min_element_size > 0 && static_cast<uint64_t>(n) * min_element_size > remaining()) {
    fail_at(start, fmt::format("{} count {} needs at least {} bytes, only {} left", what, n,
                               static_cast<uint64_t>(n) * min_element_size, remaining()));
    return 0;
  }
  return n;
}

void Utf8FromUtf16::put(uint32_t cp) {
  if (cp < 0x80) {
    out_->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out_->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out_->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out_->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out_->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out_->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out_->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out_->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out_->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out_->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

void Utf8FromUtf16::unit(uint16_t u) {
  if (high_ != 0) {
    uint32_t high = high_;
    high_ = 0;
    if (u >= 0xDC00 && u <= 0xDFFF) return put(0x10000 + ((high - 0xD800) << 10) + (u - 0xDC00));
    put(high);  // a lone high surrogate, kept in its 3-byte form
  }
  if (u >= 0xD800 && u <= 0xDBFF) {
    high_ = u;
    return;
  }
  put(u);  // a BMP character, or a lone low surrogate in its 3-byte form
}

void Utf8FromUtf16::finish() {
  if (high_ != 0) put(high_);
  high_ = 0;
}

void append_utf16_as_utf8(const uint16_t* units, size_t n, std::string* out) {
  Utf8FromUtf16 w(out);
  for (size_t i = 0; i < n; ++i) w.unit(units[i]);
  w.finish();
}

// Modified UTF-8: every UTF-16 code unit as a 1, 2 or 3 byte sequence; U+0000 as C0 80
// (formats/metadata.md §1). Only the forms Java's writer produces are accepted, so that
// decoding then encoding gives the same bytes.
bool decode_modified_utf8(std::string_view in, std::string* out) {
  // Almost every stored string is plain ASCII (paths, names, class names): copy it whole
  // rather than a byte at a time, which showed in profiles of million-file metadata.
  if (is_ascii_without_nul(in)) {
    out->assign(in);
    return true;
  }
  out->clear();
  out->reserve(in.size());
  Utf8FromUtf16 w(out);
  size_t i = 0;
  while (i < in.size()) {
    auto b0 = static_cast<uint8_t>(in[i]);
    uint32_t u;
    if (b0 < 0x80) {
      if (b0 == 0) return false;  // Java writes NUL as C0 80
      u = b0;
      i += 1;
    } else if ((b0 & 0xE0) == 0xC0) {
      if (i + 1 >= in.size()) return false;
      auto b1 = static_cast<uint8_t>(in[i + 1]);
      if ((b1 & 0xC0) != 0x80) return false;
      u = ((b0 & 0x1Fu) << 6) | (b1 & 0x3Fu);
      if (u != 0 && u < 0x80) return false;  // overlong: not what Java writes
      i += 2;
    } else if ((b0 & 0xF0) == 0xE0) {
      if (i + 2 >= in.size()) return false;
      auto b1 = static_cast<uint8_t>(in[i + 1]);
      auto b2 = static_cast<uint8_t>(in[i + 2]);
      if ((b1 & 0xC0) != 0x80 || (b2 & 0xC0) != 0x80) return false;
      u = ((b0 & 0x0Fu) << 12) | ((b1 & 0x3Fu) << 6) | (b2 & 0x3Fu);
      if (u < 0x800) return false;
      i += 3;
    } else {
      return false;  // 4-byte forms: Java writes a surrogate pair instead
    }
    w.unit(static_cast<uint16_t>(u));
  }
  w.finish();
  return true;
}

void append_modified_utf8_unit(std::string* out, uint16_t u) {
  if (u != 0 && u < 0x80) {
    out->push_back(static_cast<char>(u));
  } else if (u < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (u >> 6)));
    out->push_back(static_cast<char>(0x80 | (u & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xE0 | (u >> 12)));
    out->push_back(static_cast<char>(0x80 | ((u >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (u & 0x3F)));
  }
}

std::string encode_modified_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for_each_utf16_unit(s, [&](uint16_t u) { append_modified_utf8_unit(&out, u); });
  return out;
}

bool ByteWriter::utf(std::string_view utf8) {
  std::string enc = encode_modified_utf8(utf8);
  if (enc.size() > 0xFFFF) return false;
  u16(static_cast<uint16_t>(enc.size()));
  buf_.append(enc);
  return true;
}

void ByteWriter::f32(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  u32(bits);
}

void ByteWriter::f64(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  u64(bits);
}

}  // namespace ckpt
