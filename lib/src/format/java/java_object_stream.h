// format/java/java_object_stream.h - the one reader of java.io.ObjectOutputStream data.
//
// The Java Object Serialization Stream Protocol (formats/serializers.md §13) is
// self-describing: class descriptors carry every class name, field name and field type, so a
// stream is read into a tree without knowing any class. Every user in ckpt goes through this
// reader: the checkpoint properties trailer of `_metadata` (format/java/java_serialization.h
// checks the tree against Flink's classes), the table runtime's Java-serialized LogicalTypes
// and serializers (types/logical_types.cc), and values of Flink's JavaSerializer
// (types/java_values.h renders them as JSON).
//
// Bounds: objects nested `max_depth` deep (superclass chains included), `max_objects` nodes of
// the tree (objects, strings, descriptors, fields and block data, so a tiny input cannot
// build a huge tree), no allocation sized by a length before it is checked against the bytes
// left, and no class descriptor used (as a superclass or an object's class) while it is read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/error.h"
#include "support/byte_reader.h"

namespace ckpt::java {

// java.io.ObjectStreamConstants.
inline constexpr uint16_t kStreamMagic = 0xACED;
inline constexpr uint16_t kStreamVersion = 5;
inline constexpr uint8_t kTcNull = 0x70, kTcReference = 0x71, kTcClassDesc = 0x72, kTcObject = 0x73,
                         kTcString = 0x74, kTcArray = 0x75, kTcClass = 0x76, kTcBlockData = 0x77,
                         kTcEndBlockData = 0x78, kTcReset = 0x79, kTcBlockDataLong = 0x7A,
                         kTcException = 0x7B, kTcLongString = 0x7C, kTcProxyClassDesc = 0x7D, kTcEnum = 0x7E;
inline constexpr uint32_t kBaseWireHandle = 0x7E0000;
inline constexpr uint8_t kScWriteMethod = 0x01, kScSerializable = 0x02, kScExternalizable = 0x04,
                         kScBlockData = 0x08, kScEnum = 0x10;

struct Value;
using ValuePtr = std::shared_ptr<const Value>;
struct ClassDesc;
using ClassDescPtr = std::shared_ptr<const ClassDesc>;

struct FieldDesc {
  char type = 0;          // 'B' 'C' 'D' 'F' 'I' 'J' 'S' 'Z', or 'L' / '[' for object fields
  std::string name;
  std::string signature;  // object fields: the field type's JVM signature, "Ljava/lang/String;"
  bool primitive() const { return type != 'L' && type != '['; }
};

// A TC_CLASSDESC or TC_PROXYCLASSDESC.
struct ClassDesc {
  uint64_t offset = 0;  // of its type code
  std::string name;     // a proxy class: "$Proxy" (its interfaces are listed)
  uint64_t uid = 0;     // serialVersionUID
  uint8_t flags = 0;    // kSc* bits
  std::vector<FieldDesc> fields;        // in stream (serialization) order
  bool proxy = false;
  std::vector<std::string> interfaces;  // proxy classes
  std::vector<ValuePtr> annotations;    // what annotateClass / annotateProxyClass wrote
  ClassDescPtr super;                   // nullptr: none
};

// What one class of an object's class chain wrote: its serializable fields, then (a class
// with a writeObject method, or an externalizable one) what that method wrote, in order:
// block data (adjacent blocks joined) and objects.
struct ClassData {
  ClassDescPtr desc;
  std::vector<std::pair<std::string, ValuePtr>> fields;
  std::vector<ValuePtr> annotations;
};

struct Value {
  enum class Kind : uint8_t { kNull, kObject, kString, kEnum, kArray, kClass, kPrimitive, kBlockData };
  Kind kind = Kind::kNull;
  uint64_t offset = 0;     // of its type code (a field's primitive: of its bytes)
  ClassDescPtr desc;       // objects, enums, arrays, classes
  std::string class_name;  // desc->name, or the class of a class descriptor used as a value
  // Strings and enum constant names (UTF-8; lone surrogates as their 3-byte form), block data
  // bytes, and the elements of a primitive array as stored (big-endian, `type` each).
  std::string text;
  char type = 0;           // primitives and the elements of an array: the JVM type code
  int64_t number = 0;      // primitives (char as its unit, float / double as their IEEE bits)
  std::vector<ClassData> classes;  // objects: every serializable class, superclass first
  std::vector<ValuePtr> elements;  // arrays of objects
  // A back-reference to an object still being read (a cyclic graph): the tree stays a tree, so
  // the reference stands for the object without its contents.
  bool unfilled = false;

  bool is_null() const { return kind == Kind::kNull; }
  // The field of that name (the most derived class' if repeated), or nullptr.
  const Value* field(std::string_view name) const;
  // The data of the class of that name in the object's chain, or nullptr.
  const ClassData* class_data(std::string_view name) const;
  // Arrays: the number of elements; primitive arrays: element i as `number` would hold it.
  size_t length() const;
  int64_t primitive_element(size_t i) const;
};

struct Limits {
  int max_depth = 64;
  size_t max_objects = size_t{1} << 16;
};

// Read one stream: magic AC ED, version 5, then one object (TC_RESET before it allowed).
// r is left after it; errors are r's (sticky) error, at the offset of the bad construct.
Result<ValuePtr> read_object_stream(ByteReader& r, Limits limits = {});

// The size in bytes of a primitive of JVM type code `type`; 0 for anything else.
size_t primitive_size(char type);

}  // namespace ckpt::java
