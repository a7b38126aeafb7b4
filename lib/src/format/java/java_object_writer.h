// format/java/java_object_writer.h - the one writer of java.io.ObjectOutputStream data.
//
// Writes objects of known classes as Flink's JVM serializes them (formats/serializers.md §13):
// the class descriptors with their serialVersionUIDs and fields in ObjectStreamClass' order,
// and the handles ObjectOutputStream assigns (descriptors, strings, enum constants and objects
// in the order they are first written), so that an object met again is a TC_REFERENCE to the
// handle it took. Used for the checkpoint properties trailer of `_metadata`
// (format/java/java_serialization.h) and the SQL LogicalTypes of a load spec's RowData
// snapshots (ops/load/spec_types.cc).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "support/byte_writer.h"

namespace ckpt::java {

// A serializable field as ObjectStreamClass lists it.
struct FieldSpec {
  char type;  // 'Z', 'I', ... (the JVM type code), 'L' for objects
  std::string name;
  std::string signature;  // object fields only: "Ljava/lang/String;"
  bool primitive() const { return type != 'L' && type != '['; }
};

// A class as its descriptor describes it. Fields are in Java's serialization order (see
// sort_fields); `super` is the serializable superclass (nullptr: none).
struct ClassSpec {
  std::string name;
  uint64_t uid;
  uint8_t flags;
  std::vector<FieldSpec> fields;
  const ClassSpec* super;
  std::vector<std::string> constants;  // enums: the constants a reader accepts (empty: any)
};

// ObjectStreamClass.getDefaultSerialFields sorts with ObjectStreamField.compareTo: primitive
// fields first, then object fields, each group by name (ASCII names, so byte order is
// String.compareTo's order).
std::vector<FieldSpec> sort_fields(std::vector<FieldSpec> fields);

// One stream: the magic and version are written by the constructor, then the caller writes one
// object through the calls below, in the order ObjectOutputStream writes its parts.
class ObjectWriter {
 public:
  ObjectWriter();

  // A string Java interns (a field signature, a class's constant): written once, then a
  // back-reference to the first one.
  void string(const std::string& s);
  // A String object of its own (a name read from input): written anew, taking a new handle.
  void new_string(const std::string& s);
  void null();
  // TC_CLASSDESC with the fields and the superclasses, or a back-reference once written.
  void class_desc(const ClassSpec* spec);
  // TC_ENUM of a constant of `spec`, or a back-reference once written (constants are singletons).
  void enum_constant(const ClassSpec* spec, const std::string& name);
  // TC_OBJECT and the class descriptor of a new object; returns the handle the object takes.
  // The caller then writes the values of every class in its chain, the topmost superclass
  // first, each class's fields in `fields` order (primitives through out()), then what a
  // class's writeObject method adds (block_data, objects, end_block).
  uint32_t begin_object(const ClassSpec* spec);
  // TC_REFERENCE to a handle begin_object returned (the same object met again).
  void reference(uint32_t handle);
  // TC_BLOCKDATA of `bytes` (at most 255) and TC_ENDBLOCKDATA, as a writeObject method writes them.
  void block_data(const std::string& bytes);
  void end_block();

  ByteWriter& out() { return w_; }
  std::string take() { return w_.take(); }

 private:
  void write_string(const std::string& s);

  ByteWriter w_;
  uint32_t next_;
  std::map<std::string, uint32_t> strings_;
  std::map<const ClassSpec*, uint32_t> classes_;
  std::map<std::pair<const ClassSpec*, std::string>, uint32_t> enums_;
};

}  // namespace ckpt::java
