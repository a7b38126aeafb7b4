// The word-at-a-time ASCII tests agree with their byte-at-a-time definitions.
#include <catch2/catch.hpp>

#include <string>

#include "support/ascii_scan.h"

using namespace ckpt;

namespace {

bool ascii_without_nul_bytewise(const std::string& s) {
  for (unsigned char c : s)
    if (c == 0 || c >= 0x80) return false;
  return true;
}

bool json_plain_bytewise(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
  return true;
}

}  // namespace

TEST_CASE("every byte value at every position of a word or the tail is classified as byte by byte", "[unit][support]") {
  // Proves the word tests exact: each of the 256 byte values is placed at each position of a
  // 19-byte string (two words and a 3-byte tail) of otherwise plain characters.
  for (int v = 0; v < 256; ++v) {
    for (size_t at = 0; at < 19; ++at) {
      std::string s(19, 'a');
      s[at] = static_cast<char>(v);
      INFO("byte " << v << " at " << at);
      CHECK(is_ascii_without_nul(s) == ascii_without_nul_bytewise(s));
      CHECK(is_json_plain(s) == json_plain_bytewise(s));
    }
  }
  CHECK(is_ascii_without_nul(""));
  CHECK(is_json_plain(""));
  CHECK(is_json_plain("s3://bucket/flink/checkpoints/5f0c3d2e/shared/0c1d-4e2f"));
  CHECK_FALSE(is_json_plain("a path with a \"quote\" inside, far past the first word"));
  CHECK_FALSE(is_ascii_without_nul("caf\xc3\xa9 is not ASCII, found in the second word"));
}

TEST_CASE("neighbouring bytes do not hide or fake a byte below a bound", "[unit][support]") {
  // Proves the borrow of the subtraction cannot carry a verdict from one byte to the next: every
  // pair of adjacent byte values from the edges of the classes, inside one word.
  const int edges[] = {0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f, 0x80, 0x81, 0xff};
  for (int a : edges) {
    for (int b : edges) {
      std::string s = "abcdefgh";
      s[3] = static_cast<char>(a);
      s[4] = static_cast<char>(b);
      INFO("bytes " << a << ", " << b);
      CHECK(is_ascii_without_nul(s) == ascii_without_nul_bytewise(s));
      CHECK(is_json_plain(s) == json_plain_bytewise(s));
    }
  }
}
