// Value encoders: decode(encode(v)) == v and encode(decode(b)) == b at the edges of every
// basic and container serializer, and what a value of the wrong shape is told.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "support/byte_writer.h"
#include "testlib/decoder_checks.h"
#include "types/value_decoder.h"

using namespace ckpt;
using namespace ckpt::test;
using nlohmann::json;

namespace {

std::string base(const std::string& name) {
  return simple_versioned("org.apache.flink.api.common.typeutils.base." + name + "$" +
                          name.substr(name.rfind('.') + 1) + "Snapshot");
}

std::string encoded(const ValueDecoder& d, const json& v) {
  ByteWriter w;
  Status s = d.encode(v, w);
  INFO(v.dump() << ": " << (s.ok() ? "" : s.error().message));
  REQUIRE(s.ok());
  return w.take();
}

// Both directions: the value's bytes decode to it, and those bytes encode again to themselves.
void round_trips(const std::string& versioned, const std::vector<json>& values) {
  auto d = decodable_decoder(versioned);
  for (const json& v : values) {
    INFO(d->serializer_class() << " " << v.dump());
    std::string bytes = encoded(*d, v);
    json back = decode_exactly(*d, bytes);
    CHECK(back == v);
    CHECK(encoded(*d, back) == bytes);
  }
}

std::string refused(const std::string& versioned, const json& v) {
  auto d = make_decoder(parse_versioned(versioned));
  REQUIRE(d.ok());
  ByteWriter w;
  Status s = (*d)->encode(v, w);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

const std::string kLongBytes = base("LongSerializer");
const std::string kString = base("StringSerializer");

}  // namespace

TEST_CASE("numbers encode at their minimum and maximum and floats keep their bits", "[unit][state]") {
  round_trips(kLongBytes, {0, 1, -1, INT64_MIN, INT64_MAX});
  round_trips(base("IntSerializer"), {0, INT32_MIN, INT32_MAX});
  round_trips(base("ShortSerializer"), {INT16_MIN, INT16_MAX});
  round_trips(base("ByteSerializer"), {INT8_MIN, INT8_MAX});
  round_trips(base("BooleanSerializer"), {true, false});
  round_trips(base("DoubleSerializer"), {0.0, -0.0, 1.5, 1e308, -4.9e-324, "NaN", "Infinity", "-Infinity"});
  round_trips(base("FloatSerializer"), {1.1, 3.4028235e38, 1e-45, -0.5, "NaN", "-Infinity"});
  round_trips(base("BigIntSerializer"), {nullptr, 0, 1, 10, -1, 127, 128, -128, -129, INT64_MIN, INT64_MAX,
                                         "9223372036854775808", "-1180591620717411303424"});
  round_trips(base("BigDecSerializer"),
              {nullptr, json{{"unscaled", 0}, {"scale", 0}}, json{{"unscaled", -5}, {"scale", -3}},
               json{{"unscaled", "123456789012345678901234567890"}, {"scale", 30}}});
  // A BigInteger's bytes are its minimal two's complement, as toByteArray() gives them.
  CHECK(encoded(*decodable_decoder(base("BigIntSerializer")), 128) == std::string("\0\0\0\x06\x00\x80", 6));
}

TEST_CASE("strings encode as StringValue with surrogate pairs as two units and null as length zero", "[unit][state]") {
  round_trips(kString, {nullptr, "", "a", "h\xc3\xa9llo", "\xf0\x9f\x98\x80 smile", std::string(200, 'x')});
  round_trips(base("StringValueSerializer"), {"", "plain"});
  round_trips(base("CharSerializer"), {"a", "\xc3\xa9"});
  // U+1F600 is two UTF-16 units, each written as a three-byte varint7.
  CHECK(encoded(*decodable_decoder(kString), "\xf0\x9f\x98\x80") == "\x03\xbd\xb0\x03\x80\xbc\x03");
  CHECK(refused(base("CharSerializer"), "\xf0\x9f\x98\x80").find("one UTF-16 unit") != std::string::npos);
}

TEST_CASE("dates and times encode at every precision and as null", "[unit][state]") {
  round_trips(base("DateSerializer"), {nullptr, 0, -86400000, INT64_MAX});
  round_trips(base("SqlTimestampSerializer"), {nullptr, json{{"millis", 1700000000123}, {"nanos", 123456789}}});
  round_trips(base("InstantSerializer"), {nullptr, json{{"seconds", -1}, {"nanos", 999999999}}});
  round_trips(base("LocalDateSerializer"), {nullptr, json{{"year", -9999}, {"month", 12}, {"day", 31}}});
  round_trips(base("LocalTimeSerializer"),
              {nullptr, json{{"hour", 23}, {"minute", 59}, {"second", 59}, {"nano", 999999999}}});
  round_trips(base("LocalDateTimeSerializer"),
              {nullptr, json{{"date", {{"year", 2024}, {"month", 2}, {"day", 29}}},
                             {"time", {{"hour", 0}, {"minute", 0}, {"second", 0}, {"nano", 1}}}}});
}

TEST_CASE("arrays - lists - maps - nullables - TTL values - timers - Try - tuples and rows encode both ways", "[unit][state]") {
  round_trips(base("array.BytePrimitiveArraySerializer"), {json{{"bytes", ""}}, json{{"bytes", "00ff7f"}}});
  round_trips(base("array.LongPrimitiveArraySerializer"), {json::array(), json{INT64_MIN, 0}});
  round_trips(base("array.StringArraySerializer"), {json::array(), json{"a", nullptr, ""}});
  const std::string list = composite("org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot", 1, "", {kLongBytes});
  round_trips(list, {json::array(), json{1, 2, 3}});
  round_trips(composite("org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot", 1, "", {kString, kLongBytes}),
              {json::array(), json::parse(R"([["a",-1],["b",null]])")});
  ByteWriter pad;
  pad.i32(8);
  round_trips(composite("org.apache.flink.api.java.typeutils.runtime.NullableSerializer$NullableSerializerSnapshot", 2,
                        pad.buffer(), {kLongBytes}),
              {nullptr, 7});
  round_trips(composite("org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializerSnapshot", 2, "",
                        {kLongBytes, kString}),
              {json::parse(R"({"ttl_ts":1700000000000,"value":"ok"})")});
  round_trips(composite("org.apache.flink.streaming.api.operators.TimerSerializerSnapshot", 2, "",
                        {kLongBytes, simple_versioned("org.apache.flink.runtime.state.VoidNamespaceSerializer$"
                                                 "VoidNamespaceSerializerSnapshot")}),
              {json::parse(R"({"timestamp":-9223372036854775798,"key":42,"namespace":"VoidNamespace"})")});
  round_trips(composite("org.apache.flink.api.java.typeutils.runtime.TupleSerializerSnapshot", 1,
                        [] {
                          ByteWriter w;
                          w.utf("org.apache.flink.api.java.tuple.Tuple2");
                          return w.take();
                        }(),
                        {kLongBytes, kString}),
              {json{1, "a"}, json{INT64_MIN, nullptr}});
  // Scala's Try (Flink 1.3-1.6 jobs): a success or a failure, each by its own serializer.
  round_trips(composite("org.apache.flink.api.scala.typeutils.ScalaTrySerializerSnapshot", 1, "", {kLongBytes, kString}),
              {json::parse(R"({"success":7})"), json::parse(R"({"failure":"boom"})")});
  const std::string row =
      composite("org.apache.flink.api.java.typeutils.runtime.RowSerializer$RowSerializerSnapshot", 4,
                std::string(1, '\1'), {kLongBytes, kString});
  round_trips(row, {json::parse(R"({"kind":"+I","fields":[1,"a"]})"), json::parse(R"({"kind":"-D","fields":[null,null]})"),
                    json::parse(R"({"kind":"+U","fields":[null,"b"]})")});
}

TEST_CASE("a value of the wrong shape is refused naming where in the value and what was expected", "[unit][state]") {
  CHECK(refused(kLongBytes, "x") == "expected a 64-bit integer, got \"x\"");
  CHECK(refused(base("IntSerializer"), 2147483648LL) == "expected a 32-bit integer, got 2147483648");
  CHECK(refused(base("BooleanSerializer"), 1) == "expected true or false, got 1");
  const std::string list = composite("org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot", 1, "", {kLongBytes});
  CHECK(refused(list, json{1, "two"}) == "[1]: expected a 64-bit integer, got \"two\"");
  const std::string row = composite("org.apache.flink.api.java.typeutils.runtime.RowSerializer$RowSerializerSnapshot", 4,
                                    std::string(1, '\1'), {kLongBytes, kString});
  CHECK(refused(row, json::parse(R"({"kind":"+I","fields":[1]})")).find(".fields: expected an array of 2 fields") == 0);
  CHECK(refused(row, json::parse(R"({"kind":"+X","fields":[1,"a"]})")).find(".kind: expected") == 0);
  CHECK(refused(row, json::parse(R"({"kind":"+I","fields":["1","a"]})")) ==
        ".fields[0]: expected a 64-bit integer, got \"1\"");
  const std::string scala_try =
      composite("org.apache.flink.api.scala.typeutils.ScalaTrySerializerSnapshot", 1, "", {kLongBytes, kString});
  CHECK(refused(scala_try, json{1}).find("expected {\"success\":..} or {\"failure\":..}") == 0);
  CHECK(refused(scala_try, json::parse(R"({"success":"x"})")) == ".success: expected a 64-bit integer, got \"x\"");
}

TEST_CASE("an opaque value is written back from its hex and a new one is refused naming the serializer", "[unit][state]") {
  ByteWriter user;
  (void)user.utf("org.apache.flink.api.java.typeutils.runtime.ValueSerializer$ValueSerializerSnapshot");
  user.i32(3);
  (void)user.utf("com.example.Counter");
  auto d = make_decoder(parse_versioned(user.buffer()));
  REQUIRE(d.ok());
  REQUIRE_FALSE((*d)->decodable());
  ByteWriter w;
  REQUIRE((*d)->encode(json::parse(R"({"hex":"00ff10","why":"unknown serializer"})"), w).ok());
  CHECK(w.buffer() == std::string("\x00\xff\x10", 3));
  ByteWriter x;
  Status s = (*d)->encode(42, x);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("ValueSerializer") != std::string::npos);
}
