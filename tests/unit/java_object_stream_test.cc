// The generic Java object stream reader on hand-built streams that refer back to what is still
// being read: no superclass cycle, no cycle of shared values (which would leak).
#include <catch2/catch.hpp>

#include <string>

#include "format/java/java_object_stream.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/hostile_inputs.h"

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
