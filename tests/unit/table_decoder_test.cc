// The table runtime's serializers on bytes laid out as Flink's writers lay them out
// (tests/testlib/table_bytes.h) with LogicalTypes a JVM serialized (tests/testlib/java).
#include <catch2/catch.hpp>

#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/decoder_checks.h"
#include "testlib/table_bytes.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"

using namespace ckpt;
using namespace ckpt::test;
using nlohmann::json;

namespace {

Error value_decode_error(const ValueDecoder& d, const std::string& bytes, uint64_t base) {
  ByteReader r(bytes, base);
  auto v = decode_framed(d, r, bytes.size());
  REQUIRE_FALSE(v.ok());
  return v.error();
}

}  // namespace

TEST_CASE("a SQL row of every logical type decodes from its BinaryRowData", "[state][unit]") {
  // 31 fields: the fixed-width types in their slots, compact and non-compact DECIMAL and
  // TIMESTAMP / TIMESTAMP_LTZ, strings and byte strings inline and in the variable part,
  // intervals, a nested row of another kind, a structured type with a supertype (its
  // attributes named, the supertype's first), arrays, a map, a multiset, RAW values decoded by
  // the serializer their RawValueData snapshot nests or, without one, the one their RawType
  // names, a distinct type and a catalog structured type (laid out in tests/testlib/table_bytes.cc).
  auto snapshot = parse_versioned(every_type_row_snapshot());
  REQUIRE(snapshot.logical_types_decoded);
  CHECK(snapshot.logical_types[22].field_names == std::vector<std::string>{"x", "y", "z"});
  auto d = make_decoder(snapshot);
  REQUIRE(d.ok());
  std::string row = every_type_row();
  CHECK(decode_exactly(**d, sized(row)) == json::parse(R"({"kind":"+I","fields":[
      true, -5, -300, 123456, null, 1.5, -2.25,
      {"unscaled":12345,"scale":2}, {"unscaled":"100000000000000000001","scale":3},
      "abc", "héllo wörld", {"bytes":"0102"}, {"bytes":"00010203040506070809"},
      19000, 3600000,
      {"millis":1700000000123,"nano_of_milli":0}, {"millis":1700000000123,"nano_of_milli":456789},
      {"millis":-1,"nano_of_milli":0}, {"millis":5,"nano_of_milli":999000},
      14, 90061001,
      {"kind":"-U","fields":[7,"hi"]},
      {"class":"com.example.Point3","fields":{"x":1.0,"y":2.0,"z":null}},
      [{"millis":1,"nano_of_milli":2}, null],
      [["k",{"unscaled":5,"scale":3}], ["key-two-long",null]],
      [["x",2], ["y",1]],
      null, 42, 30,
      {"class":"cat.db.Money","fields":{"amount":{"unscaled":199,"scale":2}}},
      [null]]})"));

  // A nested value pointing past its row is corruption at the row, not a read past the buffer.
  std::string bad = row;
  bad[8 + 8 * 21 + 7] = 0x10;  // field 21's slot (after the 8-byte header): its offset now beyond the row
  CHECK(value_decode_error(**d, sized(bad), 0x700).offset == 0x704u);
}

TEST_CASE("ArrayData and MapData snapshots hold their types Java-serialized", "[state][unit]") {
  // ArrayDataSerializerSnapshot and MapDataSerializerSnapshot write their LogicalTypes, then
  // their element serializers, each with InstantiationUtil.serializeObject: the parser reads
  // the streams to find the body's end, keeps the bytes for writing back, and values are a
  // size and a BinaryArrayData / BinaryMapData.
  std::string array_snapshot = array_data_snapshot(from_hex(java_streams::kArrayConfig));
  std::string framed = proxy(array_snapshot) + std::string("\x00\x0bVALUE_AFTER", 13);
  ByteReader r(framed);
  auto s = read_serializer_snapshot(r, SnapshotFraming::kProxy);
  REQUIRE(s.ok());
  CHECK(r.position() == 4 + array_snapshot.size());
  REQUIRE(s->logical_types.size() == 1);
  CHECK(s->logical_types[0].root == "BIGINT");
  ByteWriter back;
  write_serializer_snapshot(back, *s, SnapshotFraming::kVersioned);
  CHECK(back.buffer() == array_snapshot);
  auto array = decodable_decoder(array_snapshot);
  BinaryArray longs(3, 8);
  longs.slot(0, 1).null(1).slot(2, static_cast<uint64_t>(-7));
  CHECK(decode_exactly(*array, sized(longs.bytes())) == json::parse("[1,null,-7]"));

  auto map = decodable_decoder(map_data_snapshot(from_hex(java_streams::kMapConfig)));
  BinaryArray keys(2, 8), values(2, 4);
  keys.binary(0, "a").binary(1, "a key over 7");
  values.slot(0, 10).null(1);
  CHECK(decode_exactly(*map, sized(binary_map(keys.bytes(), values.bytes()))) ==
        json::parse(R"([["a",10],["a key over 7",null]])"));

  // Keys and values of different counts are corruption at the map.
  BinaryArray one(1, 4);
  one.slot(0, 1);
  CHECK(value_decode_error(*map, sized(binary_map(keys.bytes(), one.bytes())), 0x40).offset == 0x44u);
}

