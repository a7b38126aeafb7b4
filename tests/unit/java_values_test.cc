// Java-serialized values as JSON, on streams a JVM wrote (tests/testlib/java/JdkGen.java): the
// JDK's classes from the layouts of their writeObject / writeExternal methods, other classes by
// their descriptors, and JavaSerializer values through the value decoder.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "format/java/java_object_stream.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/java_streams.h"
#include "types/java_values.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"

using namespace ckpt;
using nlohmann::json;

namespace {

json rendered(const std::string& name) {
  std::string bytes = test::jdk_stream(name);
  INFO(name);
  REQUIRE_FALSE(bytes.empty());
  ByteReader r(bytes);
  auto v = java::read_object_stream(r);
  if (!v.ok()) FAIL(v.error().to_string());
  CHECK(r.at_end());
  return java_value_json(**v);
}

}  // namespace

TEST_CASE("every stream a JVM wrote is read to its last byte", "[state][unit]") {
  // Proves the grammar on real ObjectOutputStream output: proxies, resets, long strings, block
  // data long, externalizable classes, cycles and every JDK class below.
  REQUIRE(test::kJdkStreamCount >= 69);
  for (size_t i = 0; i < test::kJdkStreamCount; ++i) (void)rendered(std::string(test::kJdkStreams[i].name));
}

