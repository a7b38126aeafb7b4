// Value decoders on hand-built bytes: encodings, nulls, errors, framing and key groups.
#include <catch2/catch.hpp>

#include <map>

#include "ckpt/entries.h"
#include "ckpt/metadata.h"

#include "types/java_hash.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/decoder_checks.h"
#include "testlib/test_support.h"

using namespace ckpt;
using ckpt::test::composite;
using ckpt::test::simple_versioned;
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

const std::string kLongVersioned =
    simple_versioned("org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot");
const std::string kStringVersioned =
    simple_versioned("org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot");

json decode(const ValueDecoder& d, const std::string& bytes) {
  ByteReader r(bytes);
  auto v = decode_framed(d, r, bytes.size());
  REQUIRE(v.ok());
  return *v;
}

}  // namespace

TEST_CASE("strings decode null - empty - non-ASCII and lone surrogates the way StringValue wrote them", "[unit][state]") {
  // Proves the varint7 length + 1 and the UTF-16 code unit decoding.
  auto d = decoder_for(kStringVersioned);
  CHECK(decode(*d, std::string("\x00", 1)).is_null());
  CHECK(decode(*d, "\x01") == "");
  CHECK(decode(*d, "\x03h\x69") == "hi");
  CHECK(decode(*d, "\x02\xe9\x01") == "\xc3\xa9");              // U+00E9 as two groups
  CHECK(decode(*d, "\x03\xbd\xb0\x03\x80\xbc\x03") == "\xf0\x9f\x98\x80");  // a surrogate pair joins
  CHECK(decode(*d, "\x02\x80\xb8\x03") == "\xed\xb0\x80");         // a lone low surrogate stays
  CHECK(d->fixed_length() == -1);
}

TEST_CASE("a truncated value fails at the offset where bytes ran out - and framing checks the length", "[unit][corrupt][state]") {
  // Proves decode errors carry absolute offsets and that a frame must be used exactly.
  auto d = decoder_for(
      composite("org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot", 1, "", {kLongVersioned}));
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

TEST_CASE("maps - nullables - TTL values and timers decode to the documented JSON", "[unit][state]") {
  // Proves the container encodings of formats/serializers.md §6 with hand-computed bytes.
  auto map = decoder_for(composite("org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot", 1, "",
                                   {kStringVersioned, kLongVersioned}));
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
  auto nullable =
      decoder_for(composite("org.apache.flink.api.java.typeutils.runtime.NullableSerializer$NullableSerializerSnapshot",
                            2, pad.buffer(), {kLongVersioned}));
  CHECK(nullable->fixed_length() == 9);
  CHECK(decode(*nullable, std::string("\x00\0\0\0\0\0\0\0\x07", 9)) == 7);
  CHECK(decode(*nullable, std::string("\x01\0\0\0\0\0\0\0\0", 9)).is_null());

  auto ttl = decoder_for(composite("org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializerSnapshot", 2, "",
                                   {kLongVersioned, kStringVersioned}));
  ByteWriter t;
  t.i64(1700000000000);
  t.bytes("\x03ok");
  CHECK(decode(*ttl, t.buffer()) == json::parse(R"({"ttl_ts":1700000000000,"value":"ok"})"));

  auto timer =
      decoder_for(composite("org.apache.flink.streaming.api.operators.TimerSerializerSnapshot", 2, "",
                            {kLongVersioned, simple_versioned("org.apache.flink.runtime.state.VoidNamespaceSerializer$"
                                                              "VoidNamespaceSerializerSnapshot")}));
  ByteWriter tm;
  tm.u64(uint64_t{5} ^ 0x8000000000000000ULL);
  tm.i64(42);
  tm.u8(0);
  CHECK(decode(*timer, tm.buffer()) == json::parse(R"({"timestamp":5,"key":42,"namespace":"VoidNamespace"})"));
  CHECK(timer->fixed_length() == 16);  // VoidNamespace counts 0, as in Flink
}

TEST_CASE("an opaque serializer is hex with a reason when framed and an error when not", "[unit][state]") {
  // Proves what cannot be decoded without user code never stops a framed dump and never guesses.
  // A user Value type writes itself (Java-serialized values are decoded: java_values_test.cc).
  ByteWriter user;
  (void)user.utf("org.apache.flink.api.java.typeutils.runtime.ValueSerializer$ValueSerializerSnapshot");
  user.i32(3);
  (void)user.utf("com.example.Counter");
  auto d = decoder_for(user.buffer());
  CHECK_FALSE(d->decodable());
  CHECK(decode(*d, "\xac\xed") == json({{"hex", "aced"}, {"why", "com.example.Counter serializes itself (user code)"}}));
  ByteReader r(std::string_view("\xac\xed"), 0x30);
  json v;
  d->read(r, v);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error()->code == ErrorCode::kNotSupported);
  CHECK(r.error()->offset == 0x30u);
}