TEST_CASE("ExternalSerializer values are its internal serializer's with structured attributes named", "[state][unit]") {
  // The snapshot nests the internal serializer and Java-serializes the DataType: a structured
  // type's internal RowDataSerializer knows only the attribute types, the DataType their names.
  auto point = decodable_decoder(external_snapshot(
      from_hex(java_streams::kPointDataType),
      row_data_snapshot(from_hex(java_streams::kTwoDoubles), 2, {double_snapshot(), double_snapshot()})));
  BinaryRow row(2);
  row.f64(0, 1.5).f64(1, -0.5);
  CHECK(decode_exactly(*point, sized(row.bytes())) ==
        json::parse(R"({"class":"com.example.Point","fields":{"x":1.5,"y":-0.5}})"));
  // A DataType that cannot be read only loses the names: the bytes are the internal Long's.
  auto number = decodable_decoder(external_snapshot("\x01\x02", long_snapshot()));
  CHECK(decode_exactly(*number, big_endian64(-3)) == json(-3));
}

TEST_CASE("RawValueData values decode through the serializer they nest or stay hex with the reason", "[state][unit]") {
  // RawValueDataSerializer writes a size, then what the inner serializer wrote: NullSerializer
  // one byte (null), LongSerializer eight, JavaSerializer one object stream (here the Integer
  // 26, as a JVM wrote it), and an inner value shorter than its frame is corruption.
  auto nulls = decodable_decoder(raw_value_snapshot(null_serializer_snapshot()));
  CHECK(decode_exactly(*nulls, sized(std::string(1, '\0'))) == json(nullptr));
  auto longs = decodable_decoder(raw_value_snapshot(long_snapshot()));
  CHECK(decode_exactly(*longs, sized(big_endian64(42))) == json(42));
  CHECK(value_decode_error(*longs, sized(big_endian64(42) + "x"), 0x10).offset == 0x1cu);
  auto java = decodable_decoder(
      raw_value_snapshot(simple_snapshot("org.apache.flink.runtime.state.JavaSerializer$JavaSerializerSnapshot")));
  const std::string integer_26 = from_hex(
      "aced0005737200116a6176612e6c616e672e496e746567657212e2a0a4f781873802000149000576616c7565787200106a617661"
      "2e6c616e672e4e756d62657286ac951d0b94e08b02000078700000001a");
  CHECK(decode_exactly(*java, sized(integer_26)) == json(26));
  CHECK(value_decode_error(*java, sized(integer_26 + "x"), 0x10).offset == 0x10u + 4 + integer_26.size());
}