TEST_CASE("boxed primitives strings and big numbers print as plain values", "[state][unit]") {
  CHECK(rendered("Integer") == 26);
  CHECK(rendered("Long") == -5);
  CHECK(rendered("Short") == -2);
  CHECK(rendered("Byte") == 127);
  CHECK(rendered("Double") == 2.5);
  CHECK(rendered("Float") == -0.25);
  CHECK(rendered("Boolean") == true);
  CHECK(rendered("Character") == "x");
  // U+0000 (C0 80), 2-, 3-byte and a supplementary character (a surrogate pair) decoded to UTF-8.
  CHECK(rendered("String").get<std::string>() == std::string("nul\0 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 16));
  CHECK(rendered("LongString").get<std::string>() == std::string(70000, 'a'));
  CHECK(rendered("BigInteger") == "-123456789012345678901234567890");
  CHECK(rendered("SmallBigInteger") == -300);
  CHECK(rendered("BigDecimal") == json::parse(R"({"unscaled":-12345,"scale":3})"));
  CHECK(rendered("Enum") == "SECONDS");
  CHECK(rendered("Date") == 1580382960000);
  CHECK(rendered("UUID") == "123e4567-e89b-12d3-a456-426614174000");
  CHECK(rendered("Class") == json::parse(R"({"class":"java.lang.Class","name":"java.lang.String"})"));
}

TEST_CASE("java.time values print from their Ser forms", "[state][unit]") {
  // java.time.Ser is externalizable: a type byte, then each class' writeExternal.
  CHECK(rendered("Instant") == json::parse(R"({"seconds":1700000000,"nanos":123456789})"));
  CHECK(rendered("Duration") == json::parse(R"({"seconds":90061,"nanos":5})"));
  CHECK(rendered("LocalDate") == json::parse(R"({"year":2024,"month":2,"day":29})"));
  // LocalTime leaves out trailing zero parts and inverts the last one written.
  CHECK(rendered("LocalTimeHour") == json::parse(R"({"hour":7,"minute":0,"second":0,"nano":0})"));
  CHECK(rendered("LocalTimeMinute") == json::parse(R"({"hour":7,"minute":30,"second":0,"nano":0})"));
  CHECK(rendered("LocalTimeSecond") == json::parse(R"({"hour":7,"minute":30,"second":15,"nano":0})"));
  CHECK(rendered("LocalTimeNano") == json::parse(R"({"hour":7,"minute":30,"second":15,"nano":500})"));
  CHECK(rendered("LocalDateTime") ==
        json::parse(R"({"date":{"year":2024,"month":12,"day":31},"time":{"hour":23,"minute":59,"second":58,"nano":1000}})"));
  CHECK(rendered("ZonedDateTime") ==
        json::parse(R"({"date":{"year":2024,"month":7,"day":1},"time":{"hour":12,"minute":0,"second":0,"nano":0},
                        "offset":"+02:00","zone":"Europe/Paris"})"));
  CHECK(rendered("OffsetDateTime")["offset"] == "+05:30:07");
  CHECK(rendered("OffsetTime") == json::parse(R"({"time":{"hour":1,"minute":2,"second":3,"nano":0},"offset":"-03:00"})"));
  CHECK(rendered("ZoneOffset") == "Z");
  CHECK(rendered("ZoneRegion") == "America/New_York");
  CHECK(rendered("Year") == 1999);
  CHECK(rendered("YearMonth") == json::parse(R"({"year":2000,"month":1})"));
  CHECK(rendered("MonthDay") == json::parse(R"({"month":12,"day":25})"));
  CHECK(rendered("Period") == json::parse(R"({"years":1,"months":2,"days":3})"));
}

TEST_CASE("java.util collections print as arrays and maps as key value pairs", "[state][unit]") {
  CHECK(rendered("ArrayList") == json::parse(R"([1,"two",3])"));
  CHECK(rendered("LinkedList") == json::parse(R"(["a","b"])"));
  CHECK(rendered("ArrayDeque") == json::parse(R"([5,6])"));
  CHECK(rendered("HashMap") == json::parse(R"([["k",1]])"));
  CHECK(rendered("LinkedHashMap") == json::parse(R"([["z",26],["a",1]])"));  // insertion order, as stored
  CHECK(rendered("TreeMap") == json::parse(R"([[1,"a"],[2,"b"]])"));
  CHECK(rendered("Hashtable") == json::parse(R"([["p","q"]])"));
  CHECK(rendered("HashSet") == json::parse(R"([9])"));
  CHECK(rendered("LinkedHashSet") == json::parse(R"(["y","x"])"));
  CHECK(rendered("TreeSet") == json::parse(R"([1,2,3])"));
  CHECK(rendered("ArraysAsList") == json::parse(R"(["p","q"])"));
  CHECK(rendered("UnmodifiableList") == json::parse(R"([4])"));
  CHECK(rendered("UnmodifiableMap") == json::parse(R"([["m",1]])"));
  CHECK(rendered("UnmodifiableSet") == json::parse(R"(["s"])"));
  CHECK(rendered("SynchronizedList") == json::parse(R"([8])"));
  CHECK(rendered("EmptyList") == json::array());
  CHECK(rendered("EmptyMap") == json::array());
  CHECK(rendered("SingletonList") == json::parse(R"(["one"])"));
  CHECK(rendered("SingletonMap") == json::parse(R"([["k","v"]])"));
  CHECK(rendered("ListOf") == json::parse(R"([1,2])"));
  CHECK(rendered("MapOf") == json::parse(R"([["a",1]])"));
  CHECK(rendered("SetOf") == json::parse(R"(["e"])"));
}

TEST_CASE("arrays print as arrays and byte arrays as hex", "[state][unit]") {
  CHECK(rendered("IntArray") == json::parse(R"([1,-2,3])"));
  CHECK(rendered("ByteArray") == json::parse(R"({"bytes":"0001ff"})"));
  CHECK(rendered("CharArray") == json::parse(R"(["h","i"])"));
  CHECK(rendered("DoubleArray") == json::parse(R"([0.5,"NaN"])"));
  CHECK(rendered("BooleanArray") == json::parse(R"([true,false])"));
  CHECK(rendered("StringArray") == json::parse(R"(["a",null,"a"])"));  // the second "a" a back-reference
}

TEST_CASE("other classes print by class and fields - method data they cannot interpret as hex", "[state][unit]") {
  // Superclass fields included; a field the subclass declares again keeps the superclass'
  // value under "Class.name"; transient fields are not in the stream.
  CHECK(rendered("Circle") == json::parse(R"({"class":"com.example.Circle","fields":{
      "name":"shape","com.example.Shape.sides":0,"sides":7,"radius":1.5,"color":"RED"}})"));
  CHECK(rendered("Custom") == json::parse(R"({"class":"com.example.Custom","fields":{"id":42},"writeObject":[
      {"hex":"01020304","why":"data of com.example.Custom.writeObject is not interpreted"},"extra"]})"));
  json big = rendered("Big");  // 300 bytes: one TC_BLOCKDATALONG
  CHECK(big["writeObject"][0]["hex"] == std::string(600, '0'));
  CHECK(rendered("Ext") == json::parse(R"({"class":"com.example.Ext","fields":{},"writeExternal":[
      {"hex":"0007","why":"data of com.example.Ext.writeExternal is not interpreted"},"inside"]})"));
  CHECK(rendered("Cycle") == json::parse(R"({"class":"com.example.Node","fields":{"value":1,
      "next":{"class":"com.example.Node","cycle":"a reference to an object that contains it"}}})"));
  CHECK(rendered("Proxy") == json::parse(R"({"class":"$Proxy","interfaces":["java.lang.Runnable"],
      "fields":{"h":{"class":"com.example.Handler","fields":{"tag":"h"}}}})"));
  CHECK(rendered("Reset") == "after reset");
}

