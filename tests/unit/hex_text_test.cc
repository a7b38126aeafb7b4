// Hex text of raw bytes, as dump prints byte arrays and opaque values: appended in place after
// what the line already holds, the same digits as to_hex() for every byte value.
#include <catch2/catch.hpp>

#include <string>

#include "types/value_decoders.h"

using namespace ckpt;

TEST_CASE("hex of every byte value is appended after the text already there", "[unit][state]") {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  std::string out = "{\"bytes\":\"";
  decoders::append_hex(out, all);
  REQUIRE(out.size() == 10 + 512);
  CHECK(out.substr(0, 10) == "{\"bytes\":\"");
  CHECK(out.substr(10, 8) == "00010203");
  CHECK(out.substr(10 + 2 * 0x7e, 6) == "7e7f80");
  CHECK(out.substr(10 + 2 * 0xa9, 4) == "a9aa");
  CHECK(out.substr(out.size() - 4) == "feff");
  CHECK(out.substr(10) == decoders::to_hex(all));
  std::string empty = "x";
  decoders::append_hex(empty, "");
  CHECK(empty == "x");
}
