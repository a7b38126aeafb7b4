// support/ascii_scan.h - word-at-a-time tests that a string is plain ASCII, for the fast paths
// of the modified UTF-8 decoder and the JSON string escaper (paths and names at millions per file).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace ckpt {

namespace ascii_scan_detail {

inline constexpr uint64_t kOnes = 0x0101010101010101ull;
inline constexpr uint64_t kHighs = 0x8080808080808080ull;

inline uint64_t load8(const char* p) {
  uint64_t x;
  std::memcpy(&x, p, sizeof x);
  return x;
}

// Non-zero iff some byte of x is below n (n <= 0x80); the classic exact "has less" test.
inline uint64_t has_less(uint64_t x, uint8_t n) { return (x - kOnes * n) & ~x & kHighs; }
inline uint64_t has_zero(uint64_t x) { return has_less(x, 1); }

// Every byte of s passes `word` (8 at a time) and `byte` (the tail).
template <class Word, class Byte>
bool all_bytes(std::string_view s, Word word, Byte byte) {
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8)
    if (word(load8(p))) return false;
  for (; n > 0; ++p, --n)
    if (!byte(static_cast<uint8_t>(*p))) return false;
  return true;
}

}  // namespace ascii_scan_detail

// Every byte in 0x01..0x7F: modified UTF-8 that is its own UTF-8 (Java writes NUL as C0 80).
inline bool is_ascii_without_nul(std::string_view s) {
  using namespace ascii_scan_detail;
  return all_bytes(
      s, [](uint64_t x) { return (has_zero(x) | (x & kHighs)) != 0; },
      [](uint8_t b) { return b - 1u < 0x7Fu; });
}

// Every byte in 0x20..0x7F except '"' and '\\': a JSON string that needs no escaping.
inline bool is_json_plain(std::string_view s) {
  using namespace ascii_scan_detail;
  return all_bytes(
      s,
      [](uint64_t x) {
        return (has_less(x, 0x20) | (x & kHighs) | has_zero(x ^ (kOnes * '"')) | has_zero(x ^ (kOnes * '\\'))) != 0;
      },
      [](uint8_t b) { return b >= 0x20 && b < 0x80 && b != '"' && b != '\\'; });
}

// Every byte in 0x20..0x7E: text that printable() (ckpt/printable.h) gives back as it is.
inline bool is_printable_ascii(std::string_view s) {
  using namespace ascii_scan_detail;
  return all_bytes(
      s, [](uint64_t x) { return (has_less(x, 0x20) | (x & kHighs) | has_zero(x ^ (kOnes * 0x7f))) != 0; },
      [](uint8_t b) { return b >= 0x20 && b < 0x7f; });
}

}  // namespace ckpt
