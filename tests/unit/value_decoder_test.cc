// Value decoders on hand-built bytes: encodings, nulls, errors, framing and key groups.
#include <catch2/catch.hpp>

#include "state/serializer_snapshot.h"
#include "state/value_decoder.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"

using namespace ckpt;
using nlohmann::json;

namespace {

std::unique_ptr<ValueDecoder> decoder_for(const std::string& versioned_snapshot) {
  ByteReader r(versioned_snapshot);
  auto s = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
  REQUIRE(s.ok());
  auto d = make_decoder(*s);
  REQUIRE(d.ok());
  return std::move(d).value();
}

std::string simple(const std::string& cls) {
  ByteWriter w;
  w.utf(cls);
  w.i32(3);
  return w.take();
}

std::string composite(const std::string& cls, int32_t outer_version, const std::string& outer,
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

const std::string kLong = simple("org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot");
const std::string kString =
    simple("org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot");

json decode(const ValueDecoder& d, const std::string& bytes) {
  ByteReader r(bytes);
  auto v = decode_framed(d, r, bytes.size());
  REQUIRE(v.ok());
  return *v;
}

}  // namespace

TEST_CASE("strings decode null, empty, non-ASCII and lone surrogates the way StringValue wrote them", "[unit]") {
  // Proves the varint7 length + 1 and the UTF-16 code unit decoding.
  auto d = decoder_for(kString);
  CHECK(decode(*d, std::string("\x00", 1)).is_null());
  CHECK(decode(*d, "\x01") == "");
  CHECK(decode(*d, "\x03h\x69") == "hi");
  CHECK(decode(*d, "\x02\xe9\x01") == "\xc3\xa9");              // U+00E9 as two groups
  CHECK(decode(*d, "\x03\xbd\xb0\x03\x80\xbc\x03") == "\xf0\x9f\x98\x80");  // a surrogate pair joins
  CHECK(decode(*d, "\x02\x80\xb8\x03") == "\xed\xb0\x80");         // a lone low surrogate stays
  CHECK(d->fixed_length() == -1);
}

TEST_CASE("a truncated value fails at the offset where bytes ran out, and framing checks the length", "[unit][corrupt]") {
  // Proves decode errors carry absolute offsets and that a frame must be used exactly.
  auto d = decoder_for(composite("org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot", 1, "", {kLong}));
  ByteWriter w;
  w.i32(2);
  w.i64(7);
  w.i32(0);  // half of the second element
  ByteReader r(w.buffer(), 0x1000);
  auto v = decode_framed(*d, r, w.size());
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().offset == 0x100cu);

  ByteWriter longer;
  longer.i32(1);
  longer.i64(7);
  longer.u8(0);
  ByteReader l(longer.buffer(), 0x20);
  auto extra = decode_framed(*d, l, longer.size());
  REQUIRE_FALSE(extra.ok());
  CHECK(extra.error().offset == 0x20u + 12);
  CHECK(extra.error().message.find("1 bytes before the end of its 13-byte frame") != std::string::npos);
}

TEST_CASE("maps, nullables, TTL values and timers decode to the documented JSON", "[unit]") {
  // Proves the container encodings of flink-serializers.md §3 with hand-computed bytes.
  auto map = decoder_for(composite("org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot", 1, "",
                                   {kString, kLong}));
  ByteWriter m;
  m.i32(2);
  m.bytes("\x02" "a");
  m.u8(0);
  m.i64(-1);
  m.bytes("\x02" "b");
  m.u8(1);  // null value
  CHECK(decode(*map, m.buffer()) == json::parse(R"([["a",-1],["b",null]])"));

  ByteWriter pad;
  pad.i32(8);
  auto nullable = decoder_for(composite(
      "org.apache.flink.api.java.typeutils.runtime.NullableSerializer$NullableSerializerSnapshot", 2, pad.buffer(),
      {kLong}));
  CHECK(nullable->fixed_length() == 9);
  CHECK(decode(*nullable, std::string("\x00\0\0\0\0\0\0\0\x07", 9)) == 7);
  CHECK(decode(*nullable, std::string("\x01\0\0\0\0\0\0\0\0", 9)).is_null());

  auto ttl = decoder_for(composite("org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializerSnapshot", 2,
                                   "", {kLong, kString}));
  ByteWriter t;
  t.i64(1700000000000);
  t.bytes("\x03ok");
  CHECK(decode(*ttl, t.buffer()) == json::parse(R"({"ttl_ts":1700000000000,"value":"ok"})"));

  auto timer = decoder_for(composite("org.apache.flink.streaming.api.operators.TimerSerializerSnapshot", 2, "",
                                     {kLong, simple("org.apache.flink.runtime.state.VoidNamespaceSerializer$"
                                                    "VoidNamespaceSerializerSnapshot")}));
  ByteWriter tm;
  tm.u64(uint64_t{5} ^ 0x8000000000000000ULL);
  tm.i64(42);
  tm.u8(0);
  CHECK(decode(*timer, tm.buffer()) == json::parse(R"({"timestamp":5,"key":42,"namespace":"VoidNamespace"})"));
  CHECK(timer->fixed_length() == 16);  // VoidNamespace counts 0, as in Flink
}

TEST_CASE("an opaque serializer is hex with a reason when framed and an error when not", "[unit]") {
  // Proves what cannot be decoded without user code never stops a framed dump and never guesses.
  auto d = decoder_for(simple("org.apache.flink.runtime.state.JavaSerializer$JavaSerializerSnapshot"));
  CHECK_FALSE(d->decodable());
  CHECK(decode(*d, "\xac\xed") == json::parse(R"({"hex":"aced","why":"java serialization needs the job's classes"})"));
  ByteReader r(std::string_view("\xac\xed"), 0x30);
  json v;
  d->read(r, v);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error()->code == ErrorCode::kNotSupported);
  CHECK(r.error()->offset == 0x30u);
}

TEST_CASE("key groups recomputed from keys follow Flink's murmur hash of the Java hashCode", "[unit]") {
  // Proves hashCode and KeyGroupRangeAssignment against values Flink itself stored: in the
  // 1.20 corpus job (maxParallelism 4) Tuple1<Long> keys 0, 1, 2, 3 sit in key groups 2, 2, 3, 1.
  auto key = decoder_for(composite("org.apache.flink.api.java.typeutils.runtime.TupleSerializerSnapshot", 2,
                                   std::string("\x00\x26", 2) + "org.apache.flink.api.java.tuple.Tuple1", {kLong}));
  const int expected[] = {2, 2, 3, 1};
  for (int k = 0; k < 4; ++k) CHECK(compute_key_group(*key, json::array({k}), 4) == expected[k]);
  // Java: "hello".hashCode() == 99162322, Long.hashCode(-1) == 0, Boolean.TRUE.hashCode() == 1231.
  CHECK(java_string_hash("hello") == 99162322);
  CHECK(java_string_hash("\xf0\x9f\x98\x80") == 1772899);  // "\uD83D\uDE00".hashCode(), checked with a JVM
  auto l = decoder_for(kLong);
  CHECK(l->java_hash_code(json(-1)) == 0);
  CHECK(flink_murmur_hash(0) >= 0);
  CHECK(key_group_for_hash(0, 128) == flink_murmur_hash(0) % 128);
}
