// The one Java object stream reader on hand-built streams of every element of the grammar
// (Java Object Serialization Specification, chapter 6: class descriptors with superclasses,
// proxies, back references, enums, arrays, block data, long strings, reset, exceptions), on
// streams that refer back to what is still being read (no superclass cycle, no cycle of shared
// values, which would leak), and on every cut of streams a JVM wrote.
#include <catch2/catch.hpp>

#include <string>

#include "format/java/java_object_stream.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/hostile_inputs.h"
#include "testlib/java_streams.h"

using namespace ckpt;

namespace {

// TC_OBJECT of class A (tests/testlib/hostile_inputs.h) whose descriptor has the superclass
// `super`: handles 0x7e0000 the descriptor, 0x7e0001 its field's type, 0x7e0002 the object.
ByteWriter object_of_class_a(const std::string& super) {
  ByteWriter w;
  w.u16(0xACED);
  w.u16(5);
  w.u8(0x73);
  w.bytes(test::java_class_a(super));
  return w;
}

}  // namespace

TEST_CASE("a java class descriptor that is its own superclass is refused at the reference", "[format][unit][corrupt]") {
  ByteWriter w = object_of_class_a(std::string("\x71\x00\x7e\x00\x00", 5));  // super: itself
  w.u8(0x70);
  ByteReader r(w.buffer(), 0x10);
  auto v = java::read_object_stream(r);
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().message == "java stream reference to class descriptor A while it is being read");
  CHECK(v.error().offset == 0x10u + w.size() - 6);
}

TEST_CASE("a java object that refers to itself is read as a tree without a cycle", "[format][unit]") {
  // The object (handle 0x7e0002) is its own `next`: the reference stands for it, unfilled.
  ByteWriter w = object_of_class_a("\x70");
  w.u8(0x71);
  w.u32(0x7E0002);
  ByteReader r(w.buffer());
  auto v = java::read_object_stream(r);
  REQUIRE(v.ok());
  CHECK(r.at_end());
  const java::Value* next = (*v)->field("next");
  REQUIRE(next);
  CHECK(next != v->get());
  CHECK(next->kind == java::Value::Kind::kObject);
  CHECK(next->class_name == "A");
  CHECK(next->unfilled);
  CHECK(next->classes.empty());
}

TEST_CASE("a java stream of more objects than the reader builds is refused", "[format][unit][corrupt]") {
  // Each string of an Object[] is a node of the tree, a hundred bytes or more for three bytes of
  // input: 70,000 of them exceed the reader's 65,536 nodes, 60,000 do not. Primitive arrays keep
  // their elements as bytes and count as one node.
  for (int32_t n : {60000, 70000}) {
    ByteWriter w;
    w.u16(0xACED);
    w.u16(5);
    w.u8(0x75);  // TC_ARRAY of class "[Ljava.lang.Object;"
    w.u8(0x72);
    (void)w.utf("[Ljava.lang.Object;");
    w.u64(0x90CE589F1073296Cull);
    w.u8(0x02);
    w.u16(0);
    w.u8(0x78);
    w.u8(0x70);
    w.i32(n);
    for (int32_t i = 0; i < n; ++i) {
      w.u8(0x74);
      w.u16(0);
    }
    ByteReader r(w.buffer());
    auto v = java::read_object_stream(r);
    INFO(n << " elements");
    if (n == 60000) {
      REQUIRE(v.ok());
      CHECK((*v)->elements.size() == 60000);
    } else {
      REQUIRE_FALSE(v.ok());
      CHECK(v.error().message == "java stream holds more than 65536 objects");
    }
  }
}

namespace {

using test::JavaStreamBuilder;

// `B extends A`: A has `int a`, B has `String b` and `int a` again. Handles: 0x7e0000 B's
// descriptor, 0x7e0001 the type of b, 0x7e0002 A's descriptor, 0x7e0003 the object.
JavaStreamBuilder& class_b(JavaStreamBuilder& s) {
  s.class_desc("B", 2, 0x02, {{'I', "a", ""}, {'L', "b", "Ljava/lang/String;"}});
  s.class_desc("A", 1, 0x02, {{'I', "a", ""}}).null();
  return s;
}

java::ValuePtr read_ok(const std::string& bytes) {
  ByteReader r(bytes);
  auto v = java::read_object_stream(r);
  if (!v.ok()) FAIL(v.error().to_string());
  CHECK(r.at_end());
  return *v;
}

Error read_error(const std::string& bytes, uint64_t base = 0) {
  ByteReader r(bytes, base);
  auto v = java::read_object_stream(r);
  REQUIRE_FALSE(v.ok());
  REQUIRE(v.error().offset.has_value());
  return v.error();
}

}  // namespace

