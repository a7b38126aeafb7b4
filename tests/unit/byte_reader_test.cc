// ByteReader: bounds, sticky errors, counts checked before allocation, modified UTF-8.
#include <catch2/catch.hpp>

#include <vector>

#include "support/byte_reader.h"
#include "support/byte_writer.h"

using namespace ckpt;

TEST_CASE("reads big-endian integers and reports truncation with the absolute offset", "[unit][support]") {
  const uint8_t bytes[] = {0x49, 0x60, 0x67, 0x2d, 0x00, 0x00};
  ByteReader r(bytes, sizeof bytes, 0x100);
  CHECK(r.u32() == 0x4960672du);
  CHECK(r.offset() == 0x104);
  CHECK(r.i32() == 0);  // only 2 bytes left
  REQUIRE_FALSE(r.ok());
  CHECK(r.error()->offset == 0x104u);
  CHECK(r.error()->message == "unexpected end of data: expected 4 bytes, found 2");
  CHECK(r.offset() == 0x104);  // a failed read does not move
  CHECK(r.u8() == 0);          // sticky
}

TEST_CASE("a count larger than the bytes left is rejected before any allocation", "[unit][support]") {
  const uint8_t bytes[] = {0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 4};
  ByteReader r(bytes, sizeof bytes);
  CHECK(r.count(8, "offset") == 0);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error()->offset == 0u);
  CHECK(r.error()->message.find("offset count 2147483647") != std::string::npos);

  const uint8_t neg[] = {0xff, 0xff, 0xff, 0xfe};
  ByteReader n(neg, sizeof neg);
  CHECK(n.count(1, "state") == 0);
  CHECK(n.error()->message == "negative state count -2");
}

TEST_CASE("modified UTF-8 round-trips NUL - BMP - supplementary characters and lone surrogates", "[unit][support]") {
  const std::string samples[] = {"plain", std::string("a\0b", 3), "\xc3\xa9t\xc3\xa9", "\xe2\x82\xac",
                                 "\xf0\x9f\x98\x80", "\xed\xa0\x80x"};
  for (const auto& s : samples) {
    ByteWriter w;
    REQUIRE(w.utf(s));
    ByteReader r(w.buffer());
    CHECK(r.utf() == s);
    CHECK(r.at_end());
    ByteWriter again;
    REQUIRE(again.utf(r.ok() ? s : ""));
    CHECK(again.buffer() == w.buffer());
  }
  // NUL is C0 80 and a supplementary character is two 3-byte surrogates.
  ByteWriter w;
  REQUIRE(w.utf(std::string("\0", 1) + "\xf0\x9f\x98\x80"));
  CHECK(w.buffer() == std::string("\x00\x08\xc0\x80\xed\xa0\xbd\xed\xb8\x80", 10));
}

TEST_CASE("every code point class of modified UTF-8 decodes to UTF-8 and encodes back to Java's bytes", "[unit][support]") {
  // The bytes DataOutput.writeUTF writes for each class (checked with a JVM), the UTF-8 ckpt
  // holds (a lone surrogate in its 3-byte WTF-8 form), and the UTF-16 units Java holds.
  struct Case {
    const char* what;
    std::string java;  // modified UTF-8
    std::string utf8;
    std::vector<uint16_t> units;
  };
  const Case cases[] = {
      {"ASCII", "A~", "A~", {0x41, 0x7E}},
      {"U+0000", std::string("\xc0\x80", 2), std::string("\0", 1), {0x0000}},
      {"2-byte", "\xc3\xa9\xdf\xbf", "\xc3\xa9\xdf\xbf", {0x00E9, 0x07FF}},
      {"3-byte", "\xe0\xa0\x80\xe2\x82\xac\xef\xbf\xbf", "\xe0\xa0\x80\xe2\x82\xac\xef\xbf\xbf", {0x0800, 0x20AC, 0xFFFF}},
      {"supplementary", "\xed\xa0\xbd\xed\xb8\x80", "\xf0\x9f\x98\x80", {0xD83D, 0xDE00}},
      {"last supplementary", "\xed\xaf\xbf\xed\xbf\xbf", "\xf4\x8f\xbf\xbf", {0xDBFF, 0xDFFF}},
      {"lone high surrogate", "\xed\xa0\x80x", "\xed\xa0\x80x", {0xD800, 0x78}},
      {"lone high surrogate at the end", "\xed\xa0\x80", "\xed\xa0\x80", {0xD800}},
      {"lone low surrogate", "\xed\xb0\x80", "\xed\xb0\x80", {0xDC00}},
      {"low then high", "\xed\xb0\x80\xed\xa0\x80", "\xed\xb0\x80\xed\xa0\x80", {0xDC00, 0xD800}},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    std::string utf8;
    REQUIRE(decode_modified_utf8(c.java, &utf8));
    CHECK(utf8 == c.utf8);
    CHECK(encode_modified_utf8(utf8) == c.java);
    // The same conversion from the units (StringValue's path) and back to them (hashCode's).
    std::string from_units;
    append_utf16_as_utf8(c.units.data(), c.units.size(), &from_units);
    CHECK(from_units == c.utf8);
    std::vector<uint16_t> units;
    for_each_utf16_unit(utf8, [&](uint16_t u) { units.push_back(u); });
    CHECK(units == c.units);
    std::string java;
    for (uint16_t u : units) append_modified_utf8_unit(&java, u);
    CHECK(java == c.java);
    // Through the reader and the writer, with writeUTF's length.
    ByteWriter w;
    REQUIRE(w.utf(utf8));
    CHECK(w.buffer().substr(2) == c.java);
    ByteReader r(w.buffer());
    CHECK(r.utf() == utf8);
    CHECK(r.at_end());
  }
  // A 4-byte form is never what Java writes: refused, as is a sequence cut short.
  std::string out;
  CHECK_FALSE(decode_modified_utf8("\xf0\x9f\x98\x80", &out));
  CHECK_FALSE(decode_modified_utf8("\xe2\x82", &out));
  CHECK_FALSE(decode_modified_utf8("\xc3", &out));
}

TEST_CASE("non-canonical modified UTF-8 is corruption - not silently normalised", "[unit][support]") {
  const uint8_t overlong[] = {0x00, 0x02, 0xc1, 0x81};  // 'A' in two bytes
  ByteReader r(overlong, sizeof overlong, 0x20);
  CHECK(r.utf().empty());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error()->offset == 0x20u);
  const uint8_t raw_nul[] = {0x00, 0x01, 0x00};
  ByteReader z(raw_nul, sizeof raw_nul);
  z.utf();
  CHECK_FALSE(z.ok());
}

TEST_CASE("varints are bounded in length", "[unit][support]") {
  const uint8_t v[] = {0xac, 0x02};
  ByteReader r(v, sizeof v);
  CHECK(r.varint() == 300);
  const uint8_t endless[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  ByteReader e(endless, sizeof endless);
  e.varint(5);
  CHECK_FALSE(e.ok());
}
