// Value (ckpt/value.h): construction, typed access, its JSON text; and value_of(), a decoded
// tree as a Value.
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/value.h"
#include "support/json_input.h"
#include "support/json_text.h"
#include "types/value_decoders.h"
#include "types/value_of.h"

namespace ckpt {

Value Value::boolean(bool b) { return with_field(Kind::kBool, &Value::bool_, b); }
Value Value::integer(int64_t i) { return with_field(Kind::kInt, &Value::int_, i); }
Value Value::unsigned_integer(uint64_t u) { return with_field(Kind::kUnsigned, &Value::unsigned_, u); }
Value Value::number(double d) { return with_field(Kind::kDouble, &Value::double_, d); }
Value Value::string(std::string s) { return with_field(Kind::kString, &Value::string_, std::move(s)); }
Value Value::bytes(std::string raw) { return with_field(Kind::kBytes, &Value::string_, std::move(raw)); }

const std::string& Value::no_string() {
  static const std::string* empty = new std::string;  // never destroyed: values outlive statics
  return *empty;
}
Value Value::array(std::vector<Value> elements) {
  return with_field(Kind::kArray, &Value::elements_, std::move(elements));
}
Value Value::object(std::vector<std::string> keys, std::vector<Value> values) {
  keys.resize(values.size());
  Value v = with_field(Kind::kObject, &Value::elements_, std::move(values));
  v.keys_ = std::move(keys);
  return v;
}

int64_t Value::as_int() const {
  switch (kind_) {
    case Kind::kInt: return int_;
    case Kind::kUnsigned: return static_cast<int64_t>(unsigned_);
    case Kind::kDouble:
      return std::isfinite(double_) && std::fabs(double_) < 9.2e18 ? static_cast<int64_t>(double_) : 0;
    default: return 0;
  }
}

uint64_t Value::as_unsigned() const {
  switch (kind_) {
    case Kind::kInt: return static_cast<uint64_t>(int_);
    case Kind::kUnsigned: return unsigned_;
    case Kind::kDouble:
      return std::isfinite(double_) && double_ >= 0 && double_ < 1.8e19 ? static_cast<uint64_t>(double_) : 0;
    default: return 0;
  }
}

double Value::as_double() const {
  switch (kind_) {
    case Kind::kInt: return static_cast<double>(int_);
    case Kind::kUnsigned: return static_cast<double>(unsigned_);
    case Kind::kDouble: return double_;
    default: return 0;
  }
}

const Value* Value::find(std::string_view key) const {
  for (size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == key) return &elements_[i];
  return nullptr;
}

bool Value::operator==(const Value& o) const {
  // Values parsed from JSON text (value_of) hold byte strings as the object they print as.
  if (kind_ != o.kind_ && (kind_ == Kind::kBytes || o.kind_ == Kind::kBytes)) return json() == o.json();
  return kind_ == o.kind_ && bool_ == o.bool_ && int_ == o.int_ && unsigned_ == o.unsigned_ &&
         (double_ == o.double_ || (std::isnan(double_) && std::isnan(o.double_))) && string_ == o.string_ &&
         keys_ == o.keys_ && elements_ == o.elements_;
}

namespace {

void append_value(std::string& out, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull: out += "null"; return;
    case Value::Kind::kBool: out += v.as_bool() ? "true" : "false"; return;
    case Value::Kind::kInt: append_json_integer(out, v.as_int()); return;
    case Value::Kind::kUnsigned: append_json_text(out, nlohmann::json(v.as_unsigned())); return;
    case Value::Kind::kDouble: append_json_text(out, nlohmann::json(v.as_double())); return;
    case Value::Kind::kString: append_json_string(out, v.as_string()); return;
    case Value::Kind::kBytes:
      out += R"({"bytes":")";
      decoders::append_hex(out, v.as_bytes());
      out += "\"}";
      return;
    case Value::Kind::kArray:
    case Value::Kind::kObject: {
      const bool object = v.kind() == Value::Kind::kObject;
      out += object ? '{' : '[';
      for (size_t i = 0; i < v.size(); ++i) {
        if (i) out += ',';
        if (object) {
          append_json_string(out, v.keys()[i]);
          out += ':';
        }
        append_value(out, v.elements()[i]);
      }
      out += object ? '}' : ']';
      return;
    }
  }
}

}  // namespace

namespace {

// Either tree type's members in its own order: a decoder's tree (nlohmann::json, whose keys the
// decoders chose in print order) or text as written (ordered_json).
// From text, an integer that fits int64 is kInt, as the decoders make a Java long (JSON text does
// not say which it was); nlohmann reads every non-negative one as unsigned.
template <class Json>
Value value_of_tree(Json&& j, bool from_text) {
  using Tree = std::decay_t<Json>;
  switch (j.type()) {
    case Tree::value_t::null: return Value();
    case Tree::value_t::boolean: return Value::boolean(j.template get<bool>());
    case Tree::value_t::number_integer: return Value::integer(j.template get<int64_t>());
    case Tree::value_t::number_unsigned: {
      const uint64_t u = j.template get<uint64_t>();
      if (from_text && u <= static_cast<uint64_t>(INT64_MAX)) return Value::integer(static_cast<int64_t>(u));
      return Value::unsigned_integer(u);
    }
    case Tree::value_t::number_float: return Value::number(j.template get<double>());
    case Tree::value_t::string: return Value::string(std::move(j.template get_ref<std::string&>()));
    case Tree::value_t::array: {
      std::vector<Value> elements;
      elements.reserve(j.size());
      for (auto& e : j) elements.push_back(value_of_tree(std::move(e), from_text));
      return Value::array(std::move(elements));
    }
    case Tree::value_t::object: {
      std::vector<std::string> keys;
      std::vector<Value> values;
      keys.reserve(j.size());
      values.reserve(j.size());
      for (auto it = j.begin(); it != j.end(); ++it) {
        keys.push_back(it.key());
        values.push_back(value_of_tree(std::move(it.value()), from_text));
      }
      return Value::object(std::move(keys), std::move(values));
    }
    default: return Value::string(json_text(j));  // binary: never produced by the decoders or parsed
  }
}

}  // namespace

// Decoded trees are as deep as the serializers' nesting, which the snapshot reader bounds.
Value value_of(nlohmann::json&& j) { return value_of_tree(std::move(j), false); }

Result<Value> parse_value(std::string_view json) {
  // The bounded parser first (nesting, the error's byte); the ordered parse of valid, bounded
  // text then only recovers the members' written order.
  Result<nlohmann::json> checked = parse_json_input(json);
  if (!checked.ok()) return Error(ErrorCode::kInvalidArgument, checked.error().message);
  return value_of_tree(nlohmann::ordered_json::parse(json, nullptr, /*allow_exceptions=*/false), true);
}

std::string Value::json() const {
  std::string out;
  append_value(out, *this);
  return out;
}

}  // namespace ckpt