TEST_CASE("a hand-made object with a superclass chain reads superclass fields first", "[format][unit]") {
  JavaStreamBuilder s;
  s.header().object();
  class_b(s);
  s.raw().i32(1);   // A.a
  s.raw().i32(2);   // B.a
  s.string("bee");  // B.b
  auto v = read_ok(s.bytes());
  REQUIRE(v->kind == java::Value::Kind::kObject);
  CHECK(v->class_name == "B");
  REQUIRE(v->classes.size() == 2);
  CHECK(v->classes[0].desc->name == "A");
  CHECK(v->classes[0].fields[0].second->number == 1);
  CHECK(v->classes[1].desc->uid == 2);
  CHECK(v->field("a")->number == 2);  // the most derived class' field
  CHECK(v->field("b")->text == "bee");
  CHECK(v->class_data("A")->fields.size() == 1);
  CHECK(v->desc->super->name == "A");
  CHECK(v->desc->fields[1].signature == "Ljava/lang/String;");
}

TEST_CASE("hand-made back references reach descriptors strings and objects by handle", "[format][unit]") {
  // An Object[] of: a B, a second B by its descriptor's handle, the first B again, B's class.
  JavaStreamBuilder s;
  s.header().array();
  s.class_desc("[Ljava.lang.Object;", 0, 0x02, {}).null();  // 0x7e0000, the array 0x7e0001
  s.raw().i32(5);
  s.object();
  class_b(s);  // 0x7e0002..0x7e0004, the object 0x7e0005
  s.raw().i32(1);
  s.raw().i32(2);
  s.string("x");  // 0x7e0006
  s.object().reference(0x7E0002);  // 0x7e0007
  s.raw().i32(3);
  s.raw().i32(4);
  s.reference(0x7E0006);  // the same string
  s.reference(0x7E0005);  // the first object
  s.class_object().reference(0x7E0002);  // B.class
  s.reference(0x7E0004);  // A's descriptor as a value
  auto v = read_ok(s.bytes());
  REQUIRE(v->length() == 5);
  const auto& e = v->elements;
  CHECK(e[1]->class_name == "B");
  CHECK(e[1]->field("a")->number == 4);
  CHECK(e[1]->field("b")->text == "x");
  CHECK(e[2] == e[0]);
  CHECK(e[3]->kind == java::Value::Kind::kClass);
  CHECK(e[3]->class_name == "B");
  CHECK(e[4]->kind == java::Value::Kind::kClass);
  CHECK(e[4]->class_name == "A");
}

TEST_CASE("hand-made enums arrays and proxies read as the grammar says", "[format][unit]") {
  JavaStreamBuilder s;
  s.header().array();
  s.class_desc("[Ljava.lang.Object;", 0, 0x02, {}).null();  // 0x7e0000, array 0x7e0001
  s.raw().i32(4);
  s.enum_constant().class_desc("E", 0, 0x12, {});   // 0x7e0002
  s.class_desc("java.lang.Enum", 0, 0x12, {}).null();  // 0x7e0003
  s.string("ON");                                    // enum 0x7e0004, name 0x7e0005
  s.enum_constant().reference(0x7E0002).reference(0x7E0005);  // 0x7e0006, name by reference
  s.array().class_desc("[S", 0, 0x02, {}).null();    // 0x7e0007, array 0x7e0008
  s.raw().i32(2);
  s.raw().i16(-1);
  s.raw().i16(300);
  s.object().proxy_class_desc({"java.lang.Runnable", "java.io.Serializable"});  // 0x7e0009
  s.class_desc("java.lang.reflect.Proxy", 0, 0x02, {}).null();  // no fields; object 0x7e000b
  auto v = read_ok(s.bytes());
  const auto& e = v->elements;
  CHECK(e[0]->kind == java::Value::Kind::kEnum);
  CHECK(e[0]->text == "ON");
  CHECK(e[1]->text == "ON");
  CHECK(e[1]->desc == e[0]->desc);
  CHECK(e[2]->length() == 2);
  CHECK(e[2]->primitive_element(0) == -1);
  CHECK(e[2]->primitive_element(1) == 300);
  REQUIRE(e[3]->desc->proxy);
  CHECK(e[3]->desc->interfaces == std::vector<std::string>{"java.lang.Runnable", "java.io.Serializable"});
  CHECK(e[3]->desc->super->name == "java.lang.reflect.Proxy");
}