TEST_CASE("key groups recomputed from keys follow Flink's murmur hash of the Java hashCode", "[unit][state]") {
  // Proves hashCode and KeyGroupRangeAssignment against values Flink itself stored: in the
  // 1.20 corpus job (maxParallelism 4) Tuple1<Long> keys 0, 1, 2, 3 sit in key groups 2, 2, 3, 1.
  auto key =
      decoder_for(composite("org.apache.flink.api.java.typeutils.runtime.TupleSerializerSnapshot", 2,
                            std::string("\x00\x26", 2) + "org.apache.flink.api.java.tuple.Tuple1", {kLongVersioned}));
  const int expected[] = {2, 2, 3, 1};
  for (int k = 0; k < 4; ++k) CHECK(compute_key_group(*key, json::array({k}), 4) == expected[k]);
  // Java: "hello".hashCode() == 99162322, Long.hashCode(-1) == 0, Boolean.TRUE.hashCode() == 1231.
  CHECK(java_string_hash("hello") == 99162322);
  CHECK(java_string_hash("\xf0\x9f\x98\x80") == 1772899);  // "\uD83D\uDE00".hashCode(), checked with a JVM
  auto l = decoder_for(kLongVersioned);
  CHECK(l->java_hash_code(json(-1)) == 0);
  CHECK(flink_murmur_hash(0) >= 0);
  CHECK(key_group_for_hash(0, 128) == flink_murmur_hash(0) % 128);
}

