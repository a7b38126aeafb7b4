// Flink's StringValue strings: skipping one ends exactly where reading it ends, whether its
// units are ASCII (skipped as a run) or multi-byte, and a string cut short is an error either way.
#include <catch2/catch.hpp>

#include <string>

#include "types/flink_string.h"

using namespace ckpt;

TEST_CASE("skipping a flink string ends where reading it ends - for ascii and multi-byte units", "[unit][state]") {
  // Proves the ASCII run and the per-unit varint path agree: "ab€c" (the euro sign is the
  // two-byte unit ac 41) is followed by a marker byte that both must stop in front of.
  const std::string bytes("\x05" "ab" "\xac\x41" "c" "\x7e", 7);
  ByteReader read(bytes);
  std::string text;
  REQUIRE(read_flink_string(read, &text));
  CHECK(text == "ab\xe2\x82\xac" "c");
  CHECK(read.position() == 6);
  ByteReader skip(bytes);
  skip_flink_string(skip);
  REQUIRE(skip.ok());
  CHECK(skip.position() == 6);
  CHECK(skip.u8() == 0x7e);

  const std::string ascii("\x04" "xyz" "\x7e", 5);
  ByteReader r(ascii);
  skip_flink_string(r);
  CHECK(r.position() == 4);
}

TEST_CASE("a flink string cut short is an error when skipped", "[unit][state]") {
  // Proves both failure paths: more units than bytes left (refused up front), and a last unit
  // whose bytes run out after an ASCII run and a two-byte unit have been skipped.
  const std::string too_long_bytes("\x05" "ab\xac", 4);
  ByteReader too_long(too_long_bytes);
  skip_flink_string(too_long);
  REQUIRE_FALSE(too_long.ok());
  CHECK(too_long.error()->message.find("needs at least 4 bytes") != std::string::npos);

  const std::string cut_bytes("\x04" "a\xac\x62", 4);  // three units: 'a', ac 62, then nothing
  ByteReader cut(cut_bytes);
  skip_flink_string(cut);
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error()->message.find("unexpected end of data") != std::string::npos);
}

TEST_CASE("a flink string keeps its ascii run and pairs the surrogates after it - and a cut one leaves nothing", "[unit][state]") {
  // "ab" then U+1F600 as its surrogate pair d83d de00 (units as varint7: bd b0 03, 80 bc 03):
  // the ASCII run is copied whole, the rest converted unit by unit.
  const std::string bytes("\x05" "ab" "\xbd\xb0\x03" "\x80\xbc\x03" "\x7e", 10);
  ByteReader read(bytes);
  std::string text;
  REQUIRE(read_flink_string(read, &text));
  CHECK(text == "ab\xf0\x9f\x98\x80");
  CHECK(read.position() == 9);

  const std::string cut_bytes("\x04" "ab\xac", 4);  // 'a', 'b', then a unit whose bytes run out
  ByteReader cut(cut_bytes);
  std::string partial = "stale";
  CHECK_FALSE(read_flink_string(cut, &partial));
  CHECK_FALSE(cut.ok());
  CHECK(partial.empty());
}
