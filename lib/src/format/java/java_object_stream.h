// format/java/java_object_stream.h - a generic, bounded reader of java.io.ObjectOutputStream data.
//
// RowDataSerializerSnapshot stores its field types as Java-serialized LogicalType objects.
// This reader follows the Object Serialization Stream Protocol grammar (class descriptors,
// handles, objects, strings, enums, arrays, block data, writeObject annotations) without
// knowing any class, and returns a tree the caller interprets by class and field names.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/error.h"
#include "support/byte_reader.h"

namespace ckpt::java {

struct Value;
using ValuePtr = std::shared_ptr<const Value>;

struct Value {
  enum class Kind : uint8_t { kNull, kObject, kString, kEnum, kArray, kClass, kPrimitive, kBlockData };
  Kind kind = Kind::kNull;
  std::string class_name;  // objects, enums, arrays, classes
  std::string text;        // strings, enum constant names, block data bytes
  int64_t number = 0;      // primitives (float / double as their IEEE bits)
  // Serializable fields of every class of the object, superclass first.
  std::vector<std::pair<std::string, ValuePtr>> fields;
  // What writeObject methods wrote after the fields (objects and block data), in order.
  std::vector<ValuePtr> annotations;
  std::vector<ValuePtr> elements;  // arrays

  // The field of that name (the most derived class' if repeated), or nullptr.
  const Value* field(std::string_view name) const;
  bool is_null() const { return kind == Kind::kNull; }
};

// Read one stream: magic AC ED, version 5, one top-level object. r is left after it.
Result<ValuePtr> read_object_stream(ByteReader& r, int max_depth = 64);

}  // namespace ckpt::java
