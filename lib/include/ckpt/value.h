// ckpt/value.h - a decoded value: one field of a state entry (ckpt/entries.h) as typed data.
//
// What the value decoders make of the bytes a Flink serializer wrote, in the conventions
// `ckpt dump` prints (formats/json.md); the entry iterator, the query tables and the Python
// module read fields as these.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"

namespace ckpt {

// A decoded value: what `ckpt dump` prints as JSON, with typed access. Objects keep their
// members in the order printed. A byte string (byte[] state) is kBytes, its bytes as they are:
// it prints as the object {"bytes":"<hex>"} (formats/serializers.md), but the iterator and the
// Python module need not build that object and the hex for millions of values.
class CKPT_API Value {
 public:
  enum class Kind : uint8_t { kNull, kBool, kInt, kUnsigned, kDouble, kString, kArray, kObject, kBytes };

  Value() = default;  // null
  static Value boolean(bool b);
  static Value integer(int64_t i);
  static Value unsigned_integer(uint64_t u);
  static Value number(double d);
  static Value string(std::string s);
  static Value bytes(std::string raw);
  static Value array(std::vector<Value> elements);
  static Value object(std::vector<std::string> keys, std::vector<Value> values);  // same length

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_number() const { return kind_ == Kind::kInt || kind_ == Kind::kUnsigned || kind_ == Kind::kDouble; }
  // The value as that type: false, 0 or "" when it is not one (numbers convert between kinds
  // as C++ casts do).
  bool as_bool() const { return kind_ == Kind::kBool && bool_; }
  int64_t as_int() const;
  uint64_t as_unsigned() const;
  double as_double() const;
  const std::string& as_string() const { return kind_ == Kind::kString ? string_ : no_string(); }
  const std::string& as_bytes() const { return kind_ == Kind::kBytes ? string_ : no_string(); }
  // Array elements or object member values, in order; empty for scalars (and byte strings).
  const std::vector<Value>& elements() const { return elements_; }
  // Object member names, parallel to elements(); empty for arrays and scalars.
  const std::vector<std::string>& keys() const { return keys_; }
  size_t size() const { return elements_.size(); }
  // An object's member, or nullptr.
  const Value* find(std::string_view key) const;
  // Compact JSON text, byte for byte what `ckpt dump` prints for this value.
  std::string json() const;

  // By content; a byte string equals the object {"bytes":"<hex>"} that prints the same.
  bool operator==(const Value& o) const;
  bool operator!=(const Value& o) const { return !(*this == o); }

 private:
  static const std::string& no_string();
  template <class T>
  static Value with_field(Kind kind, T Value::*field, T x) {
    Value v;
    v.kind_ = kind;
    v.*field = std::move(x);
    return v;
  }

  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  int64_t int_ = 0;
  uint64_t unsigned_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<Value> elements_;
  std::vector<std::string> keys_;
};

// The value of JSON text as `ckpt dump` prints values (a lookup key given on a command line,
// say), objects' members in written order. Errors (kInvalidArgument): not exactly one JSON
// value (naming the byte), or nested deeper than 256 levels.
CKPT_API Result<Value> parse_value(std::string_view json);

}  // namespace ckpt
