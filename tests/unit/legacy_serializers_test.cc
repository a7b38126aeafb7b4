// Serializers of Flink 1.2-1.7 on hand-built bytes laid out as Flink wrote them
// (formats/serializers.md §15): Java-serialized TypeSerializer objects read as snapshot trees,
// Flink 1.7's legacy snapshot form, Kryo 2 values of the classes Kryo registers itself, and
// the raw keyed timer blocks of Flink 1.2-1.4.0 and 1.4.1-1.5.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "format/java/java_object_stream.h"
#include "state/legacy_backend_meta.h"
#include "state/raw_timers_reader.h"
#include "state/stream_opener.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/java_streams.h"
#include "testlib/legacy_proxy_bytes.h"
#include "types/legacy_serializers.h"
#include "types/value_decoder.h"

using namespace ckpt;
using namespace ckpt::test;
using nlohmann::json;

// Named (not anonymous): the unity build puts other tests' using-directives in scope, whose
// names these hide.
namespace legacy_serializers_test {
namespace {

constexpr uint8_t kSer = java::kScSerializable;
const std::string kTypeSerializer = "org.apache.flink.api.common.typeutils.TypeSerializer";
const std::string kSerializerSig = "Lorg/apache/flink/api/common/typeutils/TypeSerializer;";
const std::string kRuntime = "org.apache.flink.api.java.typeutils.runtime.";
const std::string kScala = "org.apache.flink.api.scala.typeutils.";
using Write = std::function<void(JavaStreamBuilder&)>;

// A field-less singleton serializer (LongSerializer...): class, TypeSerializerSingleton, TypeSerializer.
Write singleton(const std::string& cls) {
  return [cls](JavaStreamBuilder& b) {
    b.object().class_desc(cls, 1, kSer, {});
    b.class_desc(std::string(legacy::kBase) + "TypeSerializerSingleton", 1, kSer, {});
    b.class_desc(kTypeSerializer, 1, kSer, {}).null();
  };
}

// A serializer whose own class declares object fields holding serializers (OptionSerializer's
// elemSerializer, ArrayListSerializer's elementSerializer...), directly below TypeSerializer.
Write holder(const std::string& cls, const std::vector<std::pair<std::string, Write>>& fields) {
  return [cls, fields](JavaStreamBuilder& b) {
    std::vector<JavaStreamBuilder::Field> descs;
    for (const auto& f : fields) descs.push_back({'L', f.first, kSerializerSig});
    b.object().class_desc(cls, 1, kSer, descs);
    b.class_desc(kTypeSerializer, 1, kSer, {}).null();
    for (const auto& f : fields) f.second(b);  // fields sorted by name, as the caller passes them
  };
}

// TupleSerializerBase's fields (arity, length, fieldSerializers, tupleClass) below `chain`, the
// serializer's classes from the most derived: TupleSerializer, or a Scala macro's anonymous
// subclass of CaseClassSerializer.
Write tuple_like(const std::vector<std::string>& chain, const std::string& tuple_class,
                 const std::vector<Write>& fields) {
  return [=](JavaStreamBuilder& b) {
    b.object();
    for (const auto& c : chain) b.class_desc(c, 1, kSer, {});
    b.class_desc(kRuntime + "TupleSerializerBase", 1, kSer,
                 {{'I', "arity", ""},
                  {'I', "length", ""},
                  {'[', "fieldSerializers", "[" + kSerializerSig},
                  {'L', "tupleClass", "Ljava/lang/Class;"}});
    b.class_desc(kTypeSerializer, 1, kSer, {}).null();
    b.raw().i32(static_cast<int32_t>(fields.size()));
    b.raw().i32(-1);
    b.array().class_desc("[L" + kTypeSerializer + ";", 1, kSer, {}).null();
    b.raw().i32(static_cast<int32_t>(fields.size()));
    for (const auto& f : fields) f(b);
    b.class_object().class_desc(tuple_class, 1, kSer, {}).null();
  };
}

std::string stream(const Write& w) {
  JavaStreamBuilder b;
  b.header();
  w(b);
  return b.bytes();
}

json decode_legacy(const SerializerSnapshot& s, const std::string& bytes) {
  auto d = make_decoder(s);
  REQUIRE(d.ok());
  INFO((*d)->why_not());
  REQUIRE((*d)->decodable());
  ByteReader r(bytes);
  json out;
  (*d)->read(r, out);
  INFO((r.ok() ? std::string() : r.error()->to_string()));
  REQUIRE(r.ok());
  CHECK(r.at_end());
  return out;
}

// StringValue.writeString: varint7 length + 1, then the chars as varint7 each (ASCII here).
std::string flink_string(const std::string& s) {
  std::string out(1, static_cast<char>(s.size() + 1));
  return out + s;
}

std::string long_bytes(int64_t v) {
  ByteWriter w;
  w.i64(v);
  return w.take();
}

const std::string kLong = legacy::kLong, kString = legacy::kString;

}  // namespace

TEST_CASE("a Java-serialized TupleSerializer of Flink 1.3 gives its field serializers and decodes Tuple values",
          "[unit][state]") {
  std::string java = stream(tuple_like({kRuntime + "TupleSerializer"}, "org.apache.flink.api.java.tuple.Tuple2",
                                       {singleton(kLong), singleton(kString)}));
  SerializerSnapshot s = legacy_serializer_snapshot(java, 0x40);
  CHECK(s.form == SnapshotForm::kLegacyConfig);
  CHECK(s.type_class == "org.apache.flink.api.java.tuple.Tuple2");
  REQUIRE(s.nested.size() == 2);
  CHECK(s.nested[0].snapshot_class == kLong + "$LongSerializerSnapshot");
  CHECK(s.nested[1].snapshot_class == kString + "$StringSerializerSnapshot");
  CHECK(decode_legacy(s, long_bytes(7) + flink_string("ab")) == json::array({7, "ab"}));
}

TEST_CASE("Scala case class Option Either and collection serializers Java-serialized decode without the job's classes",
          "[unit][state]") {
  // CustomCaseClass(String, Long) as the Scala macro writes its serializer: an anonymous
  // subclass of CaseClassSerializer.
  Write case_class = tuple_like({"com.example.Job$$anon$3$$anon$1", kScala + "CaseClassSerializer"},
                                "com.example.CustomCaseClass", {singleton(kString), singleton(kLong)});
  std::string value = flink_string("k") + long_bytes(2);
  SerializerSnapshot s = legacy_serializer_snapshot(stream(case_class), 0);
  CHECK(s.type_class == "com.example.CustomCaseClass");
  CHECK(decode_legacy(s, value) == json::array({"k", 2}));
  // OptionSerializer: bool isDefined, then the value.
  SerializerSnapshot option =
      legacy_serializer_snapshot(stream(holder(kScala + "OptionSerializer", {{"elemSerializer", case_class}})), 0);
  CHECK(decode_legacy(option, std::string(1, '\1') + value) == json::array({"k", 2}));
  CHECK(decode_legacy(option, std::string(1, '\0')).is_null());
  // Scala's EitherSerializer: bool isLeft, then the side's value.
  SerializerSnapshot either = legacy_serializer_snapshot(
      stream(holder(kScala + "EitherSerializer",
                    {{"leftSerializer", case_class}, {"rightSerializer", singleton(kString)}})),
      0);
  CHECK(decode_legacy(either, std::string(1, '\0') + flink_string("r")) == json{{"right", "r"}});
  CHECK(decode_legacy(either, std::string(1, '\1') + value) == json{{"left", json::array({"k", 2})}});
  // TraversableSerializer (List[CustomCaseClass]): i32 n, then per element a non-null flag and the element.
  SerializerSnapshot list = legacy_serializer_snapshot(
      stream(holder("com.example.Job$$anon$9$$anon$2", {{"elementSerializer", case_class}})), 0);
  CHECK(list.nested.empty());  // an anonymous class that is no TraversableSerializer: not understood
  Write traversable = [&](JavaStreamBuilder& b) {
    b.object().class_desc("com.example.Job$$anon$9$$anon$2", 1, kSer, {});
    b.class_desc(kScala + "TraversableSerializer", 1, kSer, {{'L', "elementSerializer", kSerializerSig}});
    b.class_desc(kTypeSerializer, 1, kSer, {}).null();
    case_class(b);
  };
  list = legacy_serializer_snapshot(stream(traversable), 0);
  ByteWriter two;
  two.i32(2);
  CHECK(decode_legacy(list, two.buffer() + '\1' + value + '\0') == json::array({json::array({"k", 2}), nullptr}));
}

TEST_CASE("a Java-serialized PojoSerializer gives its fields by name from what its writeObject added",
          "[unit][state]") {
  // PojoSerializer's serializable fields (numFields, clazz, fieldSerializers, registeredClasses,
  // registeredSerializers), then writeObject's i32 field count and per field the declaring
  // class and the name (FieldSerializer.serializeField).
  JavaStreamBuilder b;
  b.header().object().class_desc(kRuntime + "PojoSerializer", 1, kSer | java::kScWriteMethod,
                                 {{'I', "numFields", ""},
                                  {'L', "clazz", "Ljava/lang/Class;"},
                                  {'[', "fieldSerializers", "[" + kSerializerSig},
                                  {'L', "registeredClasses", "Ljava/util/LinkedHashMap;"},
                                  {'[', "registeredSerializers", "[" + kSerializerSig}});
  b.class_desc(kTypeSerializer, 1, kSer, {}).null();
  b.raw().i32(2);
  b.class_object().class_desc("com.example.Event", 1, kSer, {}).null();
  b.array().class_desc("[L" + kTypeSerializer + ";", 1, kSer, {}).null();
  b.raw().i32(2);
  singleton(kString)(b);
  singleton(kLong)(b);
  b.null();
  b.array().class_desc("[L" + kTypeSerializer + ";", 1, kSer, {}).null();
  b.raw().i32(0);
  ByteWriter count;
  count.i32(2);
  b.block(count.buffer());
  for (const char* field : {"name", "count"}) {
    b.class_object().class_desc("com.example.Event", 1, kSer, {}).null();
    ByteWriter name;
    name.utf(field);
    b.block(name.buffer());
  }
  b.end_block();
  SerializerSnapshot s = legacy_serializer_snapshot(b.bytes(), 0);
  REQUIRE(s.nested.size() == 2);
  CHECK(s.type_class == "com.example.Event");
  // Flags 2 (no subclass), then per field a null flag and the value.
  json v = decode_legacy(s, std::string("\x02\x00", 2) + flink_string("ev") + '\0' + long_bytes(5));
  CHECK(v["class"] == "com.example.Event");
  CHECK(v["fields"] == json{{"name", "ev"}, {"count", 5}});
}

TEST_CASE("a Flink 1.3 LIST state's ArrayListSerializer gives its element serializer", "[unit][state]") {
  SerializerSnapshot s = legacy_serializer_snapshot(
      stream(holder("org.apache.flink.runtime.state.ArrayListSerializer", {{"elementSerializer", singleton(kLong)}})),
      0);
  REQUIRE(s.nested.size() == 1);
  CHECK(decode_legacy(s.nested[0], long_bytes(-3)) == -3);
  ByteWriter v;
  v.i32(2);
  v.i64(1);
  v.i64(2);
  CHECK(decode_legacy(s, v.buffer()) == json::array({1, 2}));
}

TEST_CASE("a Flink 1.7 legacy snapshot inside a current proxy decodes through its Java-serialized serializer",
          "[unit][state]") {
  // TypeSerializerConfigSnapshot.writeSnapshot (Flink 1.7): class, version 0x7A53C4F0, the
  // serializer's TypeSerializerSerializationProxy (i32 1, i32 n, Java bytes), then the config's
  // own version and payload: here TupleSerializerConfigSnapshot's, a resilient block of the
  // nested serializers and configs, then the tuple class Java-serialized.
  std::string java = stream(tuple_like({kRuntime + "TupleSerializer"}, "org.apache.flink.api.java.tuple.Tuple2",
                                       {singleton(kLong), singleton(kLong)}));
  ByteWriter w;
  w.utf(kRuntime + "TupleSerializerConfigSnapshot");
  w.i32(kLegacyConfigSnapshotVersion);
  w.i32(1);
  w.i32(static_cast<int32_t>(java.size()));
  w.bytes(java);
  w.i32(1);
  w.bytes(legacy::resilient({legacy::pair_of(kLong), legacy::pair_of(kLong)}));
  JavaStreamBuilder tuple_class;
  tuple_class.header().class_object().class_desc("org.apache.flink.api.java.tuple.Tuple2", 1, kSer, {}).null();
  w.bytes(tuple_class.bytes());
  ByteReader r(w.buffer());
  auto s = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
  REQUIRE(s.ok());
  CHECK(r.at_end());
  CHECK(s->form == SnapshotForm::kLegacyConfig);
  CHECK(s->raw == w.buffer());
  REQUIRE(s->nested.size() == 2);
  CHECK(decode_legacy(*s, long_bytes(1) + long_bytes(2)) == json::array({1, 2}));
}

TEST_CASE("Kryo values of the classes Kryo registers itself decode and others stop at their offset", "[unit][state]") {
  SerializerSnapshot kryo;
  kryo.snapshot_class = kRuntime + "kryo.KryoSerializerSnapshot";
  kryo.serializer_class = kRuntime + "kryo.KryoSerializer";
  kryo.form = SnapshotForm::kKryo;
  kryo.type_class = "java.lang.Object";
  // Kryo.writeClassAndObject: varint id + 2 (long is 7), then writeLong(v, false): zigzag varint.
  CHECK(decode_legacy(kryo, "\x09\x06") == 3);
  CHECK(decode_legacy(kryo, std::string("\x09\x05", 2)) == -3);
  // int (0): zigzag varint; String (1): a reference marker (1: new), then ASCII with the last
  // byte's high bit set, or the 0x80-flagged length + 1 and UTF-8 chars.
  CHECK(decode_legacy(kryo, std::string("\x02\xac\x02", 3)) == 150);
  CHECK(decode_legacy(kryo, std::string("\x03\x01"
                                 "a\xe2",
                                 4)) == "ab");
  CHECK(decode_legacy(kryo, std::string("\x03\x01\x83\xc3\xa9\x78", 6)) == "\xc3\xa9x");
  CHECK(decode_legacy(kryo, std::string("\x00", 1)).is_null());
  // A class Kryo writes by name needs the job's registrations: refused where it starts.
  auto d = make_decoder(kryo);
  REQUIRE(d.ok());
  std::string named(
      "\x01\x00"
      "com.example.Even\xf4\x01",
      20);
  ByteReader r(named, 0x100);
  json out;
  (*d)->read(r, out);
  REQUIRE(!r.ok());
  CHECK(r.error()->code == ErrorCode::kNotSupported);
  CHECK(r.error()->offset == 0x100);
  CHECK(r.error()->message.find("com.example.Event") != std::string::npos);
  // A user type stays opaque, as before.
  kryo.type_class = "com.example.Event";
  auto opaque = make_decoder(kryo);
  REQUIRE(opaque.ok());
  CHECK(!(*opaque)->decodable());
}

// A raw keyed handle of one key group whose block is `block`, inline.
KeyedHandle raw_timer_handle(const std::string& block, int32_t key_group) {
  KeyedHandle h;
  h.type = handle_type::kKeyGroups;
  h.range = {key_group, 1};
  h.offsets = {0};
  h.delegate.type = handle_type::kByteStream;
  h.delegate.name = "raw";
  h.delegate.data = block;
  return h;
}

TEST_CASE("raw keyed timers of Flink 1.3 and 1.5 read with their Java-serialized key and namespace serializers",
          "[unit][state]") {
  // Per key group: pre-versioned (Flink 1.2-1.4.0) i32 services, per service utf name, the key
  // and namespace serializers as two object streams, then event and processing timers as
  // i32 n + n x (key, namespace, i64 timestamp); version 1 (1.4.1-1.5) the magic F1CD859F,
  // i32 1, the same with the serializers in a resilient block.
  auto timers = [](ByteWriter& w) {
    w.i32(1);  // one event-time timer
    w.i64(42);
    w.i64(7);
    w.i64(1000);
    w.i32(0);  // no processing-time timers
  };
  ByteWriter pre;
  pre.i32(1);
  pre.utf("timer");
  pre.bytes(legacy::java_serializer(kLong));
  pre.bytes(legacy::java_serializer(kLong));
  timers(pre);
  ByteWriter v1;
  v1.u32(0xF1CD859F);
  v1.i32(1);
  v1.i32(1);
  v1.utf("timer");
  v1.bytes(legacy::resilient({legacy::pair_of(kLong), legacy::pair_of(kLong)}));
  timers(v1);
  for (const std::string& block : {pre.buffer(), v1.buffer()}) {
    KeyedHandle h = raw_timer_handle(block, 5);
    auto in = StreamOpener({}, "_metadata").open(h.delegate);
    REQUIRE(in.ok());
    std::vector<StateEntry> got;
    auto s = read_raw_timers(
        h, *in, StateFilter{},
        [&](StateEntry&& e) {
          got.push_back(std::move(e));
          return Status::OK();
        },
        [](Error&& e) -> Status { return std::move(e); });
    INFO((s.ok() ? std::string() : s.error().to_string()));
    REQUIRE(s.ok());
    REQUIRE(got.size() == 1);
    CHECK(got[0].state == "_timer_state/event_timer");
    CHECK(got[0].key_group == 5);
    CHECK(got[0].key == 42);
    CHECK(got[0].ns == 7);
    CHECK(got[0].value == 1000);
    // The block moves between key groups as it was read (edit --max-parallelism).
    size_t blocks = 0;
    REQUIRE(read_raw_timer_blocks(h, *in, [&](int32_t, RawTimerBlock&& b) {
              ++blocks;
              CHECK(write_raw_timer_block(b) == block);
              return Status::OK();
            }).ok());
    CHECK(blocks == 1);
  }
}

TEST_CASE("a Flink 1.3 key group of a keyed operator without timer services is a timer block with none",
          "[unit][state]") {
  // AbstractStreamOperator.snapshotState of Flink 1.2-1.4.0 wrote the service count into every
  // key group: 0 alone is no user state, and edit --max-parallelism moves it as a timer block.
  const std::string block(4, '\0');
  KeyedHandle h = raw_timer_handle(block, 0);
  auto in = StreamOpener({}, "_metadata").open(h.delegate);
  REQUIRE(in.ok());
  size_t blocks = 0;
  Status s = read_raw_timer_blocks(h, *in, [&](int32_t, RawTimerBlock&& b) {
    ++blocks;
    CHECK(b.version == kTimersNoVersion);
    CHECK(b.services.empty());
    CHECK(write_raw_timer_block(b) == block);
    return Status::OK();
  });
  INFO((s.ok() ? std::string() : s.error().to_string()));
  REQUIRE(s.ok());
  CHECK(blocks == 1);
}

}  // namespace legacy_serializers_test