namespace {

// Five Java-serialized LogicalTypes as RowDataSerializerSnapshot stores them: INT NOT NULL,
// VARCHAR(10), DECIMAL(20, 2), ROW<a BIGINT, b VARCHAR(5)>, ARRAY<INT>. Written by a JVM's
// ObjectOutputStream from stand-in classes with the package, names and serializable fields of
// Flink's org.apache.flink.table.types.logical classes (only the serialVersionUIDs differ,
// which the grammar carries but a reader need not check).
const char* kLogicalTypesHex =
    "aced00057372002c6f72672e6170616368652e666c696e6b2e7461626c652e74797065732e6c6f676963616c2e496e745479"
    "70650000000000000001020000787200306f72672e6170616368652e666c696e6b2e7461626c652e74797065732e6c6f6769"
    "63616c2e4c6f676963616c5479706500000000000000010200025a000a69734e756c6c61626c654c000874797065526f6f74"
    "7400364c6f72672f6170616368652f666c696e6b2f7461626c652f74797065732f6c6f676963616c2f4c6f676963616c5479"
    "7065526f6f743b7870007e7200346f72672e6170616368652e666c696e6b2e7461626c652e74797065732e6c6f676963616c"
    "2e4c6f676963616c54797065526f6f7400000000000000001200007872000e6a6176612e6c616e672e456e756d0000000000"
    "0000001200007870740007494e5445474552aced0005737200306f72672e6170616368652e666c696e6b2e7461626c652e74"
    "797065732e6c6f676963616c2e566172436861725479706500000000000000010200014900066c656e677468787200306f72"
    "672e6170616368652e666c696e6b2e7461626c652e74797065732e6c6f676963616c2e4c6f676963616c5479706500000000"
    "000000010200025a000a69734e756c6c61626c654c000874797065526f6f747400364c6f72672f6170616368652f666c696e"
    "6b2f7461626c652f74797065732f6c6f676963616c2f4c6f676963616c54797065526f6f743b7870017e7200346f72672e61"
    "70616368652e666c696e6b2e7461626c652e74797065732e6c6f676963616c2e4c6f676963616c54797065526f6f74000000"
    "00000000001200007872000e6a6176612e6c616e672e456e756d000000000000000012000078707400075641524348415200"
    "00000aaced0005737200306f72672e6170616368652e666c696e6b2e7461626c652e74797065732e6c6f676963616c2e4465"
    "63696d616c547970650000000000000001020002490009707265636973696f6e4900057363616c65787200306f72672e6170"
    "616368652e666c696e6b2e7461626c652e74797065732e6c6f676963616c2e4c6f676963616c547970650000000000000001"
    "0200025a000a69734e756c6c61626c654c000874797065526f6f747400364c6f72672f6170616368652f666c696e6b2f7461"
    "626c652f74797065732f6c6f676963616c2f4c6f676963616c54797065526f6f743b7870017e7200346f72672e6170616368"
    "652e666c696e6b2e7461626c652e74797065732e6c6f676963616c2e4c6f676963616c54797065526f6f7400000000000000"
    "001200007872000e6a6176612e6c616e672e456e756d00000000000000001200007870740007444543494d414c0000001400"
    "000002aced00057372002c6f72672e6170616368652e666c696e6b2e7461626c652e74797065732e6c6f676963616c2e526f"
    "775479706500000000000000010200014c00066669656c64737400104c6a6176612f7574696c2f4c6973743b787200306f72"
    "672e6170616368652e666c696e6b2e7461626c652e74797065732e6c6f676963616c2e4c6f676963616c5479706500000000"
    "000000010200025a000a69734e756c6c61626c654c000874797065526f6f747400364c6f72672f6170616368652f666c696e"
    "6b2f7461626c652f74797065732f6c6f676963616c2f4c6f676963616c54797065526f6f743b7870017e7200346f72672e61"
    "70616368652e666c696e6b2e7461626c652e74797065732e6c6f676963616c2e4c6f676963616c54797065526f6f74000000"
    "00000000001200007872000e6a6176612e6c616e672e456e756d00000000000000001200007870740003524f57737200266a"
    "6176612e7574696c2e436f6c6c656374696f6e7324556e6d6f6469666961626c654c697374fc0f2531b5ec8e100200014c00"
    "046c69737471007e00017872002c6a6176612e7574696c2e436f6c6c656374696f6e7324556e6d6f6469666961626c65436f"
    "6c6c656374696f6e19420080cb5ef71e0200014c0001637400164c6a6176612f7574696c2f436f6c6c656374696f6e3b7870"
    "737200136a6176612e7574696c2e41727261794c6973747881d21d99c7619d03000149000473697a65787000000002770400"
    "000002737200356f72672e6170616368652e666c696e6b2e7461626c652e74797065732e6c6f676963616c2e526f77547970"
    "6524526f774669656c6400000000000000010200034c000b6465736372697074696f6e7400124c6a6176612f6c616e672f53"
    "7472696e673b4c00046e616d6571007e00104c0004747970657400324c6f72672f6170616368652f666c696e6b2f7461626c"
    "652f74797065732f6c6f676963616c2f4c6f676963616c547970653b787070740001617372002f6f72672e6170616368652e"
    "666c696e6b2e7461626c652e74797065732e6c6f676963616c2e426967496e74547970650000000000000001020000787100"
    "7e0002017e71007e0005740006424947494e547371007e000f7074000162737200306f72672e6170616368652e666c696e6b"
    "2e7461626c652e74797065732e6c6f676963616c2e566172436861725479706500000000000000010200014900066c656e67"
    "74687871007e0002017e71007e000574000756415243484152000000057871007e000eaced00057372002e6f72672e617061"
    "6368652e666c696e6b2e7461626c652e74797065732e6c6f676963616c2e4172726179547970650000000000000001020001"
    "4c000b656c656d656e74547970657400324c6f72672f6170616368652f666c696e6b2f7461626c652f74797065732f6c6f67"
    "6963616c2f4c6f676963616c547970653b787200306f72672e6170616368652e666c696e6b2e7461626c652e74797065732e"
    "6c6f676963616c2e4c6f676963616c5479706500000000000000010200025a000a69734e756c6c61626c654c000874797065"
    "526f6f747400364c6f72672f6170616368652f666c696e6b2f7461626c652f74797065732f6c6f676963616c2f4c6f676963"
    "616c54797065526f6f743b7870017e7200346f72672e6170616368652e666c696e6b2e7461626c652e74797065732e6c6f67"
    "6963616c2e4c6f676963616c54797065526f6f7400000000000000001200007872000e6a6176612e6c616e672e456e756d00"
    "00000000000000120000787074000541525241597372002c6f72672e6170616368652e666c696e6b2e7461626c652e747970"
    "65732e6c6f676963616c2e496e745479706500000000000000010200007871007e0002017e71007e0005740007494e544547"
    "4552";

std::string unhex(std::string_view h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<char>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  return out;
}

void le(std::string& b, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[at + static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

}  // namespace

TEST_CASE("SQL RowData values decode every field from the logical types in the snapshot", "[unit][state]") {
  // Proves the Java-serialized LogicalTypes are understood and the BinaryRowData layout (null
  // bits, inline and variable-length strings, non-compact decimals, nested rows and arrays)
  // is read field by field; the row bytes are laid out here by hand from BinaryRowData.java.
  ByteWriter snap;
  snap.utf("org.apache.flink.table.runtime.typeutils.RowDataSerializer$RowDataSerializerSnapshot");
  snap.i32(3);
  snap.i32(5);
  snap.bytes(unhex(kLogicalTypesHex));
  snap.i32(1333245);
  snap.i32(1);
  snap.i32(5);
  for (int i = 0; i < 5; ++i) snap.bytes(kLongVersioned);  // field serializers: not needed for the binary layout
  ByteReader sr(snap.buffer());
  auto s = read_serializer_snapshot(sr, SnapshotFraming::kVersioned);
  REQUIRE(s.ok());
  CHECK(sr.at_end());
  REQUIRE(s->logical_types_decoded);
  REQUIRE(s->logical_types.size() == 5);
  CHECK(s->logical_types[0].root == "INTEGER");
  CHECK_FALSE(s->logical_types[0].nullable);
  CHECK(s->logical_types[1].length == 10);
  CHECK(s->logical_types[2].precision == 20);
  CHECK(s->logical_types[2].scale == 2);
  CHECK(s->logical_types[3].field_names == std::vector<std::string>{"a", "b"});
  CHECK(s->logical_types[4].children.at(0).root == "INTEGER");
  auto d = make_decoder(*s);
  REQUIRE(d.ok());

  std::string row(128, '\0');
  le(row, 8, 7, 4);                                   // INT 7
  le(row, 16, (uint64_t{48} << 32) | 12, 8);          // VARCHAR: 12 bytes at 48
  row.replace(48, 12, "hello world!");
  le(row, 24, (uint64_t{64} << 32) | 9, 8);           // DECIMAL(20,2): 9 bytes at 64
  row[64] = 0x40;                                     // 2^70, big endian
  le(row, 32, (uint64_t{80} << 32) | 24, 8);          // ROW: 24 bytes at 80
  le(row, 88, static_cast<uint64_t>(-5), 8);          //   a = -5
  row.replace(96, 3, "abc");                          //   b = "abc" inline
  row[103] = static_cast<char>(0x83);
  le(row, 40, (uint64_t{104} << 32) | 20, 8);         // ARRAY<INT>: 20 bytes at 104
  le(row, 104, 3, 4);                                 //   3 elements
  row[108] = 0x02;                                    //   the second is null
  le(row, 112, 1, 4);
  le(row, 120, 3, 4);
  ByteWriter value;
  value.i32(static_cast<int32_t>(row.size()));
  value.bytes(row);
  CHECK(decode(**d, value.buffer()) == json::parse(R"({"kind":"+I","fields":[7,"hello world!",
      {"unscaled":"1180591620717411303424","scale":2},{"kind":"+I","fields":[-5,"abc"]},[1,null,3]]})"));

  // A string pointing past its row is corruption at the row, not a read past the buffer.
  le(row, 16, (uint64_t{120} << 32) | 12, 8);
  ByteWriter bad;
  bad.i32(static_cast<int32_t>(row.size()));
  bad.bytes(row);
  ByteReader br(bad.buffer(), 0x500);
  auto v = decode_framed(**d, br, bad.size());
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().offset == 0x504u);
}

