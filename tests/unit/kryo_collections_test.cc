// Kryo 2 values of JDK collections as Flink 1.x's KryoSerializer writes them
// (formats/serializers.md §16.1): hand-built from Kryo 2.24's DefaultClassResolver, MapReferenceResolver, Output,
// CollectionSerializer, MapSerializer and DefaultSerializers.TreeMapSerializer.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/decoder_checks.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"

using namespace ckpt;
using nlohmann::json;

namespace kryo_collections_test {
namespace {

SerializerSnapshot kryo_of(const std::string& type) {
  SerializerSnapshot s;
  s.snapshot_class = "org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializerSnapshot";
  s.serializer_class = "org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer";
  s.form = SnapshotForm::kKryo;
  s.type_class = type;
  return s;
}

// Output.writeVarInt(v, true).
std::string varint(uint32_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

// Output.writeString of 2-63 ASCII chars: the last byte's high bit set.
std::string ascii(const std::string& s) {
  std::string out = s;
  out.back() = static_cast<char>(out.back() | 0x80);
  return out;
}

// writeClass by name (NAME + 2 = 1, the name id, the name on first use), then the reference
// marker 1 (a new object).
const std::string kNull(1, '\0');  // Kryo.NULL: a null class, an empty size
std::string named_new(uint32_t name_id, const std::string& cls) { return "\x01" + varint(name_id) + ascii(cls) + "\x01"; }
std::string named_again(uint32_t name_id) { return "\x01" + varint(name_id) + "\x01"; }
// Integer (id 0 + 2): zigzag varint. String (id 1 + 2): marker 1, the chars. Long (id 7 + 2).
std::string kryo_int(int32_t v) { return "\x02" + varint(static_cast<uint32_t>((v << 1) ^ (v >> 31))); }
// A one-char String takes writeString's other form: 0x80 | (length + 1), then the char.
std::string kryo_str(char c) { return std::string("\x03\x01\x82", 3) + c; }
std::string kryo_long(int32_t v) { return "\x09" + varint(static_cast<uint32_t>((v << 1) ^ (v >> 31))); }

json decode_kryo(const std::string& type, const std::string& bytes) {
  auto d = make_decoder(kryo_of(type));
  REQUIRE(d.ok());
  REQUIRE((*d)->decodable());
  return test::decode_exactly(**d, bytes);
}

// The error a value stops with, read at offset 0x200.
Error kryo_error(const std::string& bytes) {
  auto d = make_decoder(kryo_of("java.lang.Object"));
  REQUIRE(d.ok());
  ByteReader r(bytes, 0x200);
  json out;
  (*d)->read(r, out);
  REQUIRE(!r.ok());
  return *r.error();
}

}  // namespace
}  // namespace kryo_collections_test

using namespace kryo_collections_test;

TEST_CASE("Kryo 2 JDK collections of a generic type decode element by element", "[unit][state]") {
  // ArrayList<Integer>: the class by name, marker, size, each element with its class.
  CHECK(decode_kryo("java.util.List", named_new(0, "java.util.ArrayList") + "\x02" + kryo_int(1) + kryo_int(-2)) ==
        json::array({1, -2}));
  // ArrayList<String> holding one String twice: the second is back-reference 3 (object 1 + 2;
  // the list is object 0).
  CHECK(decode_kryo("java.lang.Object", named_new(0, "java.util.ArrayList") + "\x02" + kryo_str('a') + "\x03\x03") ==
        json::array({"a", "a"}));
  // HashMap<String, Long>: size, then key and value with their classes.
  CHECK(decode_kryo("java.util.Map", named_new(0, "java.util.HashMap") + "\x01" + kryo_str('k') + kryo_long(5)) ==
        json::array({json::array({"k", 5})}));
  // Nested: an ArrayList of a LinkedList and an empty ArrayList, the latter's name by its id.
  CHECK(decode_kryo("java.util.Collection", named_new(0, "java.util.ArrayList") + "\x02" +
                                                named_new(1, "java.util.LinkedList") + "\x01" + kryo_int(7) +
                                                named_again(0) + kNull) ==
        json::array({json::array({7}), json::array()}));
  // Empty HashSet; a null element; a TreeMap with no comparator (its null comes first).
  CHECK(decode_kryo("java.util.Set", named_new(0, "java.util.HashSet") + kNull) == json::array());
  CHECK(decode_kryo("java.util.List", named_new(0, "java.util.ArrayList") + "\x01" + kNull) == json::array({nullptr}));
  CHECK(decode_kryo("java.util.SortedMap", named_new(0, "java.util.TreeMap") + std::string("\x00\x01", 2) +
                                               kryo_int(1) + kryo_int(2)) == json::array({json::array({1, 2})}));
}

TEST_CASE("Kryo 2 JDK collections stop at the offset of truncated or hostile bytes", "[unit][state][corrupt]") {
  const std::string list = named_new(0, "java.util.ArrayList");
  // Truncated: two elements announced, one there.
  Error e = kryo_error(list + "\x02" + kryo_int(1));
  CHECK(e.code == ErrorCode::kCorruption);
  CHECK(e.offset == 0x200 + list.size() + 3);
  // A hostile size is refused where it stands, before anything is read or allocated.
  e = kryo_error(list + "\xff\xff\xff\xff\x0f" + kryo_int(1));
  CHECK(e.code == ErrorCode::kCorruption);
  CHECK(e.offset == 0x200 + list.size());
  CHECK(e.message.find("4294967295 elements") != std::string::npos);
  // A name id that skips ids, a back-reference past the objects read.
  e = kryo_error(std::string("\x01\x05", 2));
  CHECK(e.code == ErrorCode::kCorruption);
  CHECK(e.offset == 0x201);
  e = kryo_error(list + "\x01\x03\x07");
  CHECK(e.code == ErrorCode::kCorruption);
  CHECK(e.offset == 0x200 + list.size() + 2);
  // Valid but not read: a list holding itself, a TreeMap's comparator, nesting past 64 levels.
  e = kryo_error(list + "\x01" + named_again(0).substr(0, 2) + "\x02");
  CHECK(e.code == ErrorCode::kNotSupported);
  CHECK(e.offset == 0x200 + list.size() + 3);
  e = kryo_error(named_new(0, "java.util.TreeMap") + named_new(1, "com.example.ByName") + kNull);
  CHECK(e.code == ErrorCode::kNotSupported);
  std::string deep = list + "\x01";
  for (int i = 0; i < 70; ++i) deep += named_again(0) + "\x01";
  e = kryo_error(deep + kNull);
  CHECK(e.code == ErrorCode::kNotSupported);
  CHECK(e.message.find("deeper than 64") != std::string::npos);
}

TEST_CASE("a job's own default Kryo serializer for a JDK collection or a supertype of it stops the read at the value",
          "[unit][state][corrupt]") {
  // KryoSerializerSnapshot v2 of java.lang.Object: no registrations; a default serializer for
  // java.util.AbstractList (ExecutionConfig.addDefaultKryoSerializer), a default serializer class
  // for a class of the job. Kryo takes the job's serializer for an ArrayList (an AbstractList),
  // not its CollectionSerializer: those bytes are not read as a list's.
  auto optional_map = [](ByteWriter& w, const std::vector<std::string>& names) {
    w.u64(0x4F2C69A3D70);  // LinkedOptionalMapSerializer's header
    w.i32(static_cast<int32_t>(names.size()));
    for (const std::string& name : names) {
      w.utf(name);
      w.boolean(true);  // the key frame: the class name
      ByteWriter key;
      key.utf(name);
      w.i32(static_cast<int32_t>(key.size()));
      w.bytes(key.buffer());
      w.boolean(true);  // the value frame: a serializer (opaque here)
      w.i32(3);
      w.bytes(std::string("\xac\xed\x00", 3));
    }
  };
  auto snapshot_of = [&](const std::vector<std::string>& defaults, const std::vector<std::string>& classes) {
    ByteWriter w;
    w.utf("org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializerSnapshot");
    w.i32(2);
    w.utf("java.lang.Object");
    optional_map(w, {});
    optional_map(w, defaults);
    optional_map(w, classes);
    ByteReader r(w.buffer());
    auto s = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
    REQUIRE(s.ok());
    CHECK(r.at_end());
    return *s;
  };
  auto read_value = [](const SerializerSnapshot& s, const std::string& bytes, json& out) {
    auto d = make_decoder(s);
    REQUIRE(d.ok());
    ByteReader r(bytes, 0x200);
    (*d)->read(r, out);
    return r.ok() ? std::optional<Error>() : r.error();
  };
  const std::string list = named_new(0, "java.util.ArrayList") + "\x01" + kryo_int(1);
  const std::string map = named_new(0, "java.util.HashMap") + "\x01" + kryo_str('k') + list.substr(0, 1) +
                          varint(1) + ascii("java.util.ArrayList") + "\x01\x01" + kryo_int(1);

  const SerializerSnapshot overridden = snapshot_of({"java.util.AbstractList"}, {"com.example.Event"});
  CHECK(overridden.kryo_default_serializers == std::vector<std::string>{"java.util.AbstractList", "com.example.Event"});
  json out;
  std::optional<Error> e = read_value(overridden, list, out);
  REQUIRE(e);
  CHECK(e->code == ErrorCode::kNotSupported);
  CHECK(e->offset == 0x200);
  CHECK(e->message.find("java.util.AbstractList") != std::string::npos);
  CHECK(e->message.find("java.util.ArrayList") != std::string::npos);
  // A map is no AbstractList: it reads, up to the list it holds (refused where that starts).
  e = read_value(overridden, map, out);
  REQUIRE(e);
  CHECK(e->code == ErrorCode::kNotSupported);
  CHECK(e->offset == 0x200 + named_new(0, "java.util.HashMap").size() + 1 + kryo_str('k').size());
  // java.lang.Object covers every class Kryo would reach by name; the map's own interface the map.
  CHECK(read_value(snapshot_of({}, {"java.lang.Object"}), list, out));
  CHECK(read_value(snapshot_of({"java.util.Map"}, {}), map, out));
  CHECK(read_value(snapshot_of({"java.util.SortedMap"}, {}), named_new(0, "java.util.TreeMap") +
                                                                 std::string("\x00\x00", 2), out));
  // Defaults for the job's classes only, or for a supertype of other collections, leave Kryo's own.
  for (const SerializerSnapshot& s :
       {snapshot_of({"com.example.Event"}, {"org.joda.time.DateTime"}), snapshot_of({"java.util.Set"}, {"java.util.Map"})}) {
    INFO(s.kryo_default_serializers.size());
    REQUIRE_FALSE(read_value(s, list, out));
    CHECK(out == json::array({1}));
  }
}
