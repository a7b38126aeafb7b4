// The unified key-group framing: state runs, end marks, flag bits and damage.
#include <catch2/catch.hpp>

#include <vector>

#include "state/heap/canonical_stream.h"
#include "support/byte_writer.h"

using namespace ckpt;

namespace {

void write_pair(ByteWriter& w, std::string key, std::string_view value, bool last_of_state) {
  if (last_of_state) key[0] = static_cast<char>(key[0] | 0x80);
  w.i32(static_cast<int32_t>(key.size()));
  w.bytes(key);
  w.i32(static_cast<int32_t>(value.size()));
  w.bytes(value);
}

}  // namespace

TEST_CASE("canonical key group: pairs of two states - flag bit cleared - end mark", "[unit][state]") {
  ByteWriter w;
  w.u16(1);
  write_pair(w, std::string("\x05k1", 3), "v1", false);
  write_pair(w, std::string("\x05k2", 3), "v2", true);
  w.u16(0);
  write_pair(w, std::string("\x05k3", 3), "", true);
  w.u16(0xFFFF);
  ByteReader r(w.buffer(), 0x200);
  std::vector<std::tuple<int, std::string, std::string>> seen;
  Status s = parse_canonical_key_group(r, 2, [&](const CanonicalPair& p) {
    seen.emplace_back(p.state_id, p.key, std::string(p.value));
    return Status::OK();
  });
  REQUIRE(s.ok());
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == std::make_tuple(1, std::string("\x05k1", 3), std::string("v1")));
  CHECK(seen[1] == std::make_tuple(1, std::string("\x05k2", 3), std::string("v2")));
  CHECK(seen[2] == std::make_tuple(0, std::string("\x05k3", 3), std::string()));
}

TEST_CASE("canonical key group: bad state ids - trailing bytes and truncation name the offset", "[unit][corrupt][state]") {
  auto ok = [](const CanonicalPair&) { return Status::OK(); };
  {
    ByteWriter w;
    w.u16(7);
    ByteReader r(w.buffer(), 0x10);
    Status s = parse_canonical_key_group(r, 2, ok);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message == "state id 7 out of range: the stream registers 2 states");
    CHECK(s.error().offset == 0x10u);
  }
  {
    ByteWriter w;
    w.u16(0);
    write_pair(w, "\x01k", "v", true);
    w.u16(0xFFFF);
    w.u8(0);
    ByteReader r(w.buffer());
    Status s = parse_canonical_key_group(r, 1, ok);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message == "1 bytes after the end-of-key-group mark");
  }
  {
    ByteWriter w;
    w.u16(0);
    w.i32(1000);  // a key longer than what is left
    w.bytes("ab");
    ByteReader r(w.buffer(), 0x30);
    Status s = parse_canonical_key_group(r, 1, ok);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().offset == 0x32u);
  }
}