namespace {

const std::string kRow = "org.apache.flink.api.java.typeutils.runtime.RowSerializer$RowSerializerSnapshot";
const std::string kList = "org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot";

}  // namespace

TEST_CASE("BigInteger hashCode folds the magnitude's 32-bit words and takes the sign", "[unit][state]") {
  // 2^32 has mag {1, 0}: 31 * 1 + 0; -(2^32 + 5): -(31 + 5); 2^64 (printed as a string) has
  // mag {1, 0, 0}: 31 * 31; small values are their own hash; zero is 0.
  auto d = decoder_for(
      simple_versioned("org.apache.flink.api.common.typeutils.base.BigIntSerializer$BigIntSerializerSnapshot"));
  CHECK(d->java_hash_code(json(0)) == 0);
  CHECK(d->java_hash_code(json(7)) == 7);
  CHECK(d->java_hash_code(json(-1)) == -1);
  CHECK(d->java_hash_code(json(int64_t{4294967296})) == 31);
  CHECK(d->java_hash_code(json(int64_t{-4294967301})) == -36);
  CHECK(d->java_hash_code(json("18446744073709551616")) == 961);
  CHECK(d->java_hash_code(json("-18446744073709551616")) == -961);
  // Long.MIN_VALUE: mag {0x80000000, 0}, 31 * 2^31 wraps to 2^31, times -1 stays -2^31.
  CHECK(java_big_integer_hash(json(INT64_MIN)) == INT32_MIN);
  CHECK_FALSE(java_big_integer_hash(json("12a")).has_value());
  CHECK_FALSE(d->java_hash_code(json(nullptr)).has_value());
}