TEST_CASE("JavaSerializer values decode through the one grammar and end where their stream ends", "[state][unit]") {
  ByteWriter snapshot;
  (void)snapshot.utf("org.apache.flink.runtime.state.JavaSerializer$JavaSerializerSnapshot");
  snapshot.i32(3);
  ByteReader sr(snapshot.buffer());
  auto s = read_serializer_snapshot(sr, SnapshotFraming::kVersioned);
  REQUIRE(s.ok());
  auto d = make_decoder(*s);
  REQUIRE(d.ok());
  REQUIRE((*d)->decodable());
  // Two values back to back, as the heap layout stores them: each ends with its stream.
  std::string two = test::jdk_stream("HashMap") + test::jdk_stream("Circle");
  ByteReader r(two, 0x100);
  json a, b;
  (*d)->read(r, a);
  (*d)->read(r, b);
  REQUIRE(r.ok());
  CHECK(r.at_end());
  CHECK(a == json::parse(R"([["k",1]])"));
  CHECK(b["class"] == "com.example.Circle");
  // Cut short: an error inside the value's bytes.
  ByteReader cut(std::string_view(two).substr(0, 20), 0x100);
  (*d)->read(cut, a);
  REQUIRE_FALSE(cut.ok());
  CHECK(*cut.error()->offset <= 0x100u + 20);
}

TEST_CASE("a legacy config snapshot holding a Java-serialized JavaSerializer decodes its values", "[state][unit]") {
  // Flink 1.2's `_default_` operator state names its serializer this way: the serializer object
  // itself, Java-serialized (TypeSerializerSerializationProxy), in a legacy config snapshot.
  test::JavaStreamBuilder serializer;
  serializer.header().object();
  serializer.class_desc("org.apache.flink.runtime.state.JavaSerializer", 0x1234, 0x02, {});
  serializer.class_desc("org.apache.flink.api.common.typeutils.TypeSerializer", 1, 0x02, {}).null();
  SerializerSnapshot s;
  s.form = SnapshotForm::kLegacyConfig;
  s.serializer_class = "org.apache.flink.runtime.state.JavaSerializer";
  s.legacy_java_serializer = serializer.bytes();
  auto d = make_decoder(s);
  REQUIRE(d.ok());
  REQUIRE((*d)->decodable());
  std::string value = test::jdk_stream("TreeMap");
  ByteReader r(value);
  auto v = decode_framed(**d, r, value.size());
  REQUIRE(v.ok());
  CHECK(*v == json::parse(R"([[1,"a"],[2,"b"]])"));
  // Another Java-serialized serializer stays opaque, saying why.
  test::JavaStreamBuilder other;
  other.header().object().class_desc("com.example.OwnSerializer", 1, 0x02, {}).null();
  s.legacy_java_serializer = other.bytes();
  auto o = make_decoder(s);
  REQUIRE(o.ok());
  CHECK_FALSE((*o)->decodable());
}
