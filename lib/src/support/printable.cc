// printable(): the one escaper of text output (ckpt/printable.h).
#include "ckpt/printable.h"

#include <cstdint>

namespace ckpt {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_byte_escape(std::string& out, uint8_t b) {
  out += "\\x";
  out += kHex[b >> 4];
  out += kHex[b & 0xf];
}

// The length of the valid UTF-8 sequence at the start of `s`, or 0 (overlong forms, surrogates
// and values beyond U+10FFFF are not valid).
size_t utf8_length(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const auto cont = [&](size_t i) { return i < s.size() && (b(i) & 0xc0) == 0x80; };
  const uint8_t c = b(0);
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xe0 && b(1) < 0xa0) return 0;
    if (c == 0xed && b(1) >= 0xa0) return 0;
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xf0 && b(1) < 0x90) return 0;
    if (c == 0xf4 && b(1) >= 0x90) return 0;
    return 4;
  }
  return 0;
}

}  // namespace

std::string printable(std::string_view s) {
  size_t plain = 0;
  while (plain < s.size() && static_cast<uint8_t>(s[plain]) >= 0x20 && static_cast<uint8_t>(s[plain]) < 0x7f) ++plain;
  if (plain == s.size()) return std::string(s);
  std::string out(s.substr(0, plain));
  for (size_t i = plain; i < s.size();) {
    const uint8_t c = static_cast<uint8_t>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n') {
      out += "\\n", ++i;
    } else if (c == '\r') {
      out += "\\r", ++i;
    } else if (c == '\t') {
      out += "\\t", ++i;
    } else if (c < 0x80) {
      append_byte_escape(out, c), ++i;
    } else if (size_t n = utf8_length(s.substr(i)); n == 0) {
      append_byte_escape(out, c), ++i;
    } else if (n == 2 && c == 0xc2 && static_cast<uint8_t>(s[i + 1]) < 0xa0) {
      const uint8_t code = static_cast<uint8_t>(s[i + 1]);  // a C1 control: U+0080 to U+009F
      out += "\\u00";
      out += kHex[code >> 4];
      out += kHex[code & 0xf];
      i += 2;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace ckpt