TEST_CASE("BigDecimal hashCode is 31 times the unscaled value's hash plus the scale", "[unit][state]") {
  // 123.45 = 12345 x 10^-2: 31 * 12345 + 2; -1E+3 = -1 x 10^3: 31 * -1 - 3.
  auto d = decoder_for(
      simple_versioned("org.apache.flink.api.common.typeutils.base.BigDecSerializer$BigDecSerializerSnapshot"));
  CHECK(d->java_hash_code(json{{"unscaled", 12345}, {"scale", 2}}) == 382697);
  CHECK(d->java_hash_code(json{{"unscaled", -1}, {"scale", -3}}) == -34);
  CHECK(d->java_hash_code(json{{"unscaled", "18446744073709551616"}, {"scale", 0}}) == 31 * 961);
  CHECK_FALSE(d->java_hash_code(json{{"unscaled", 1}}).has_value());
}

TEST_CASE("Row hashCode follows the Flink version its snapshot names", "[unit][state]") {
  // Row.of(1L, "a"): up to Flink 1.10 Arrays.deepHashCode = 31 * (31 + 1) + 97 = 1089; from 1.13
  // 31 * kind + (31 * (31 + (31 + 1)) + (31 + 97)) = 31 * kind + 2081; 1.11/1.12 not recomputed.
  json row = json::parse(R"({"kind":"+I","fields":[1,"a"]})");
  auto legacy = decoder_for(composite(kRow, 2, "", {kLongVersioned, kStringVersioned}));
  CHECK(legacy->java_hash_code(row) == 1089);
  auto v3 = decoder_for(composite(kRow, 3, "", {kLongVersioned, kStringVersioned}));
  CHECK_FALSE(v3->java_hash_code(row).has_value());
  auto current = decoder_for(composite(kRow, 4, std::string(1, '\1'), {kLongVersioned, kStringVersioned}));
  CHECK(current->java_hash_code(row) == 2081);
  CHECK(current->java_hash_code(json::parse(R"({"kind":"-D","fields":[1,"a"]})")) == 31 * 3 + 2081);
  // A null field adds 0; a List field is folded deeply: [5] -> 31 * 1 + (31 + 5) = 67.
  CHECK(current->java_hash_code(json::parse(R"({"kind":"+I","fields":[null,"a"]})")) == 31 * (31 * 1 + 0) + 128);
  auto with_list = decoder_for(composite(kRow, 4, std::string(1, '\1'), {composite(kList, 1, "", {kLongVersioned})}));
  CHECK(with_list->java_hash_code(json::parse(R"({"kind":"+I","fields":[[5]]})")) == 31 * 1 + 67);
  // Tuple2(1L, "a") as a key, for comparison with Tuple's own rule: 31 * 1 + 97.
  auto tuple = decoder_for(composite("org.apache.flink.api.java.typeutils.runtime.TupleSerializerSnapshot", 1,
                                     [] {
                                       ByteWriter w;
                                       w.utf("org.apache.flink.api.java.tuple.Tuple2");
                                       return w.take();
                                     }(),
                                     {kLongVersioned, kStringVersioned}));
  CHECK(tuple->java_hash_code(json::parse(R"([1,"a"])")) == 128);
}

