// The framed Snappy decoder against frames built with libsnappy, and against damage.
#include <catch2/catch.hpp>
#include <snappy.h>

#include "state/snappy_framed.h"
#include "support/byte_writer.h"

using namespace ckpt;

namespace {

void chunk(ByteWriter& w, uint8_t type, std::string_view body) {
  w.u8(type);
  w.u8(body.size() & 0xff);
  w.u8((body.size() >> 8) & 0xff);
  w.u8((body.size() >> 16) & 0xff);
  w.bytes(body);
}

void identifier(ByteWriter& w) { chunk(w, 0xff, "sNaPpY"); }

void compressed(ByteWriter& w, std::string_view data) {
  std::string block;
  snappy::Compress(data.data(), data.size(), &block);
  chunk(w, 0x00, std::string(4, '\0') + block);  // checksum not verified, as in Flink
}

}  // namespace

TEST_CASE("framed snappy: compressed - uncompressed - skippable chunks and repeated streams", "[unit][state]") {
  // Two streams back to back, as the heap writer produces for two state blocks of one key group.
  std::string a(3000, 'a'), b = "tail bytes";
  ByteWriter w;
  identifier(w);
  compressed(w, a);
  chunk(w, 0xfe, "padding");
  identifier(w);
  chunk(w, 0x01, std::string(4, '\0') + b);
  ByteReader r(w.buffer(), 0x40);
  std::string out;
  REQUIRE(decode_snappy_framed(r, &out, 1 << 20).ok());
  CHECK(out == a + b);
}

TEST_CASE("framed snappy: a stream must start with its identifier unless told otherwise", "[unit][state]") {
  ByteWriter w;
  compressed(w, "hello");
  ByteReader r(w.buffer(), 0x100);
  std::string out;
  Status s = decode_snappy_framed(r, &out, 1 << 20);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().offset == 0x100u);
  CHECK(s.error().message.find("stream identifier") != std::string::npos);
  ByteReader again(w.buffer(), 0x100);
  out.clear();
  REQUIRE(decode_snappy_framed(again, &out, 1 << 20, /*expect_identifier=*/false).ok());
  CHECK(out == "hello");
}

TEST_CASE("framed snappy: damaged blocks - reserved chunks - truncation and size limits are errors", "[unit][corrupt][state]") {
  std::string out;
  {
    ByteWriter w;
    identifier(w);
    chunk(w, 0x00, std::string(4, '\0') + "\xff\xff\xff\xff\x0f garbage");
    ByteReader r(w.buffer());
    Status s = decode_snappy_framed(r, &out, 1 << 20);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().offset == 10u);  // the chunk after the 10-byte identifier chunk
  }
  {
    ByteWriter w;
    identifier(w);
    chunk(w, 0x05, "x");
    ByteReader r(w.buffer());
    Status s = decode_snappy_framed(r, &out, 1 << 20);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message == "reserved unskippable snappy chunk type 0x05");
  }
  {
    ByteWriter w;
    identifier(w);
    compressed(w, std::string(1000, 'z'));
    std::string cut = w.buffer().substr(0, w.size() - 3);
    ByteReader r(cut);
    CHECK_FALSE(decode_snappy_framed(r, &out, 1 << 20).ok());
  }
  {
    ByteWriter w;
    identifier(w);
    compressed(w, std::string(60000, 'z'));
    ByteReader r(w.buffer());
    out.clear();
    Status s = decode_snappy_framed(r, &out, 1000);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.find("exceeds the limit") != std::string::npos);
  }
}