TEST_CASE("hand-made block data after writeObject fields is joined and long strings decode", "[format][unit]") {
  // SC_WRITE_METHOD | SC_SERIALIZABLE: the fields, then blocks (two short, one long), an object
  // and TC_ENDBLOCKDATA. The object's field is a TC_LONGSTRING with U+0000 and a surrogate pair.
  JavaStreamBuilder s;
  s.header().object();
  s.class_desc("W", 0, 0x03, {{'L', "s", "Ljava/lang/String;"}}).null();
  s.long_string(std::string("a\0\xf0\x9f\x98\x80", 6));
  s.block("\x01\x02").block("\x03").block_long(std::string(300, '\x04'));
  s.string("after");
  s.end_block();
  auto v = read_ok(s.bytes());
  CHECK(v->field("s")->text == std::string("a\0\xf0\x9f\x98\x80", 6));
  const auto& data = v->classes[0].annotations;
  REQUIRE(data.size() == 2);
  CHECK(data[0]->kind == java::Value::Kind::kBlockData);
  CHECK(data[0]->text == "\x01\x02\x03" + std::string(300, '\x04'));
  CHECK(data[1]->text == "after");
}

TEST_CASE("hand-made streams that break the grammar fail at the construct", "[format][unit][corrupt]") {
  SECTION("externalizable in stream protocol 1 has no end to find") {
    JavaStreamBuilder s;
    s.header().object().class_desc("X", 0, 0x04, {}).null();
    Error e = read_error(s.bytes(), 0x20);
    CHECK(e.code == ErrorCode::kNotSupported);
    CHECK(e.message == "externalizable java class X written in stream protocol 1");
  }
  SECTION("an exception written while serializing") {
    JavaStreamBuilder s;
    s.header().code(0x7B);
    Error e = read_error(s.bytes(), 0x20);
    CHECK(e.code == ErrorCode::kNotSupported);
    CHECK(*e.offset == 0x24u);
  }
  SECTION("a reset inside an object") {
    JavaStreamBuilder s;
    s.header().object().class_desc("W", 0, 0x03, {}).null().reset();
    Error e = read_error(s.bytes());
    CHECK(e.message == "java stream reset (0x79) inside an object");
    CHECK(*e.offset == s.bytes().size() - 1);
  }
  SECTION("a reset forgets the handles before it") {
    JavaStreamBuilder s;
    s.header().reset().reset().reference(0x7E0000);
    CHECK(read_error(s.bytes()).message == "java stream back-reference 0x7e0000 to an unassigned handle");
  }
  SECTION("a field count larger than the bytes left") {
    JavaStreamBuilder s;
    s.header().object().code(0x72);
    (void)s.raw().utf("X");
    s.raw().u64(0);
    s.raw().u8(0x02);
    s.raw().i16(0x7FFF);
    Error e = read_error(s.bytes());
    CHECK(e.message == "java class X declares 32767 fields, more than the bytes left hold");
    CHECK(*e.offset == s.bytes().size() - 2);
  }
  SECTION("an array count larger than the bytes left") {
    JavaStreamBuilder s;
    s.header().array().class_desc("[J", 0, 0x02, {}).null();
    s.raw().i32(0x10000000);
    Error e = read_error(s.bytes());
    CHECK(e.message.find("java array element count 268435456 needs at least") == 0);
    CHECK(*e.offset == s.bytes().size() - 4);
  }
  SECTION("a long string longer than the bytes left") {
    JavaStreamBuilder s;
    s.header().code(0x7C);
    s.raw().u64(~0ull);
    CHECK(read_error(s.bytes()).message.find("java long string of 18446744073709551615 bytes") == 0);
  }
  SECTION("block data where the object should be") {
    JavaStreamBuilder s;
    s.header().block("ab");
    CHECK(read_error(s.bytes()).message == "java stream holds block data where an object was expected");
  }
}

TEST_CASE("every cut of a stream a JVM wrote fails inside its bytes", "[format][unit][corrupt]") {
  // Proves the reader never reads past the end and always says where it stopped.
  for (const char* name : {"Circle", "HashMap", "ZonedDateTime", "Proxy", "Ext", "Cycle"}) {
    std::string bytes = test::jdk_stream(name);
    for (size_t n = 0; n < bytes.size(); ++n) {
      INFO(name << " cut at " << n);
      Error e = read_error(bytes.substr(0, n), 0x1000);
      CHECK(*e.offset <= 0x1000 + n);
      CHECK(*e.offset >= 0x1000u);
    }
  }
}