TEST_CASE("a SQL row's hashCode is Flink's MurmurHash over its bytes as BinaryRowData computes it", "[unit][state]") {
  // BinaryRowData#hashCode: MurmurHashUtils.hashBytesByWords, seed 42, over little-endian words.
  // Expected values computed apart (a few lines of Python from MurmurHashUtils.java) for the
  // row (BIGINT 42), the row (BIGINT -1) and no bytes at all.
  ByteWriter row42, row_minus1;
  row42.bytes(std::string(8, '\0'));  // header: RowKind INSERT, no null bit
  row42.u64le(42);
  row_minus1.bytes(std::string(8, '\0'));
  row_minus1.u64le(~uint64_t{0});
  CHECK(flink_binary_section_hash(row42.buffer()) == 907821237);
  CHECK(flink_binary_section_hash(row_minus1.buffer()) == -821098432);
  CHECK(flink_binary_section_hash("") == 142593372);
  CHECK_FALSE(flink_binary_section_hash("abc").has_value());  // not whole words: no row of Flink's
  // Through the key serializer: RowDataSerializer writes an i32 length, then the row. The
  // decoder hashes the bytes whatever its field types (none are known here).
  ByteWriter snap;
  snap.utf("org.apache.flink.table.runtime.typeutils.BinaryRowDataSerializer$BinaryRowDataSerializerSnapshot");
  snap.i32(1);
  snap.i32(1);  // arity
  auto d = decoder_for(snap.take());
  ByteWriter key;
  key.i32(static_cast<int32_t>(row42.buffer().size()));
  key.bytes(row42.buffer());
  key.u8(0x7f);  // what follows the key (a namespace) is not read
  ByteReader r(key.buffer());
  CHECK(d->read_java_hash_code(r) == 907821237);
  CHECK(r.position() == 4 + 16);
  // Truncated: no hash, and the reader's error.
  ByteReader cut(std::string_view(key.buffer()).substr(0, 10));
  CHECK_FALSE(d->read_java_hash_code(cut).has_value());
  CHECK_FALSE(cut.ok());
}

TEST_CASE("SQL keys hash from their bytes to the key groups Flink stored them in", "[unit][corpus][state][sql]") {
  // Every keyed entry and timer of every flink-sql savepoint: the key's bytes, hashed as
  // BinaryRowData does and assigned as KeyGroupRangeAssignment does, give Flink's key group.
  CKPT_REQUIRE_SHARED();
  size_t keys = 0;
  for (const std::string& dir : test::sql_corpus_snapshots()) {
    auto reader = EntryReader::open(dir);
    REQUIRE(reader.ok());
    std::map<std::string, int32_t> max_parallelism;
    for (const OperatorState& op : (*reader)->metadata().operators)
      max_parallelism[operator_id_hex(op.id)] = op.max_parallelism;
    Status s = (*reader)->for_each([&](const Entry& e) -> Status {
      if (e.kind == EntryKind::kOperator) return Status::OK();
      INFO(dir << " " << e.operator_id << " " << e.state);
      // A managed timer's key is inside its queue element, after the timestamp.
      std::string_view key = e.raw_key.empty() && e.kind == EntryKind::kTimer
                                 ? std::string_view(e.raw_value).substr(std::min<size_t>(8, e.raw_value.size()))
                                 : std::string_view(e.raw_key);
      REQUIRE(key.size() >= 4);
      ByteReader size_of(key);
      const int32_t n = size_of.i32();
      REQUIRE((n >= 0 && static_cast<size_t>(n) <= key.size() - 4));
      auto hash = flink_binary_section_hash(key.substr(4, static_cast<size_t>(n)));
      REQUIRE(hash);
      CHECK(key_group_for_hash(*hash, max_parallelism.at(e.operator_id)) == e.key_group);
      ++keys;
      return Status::OK();
    });
    REQUIRE(s.ok());
  }
  CHECK(keys > 400);
}

TEST_CASE("a POJO key's hashCode is user code - its key group is not recomputed", "[unit][corpus][state]") {
  // PojoSerializer defines no hashCode: compute_key_group says it cannot tell rather than guess.
  CKPT_REQUIRE_SHARED();
  std::string dir = test::shared_dir() + "/testdata/flink-serializers/pojo-serializer-identical-schema-1.20";
  std::string snapshot = test::read_file(dir + "/serializer-snapshot");
  ByteReader sr(snapshot);
  auto s = read_serializer_snapshot(sr, SnapshotFraming::kProxy);
  REQUIRE(s.ok());
  auto made = make_decoder(*s);
  REQUIRE(made.ok());
  auto& d = *made;
  std::string data = test::read_file(dir + "/test-data");
  ByteReader r(data);
  auto value = decode_framed(*d, r, data.size());
  REQUIRE(value.ok());
  REQUIRE(value->is_object());
  CHECK(value->contains("fields"));
  CHECK_FALSE(d->java_hash_code(*value).has_value());
  CHECK_FALSE(compute_key_group(*d, *value, 128).has_value());
}
