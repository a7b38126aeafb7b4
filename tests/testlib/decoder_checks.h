// tests/testlib/decoder_checks.h - Catch helpers of the value-decoder tests: a versioned
// snapshot parsed whole, its decoder, and a value decoded from exactly its bytes with the JSON
// text path checked against the tree.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"

namespace ckpt::test {

// A versioned snapshot of a serializer without configuration (version 3).
inline std::string simple_versioned(const std::string& cls) {
  ByteWriter w;
  w.utf(cls);
  w.i32(3);
  return w.take();
}

// A CompositeTypeSerializerSnapshot: outer version and bytes, then the nested snapshots.
inline std::string composite(const std::string& cls, int32_t outer_version, const std::string& outer,
                      const std::vector<std::string>& nested) {
  ByteWriter w;
  w.utf(cls);
  w.i32(3);
  w.i32(911108);
  w.i32(outer_version);
  w.bytes(outer);
  w.i32(1333245);
  w.i32(1);
  w.i32(static_cast<int32_t>(nested.size()));
  for (const auto& n : nested) w.bytes(n);
  return w.take();
}


inline SerializerSnapshot parse_versioned(const std::string& versioned) {
  ByteReader r(versioned);
  auto s = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
  REQUIRE(s.ok());
  CHECK(r.at_end());
  return std::move(s).value();
}

// The decoder of a versioned snapshot, which must decode values.
inline std::unique_ptr<ValueDecoder> decodable_decoder(const std::string& versioned) {
  auto d = make_decoder(parse_versioned(versioned));
  REQUIRE(d.ok());
  REQUIRE((*d)->decodable());
  return std::move(d).value();
}

// A value read from bytes that must be used exactly, and read again through the JSON-text path.
inline nlohmann::json decode_exactly(const ValueDecoder& d, const std::string& bytes) {
  ByteReader r(bytes);
  auto v = decode_framed(d, r, bytes.size());
  REQUIRE(v.ok());
  ByteReader t(bytes);
  std::string text;
  REQUIRE(decode_framed_json(d, t, bytes.size(), text).ok());
  CHECK(nlohmann::json::parse(text) == *v);
  return *v;
}

}  // namespace ckpt::test