TEST_CASE("DecimalData TimestampData StringData and NullSerializer values stand alone", "[state][unit]") {
  // Their snapshots carry precision (and scale): compact forms are one long, others a
  // length-prefixed BigInteger or millis plus nano-of-milli. The parameters end the body
  // exactly, so a snapshot followed by more data is not resynchronised.
  std::string decimal = decimal_snapshot(10, 2);
  std::string followed = decimal + "more";
  ByteReader r(followed);
  auto s = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
  REQUIRE(s.ok());
  CHECK_FALSE(s->resynced);
  CHECK(r.remaining() == 4);
  CHECK(decode_exactly(*decodable_decoder(decimal), big_endian64(-12345)) ==
        json::parse(R"({"unscaled":-12345,"scale":2})"));
  ByteWriter big;
  big.i32(static_cast<int32_t>(kBigUnscaled.size()));
  big.bytes(kBigUnscaled);
  CHECK(decode_exactly(*decodable_decoder(decimal_snapshot(25, 3)), big.buffer()) ==
        json::parse(R"({"unscaled":"100000000000000000001","scale":3})"));

  auto compact = decodable_decoder(timestamp_snapshot(3));
  CHECK(compact->fixed_length() == 8);
  CHECK(decode_exactly(*compact, big_endian64(1700000000123)) ==
        json::parse(R"({"millis":1700000000123,"nano_of_milli":0})"));
  auto precise = decodable_decoder(timestamp_snapshot(9));
  CHECK(precise->fixed_length() == 12);
  ByteWriter ts;
  ts.i64(-2);
  ts.i32(999999);
  CHECK(decode_exactly(*precise, ts.buffer()) == json::parse(R"({"millis":-2,"nano_of_milli":999999})"));

  CHECK(decode_exactly(*decodable_decoder(string_data_snapshot()), sized("h\xc3\xa9llo")) == json("héllo"));
  CHECK(decode_exactly(*decodable_decoder(null_serializer_snapshot()), std::string(1, '\0')) == json(nullptr));
}

TEST_CASE("SortedMap snapshots carry a comparator before their key and value serializers", "[state][unit]") {
  // SortedMapSerializerSnapshot Java-serializes its comparator, then nests key and value
  // snapshots; values are written as MapSerializer writes them (size, key, null flag, value).
  std::string snapshot = sorted_map_snapshot(from_hex(java_streams::kComparator), long_snapshot(), int_snapshot());
  auto s = parse_versioned(snapshot);
  CHECK(s.nested.size() == 2);
  auto d = decodable_decoder(snapshot);
  ByteWriter v;
  v.i32(2);
  v.i64(1);
  v.boolean(false);
  v.i32(5);
  v.i64(2);
  v.boolean(true);
  CHECK(decode_exactly(*d, v.buffer()) == json::parse("[[1,5],[2,null]]"));
}

TEST_CASE("a legacy config snapshot of a table serializer decodes from the serializer it Java-serializes", "[state][unit]") {
  // TypeSerializerConfigSnapshot (version 0x7A53C4F0) keeps the serializer itself: an
  // ArrayDataSerializer of INT gives its element type, the values are ArrayData.
  auto s = parse_versioned(
      legacy_config_snapshot("org.apache.flink.table.runtime.typeutils.ArrayDataSerializer$LegacyConfigSnapshot",
                             from_hex(java_streams::kLegacyArraySerializer)));
  CHECK(s.form == SnapshotForm::kLegacyConfig);
  auto d = make_decoder(s);
  REQUIRE(d.ok());
  REQUIRE((*d)->decodable());
  BinaryArray ints(2, 4);
  ints.slot(0, 3).slot(1, 4);
  CHECK(decode_exactly(**d, sized(ints.bytes())) == json::parse("[3,4]"));
}

TEST_CASE("WindowKey values hold the window's slice end and the key", "[state][unit]") {
  // WindowKeySerializer writes the window as a long, then the key with its nested serializer.
  auto d = decodable_decoder(
      composite_snapshot("org.apache.flink.table.runtime.typeutils.WindowKeySerializer$WindowKeySerializerSnapshot", 1,
                         {}, {string_data_snapshot()}));
  CHECK(decode_exactly(*d, big_endian64(1000) + sized("k")) == json::parse(R"({"window":1000,"key":"k"})"));
}

TEST_CASE("the table runtime's window serializers report length 0 as Flink's do", "[state][unit]") {
  // TimeWindow.Serializer and CountWindow.Serializer of flink-table-runtime return 0 from
  // getLength() while writing 16 and 8 bytes; the RocksDB key layout reads that value.
  auto time = decodable_decoder(simple_snapshot(
      "org.apache.flink.table.runtime.operators.window.TimeWindow$Serializer$TimeWindowSerializerSnapshot"));
  CHECK(time->fixed_length() == 0);
  CHECK(decode_exactly(*time, big_endian64(1000) + big_endian64(2000)) == json::parse(R"({"start":1000,"end":2000})"));
  auto count = decodable_decoder(simple_snapshot(
      "org.apache.flink.table.runtime.operators.window.CountWindow$Serializer$CountWindowSerializerSnapshot"));
  CHECK(count->fixed_length() == 0);
  CHECK(decode_exactly(*count, big_endian64(7)) == json::parse(R"({"id":7})"));
}
