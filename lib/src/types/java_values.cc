// Java-serialized objects as JSON: the JDK's classes from the layouts their writeObject /
// writeExternal methods write, any other object by its class descriptors.
#include "types/java_values.h"

#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "support/byte_reader.h"
#include "types/value_decoder.h"
#include "types/value_decoders.h"

namespace ckpt {
namespace {

using java::ClassData;
using JavaValue = java::Value;
using Json = nlohmann::json;
using JavaKind = JavaValue::Kind;

// What a writeObject / writeExternal method wrote, read the way ObjectInputStream lets the
// matching readObject read it: primitives from block data, objects where the block data ends.
// Any mismatch (or anything left over) makes ok() false, and the caller falls back to hex.
class DataCursor {
 public:
  explicit DataCursor(const std::vector<java::ValuePtr>& items) : items_(items) {}

  bool ok() const { return ok_; }
  void fail() { ok_ = false; }
  bool at_end() const { return ok_ && item_ == items_.size(); }

  std::string_view bytes(size_t n) {
    if (!ok_ || item_ >= items_.size() || items_[item_]->kind != JavaKind::kBlockData ||
        items_[item_]->text.size() - pos_ < n) {
      ok_ = false;
      return {};
    }
    std::string_view out = std::string_view(items_[item_]->text).substr(pos_, n);
    pos_ += n;
    if (pos_ == items_[item_]->text.size()) next();
    return out;
  }
  uint64_t big_endian(size_t n) {
    uint64_t v = 0;
    for (char c : bytes(n)) v = (v << 8) | static_cast<uint8_t>(c);
    return v;
  }
  int8_t i8() { return static_cast<int8_t>(big_endian(1)); }
  int32_t i32() { return static_cast<int32_t>(big_endian(4)); }
  int64_t i64() { return static_cast<int64_t>(big_endian(8)); }
  std::string utf() {
    std::string_view raw = bytes(static_cast<size_t>(big_endian(2)));
    std::string out;
    if (ok_ && !decode_modified_utf8(raw, &out)) ok_ = false;
    return out;
  }
  const JavaValue* object() {
    if (!ok_ || item_ >= items_.size() || items_[item_]->kind == JavaKind::kBlockData) {
      ok_ = false;
      return nullptr;
    }
    const JavaValue* v = items_[item_].get();
    next();
    return v;
  }

 private:
  void next() {
    ++item_;
    pos_ = 0;
  }
  const std::vector<java::ValuePtr>& items_;
  size_t item_ = 0;
  size_t pos_ = 0;
  bool ok_ = true;
};

Json render(const JavaValue& v);

Json primitive_json(char type, int64_t n) {
  switch (type) {
    case 'Z': return n != 0;
    case 'C': return decoders::char_string(static_cast<uint16_t>(n));
    case 'F': {
      auto bits = static_cast<uint32_t>(n);
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return decoders::float_json(f);
    }
    case 'D': {
      auto bits = static_cast<uint64_t>(n);
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return decoders::double_json(d);
    }
    default: return n;
  }
}

Json array_json(const JavaValue& v) {
  if (v.type == 'B') return {{"bytes", decoders::to_hex(v.text)}};
  Json out = Json::array();
  if (java::primitive_size(v.type) != 0) {
    for (size_t i = 0; i < v.length(); ++i) out.push_back(primitive_json(v.type, v.primitive_element(i)));
  } else {
    for (const auto& e : v.elements) out.push_back(render(*e));
  }
  return out;
}

// `n` objects of the cursor as an array, or `n` key / value pairs as [k, v] arrays.
std::optional<Json> objects(DataCursor& c, int64_t n, bool pairs) {
  Json out = Json::array();
  for (int64_t i = 0; i < n && c.ok(); ++i) {
    const JavaValue* a = c.object();
    if (!pairs) {
      if (a) out.push_back(render(*a));
      continue;
    }
    const JavaValue* b = c.object();
    if (a && b) out.push_back(Json::array({render(*a), render(*b)}));
  }
  if (!c.at_end()) return std::nullopt;
  return out;
}

// BigInteger's serial form: signum and the magnitude, unsigned big-endian.
std::optional<Json> big_integer(const JavaValue& v) {
  const JavaValue* signum = v.field("signum");
  const JavaValue* magnitude = v.field("magnitude");
  if (!signum || !magnitude || magnitude->kind != JavaKind::kArray || magnitude->type != 'B') return std::nullopt;
  // Two's complement of the signed value: a zero byte for the sign, negated when negative.
  std::string twos = std::string(1, '\0') + magnitude->text;
  if (signum->number < 0) {
    bool carry = true;
    for (size_t i = twos.size(); i-- > 0;) {
      auto b = static_cast<uint8_t>(~static_cast<uint8_t>(twos[i]));
      if (carry) carry = ++b == 0;
      twos[i] = static_cast<char>(b);
    }
  }
  return decoders::big_integer_json(twos);
}

// java.time: the ISO-8601 form of a zone offset as ZoneOffset.getId() gives it.
std::string offset_id(int32_t seconds) {
  if (seconds == 0) return "Z";
  int32_t a = seconds < 0 ? -seconds : seconds;
  std::string id = fmt::format("{}{:02}:{:02}", seconds < 0 ? '-' : '+', a / 3600, a / 60 % 60);
  if (a % 60) id += fmt::format(":{:02}", a % 60);
  return id;
}

// The writeExternal forms of java.time (java.time.Ser and each class' writeExternal).
struct TimeReader {
  DataCursor& c;

  Json date() {
    int32_t year = c.i32();
    int8_t month = c.i8();
    int8_t day = c.i8();
    return {{"year", year}, {"month", month}, {"day", day}};
  }
  // LocalTime.writeExternal: trailing zero parts are left out, the last written one inverted.
  Json time() {
    int8_t hour = c.i8(), minute = 0, second = 0;
    int32_t nano = 0;
    if (hour < 0) {
      hour = static_cast<int8_t>(~hour);
    } else {
      minute = c.i8();
      if (minute < 0) {
        minute = static_cast<int8_t>(~minute);
      } else {
        second = c.i8();
        if (second < 0) second = static_cast<int8_t>(~second);
        else nano = c.i32();
      }
    }
    return {{"hour", hour}, {"minute", minute}, {"second", second}, {"nano", nano}};
  }
  // ZoneOffset.writeExternal: quarter hours in a byte, or 127 and the seconds.
  std::string offset() {
    int8_t quarters = c.i8();
    return offset_id(quarters == 127 ? c.i32() : quarters * 900);
  }
  // ZoneId.write: ZoneRegion (7) or ZoneOffset (8).
  std::string zone() {
    int8_t type = c.i8();
    if (type == 7) return c.utf();
    if (type == 8) return offset();
    c.fail();
    return {};
  }
  Json date_time() {
    Json d = date();
    return {{"date", std::move(d)}, {"time", time()}};
  }

  std::optional<Json> read() {
    int8_t type = c.i8();
    Json out;
    switch (type) {
      case 1:    // Duration
      case 2: {  // Instant
        int64_t seconds = c.i64();
        out = {{"seconds", seconds}, {"nanos", c.i32()}};
        break;
      }
      case 3: out = date(); break;
      case 4: out = time(); break;
      case 5: out = date_time(); break;
      case 6: {  // ZonedDateTime
        out = date_time();
        out["offset"] = offset();
        out["zone"] = zone();
        break;
      }
      case 7: out = c.utf(); break;  // ZoneRegion
      case 8: out = offset(); break;
      case 9: {  // OffsetTime
        out = time();
        out = {{"time", out}, {"offset", offset()}};
        break;
      }
      case 10: {  // OffsetDateTime
        out = date_time();
        out["offset"] = offset();
        break;
      }
      case 11: out = c.i32(); break;  // Year
      case 12: {
        int32_t year = c.i32();
        out = {{"year", year}, {"month", c.i8()}};
        break;
      }
      case 13: {
        int8_t month = c.i8();
        out = {{"month", month}, {"day", c.i8()}};
        break;
      }
      case 14: {
        int32_t years = c.i32();
        int32_t months = c.i32();
        out = {{"years", years}, {"months", months}, {"days", c.i32()}};
        break;
      }
      default: return std::nullopt;
    }
    if (!c.at_end()) return std::nullopt;
    return out;
  }
};

std::string uuid_string(uint64_t hi, uint64_t lo) {
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF, hi & 0xFFFF, lo >> 48,
                     lo & 0xFFFFFFFFFFFFull);
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The JDK's classes this file knows, or nullopt (then the object is rendered by its fields).
std::optional<Json> jdk_value(const JavaValue& v) {
  const std::string& c = v.class_name;
  auto data = [&](std::string_view name) -> const std::vector<java::ValuePtr>* {
    const ClassData* d = v.class_data(name);
    return d ? &d->annotations : nullptr;
  };
  static const char* const kBoxes[] = {"java.lang.Integer", "java.lang.Long",   "java.lang.Short",
                                       "java.lang.Byte",    "java.lang.Double", "java.lang.Float",
                                       "java.lang.Boolean", "java.lang.Character"};
  for (const char* box : kBoxes) {
    if (c != box) continue;
    const JavaValue* value = v.field("value");
    if (!value || value->kind != JavaKind::kPrimitive) return std::nullopt;
    return primitive_json(value->type, value->number);
  }
  if (c == "java.math.BigInteger") return big_integer(v);
  if (c == "java.math.BigDecimal") {
    const JavaValue* unscaled = v.field("intVal");
    const JavaValue* scale = v.field("scale");
    if (!unscaled || unscaled->kind != JavaKind::kObject || unscaled->class_name != "java.math.BigInteger" || !scale)
      return std::nullopt;
    auto n = big_integer(*unscaled);
    if (!n) return std::nullopt;
    return Json{{"unscaled", std::move(*n)}, {"scale", scale->number}};
  }
  if (c == "java.time.Ser") {
    const auto* items = data(c);
    if (!items) return std::nullopt;
    DataCursor cursor(*items);
    return TimeReader{cursor}.read();
  }
  if (c == "java.util.Date") {
    const auto* items = data(c);
    if (!items) return std::nullopt;
    DataCursor cursor(*items);
    int64_t millis = cursor.i64();
    if (!cursor.at_end()) return std::nullopt;
    return millis;
  }
  if (c == "java.util.UUID") {
    const JavaValue* hi = v.field("mostSigBits");
    const JavaValue* lo = v.field("leastSigBits");
    if (!hi || !lo) return std::nullopt;
    return uuid_string(static_cast<uint64_t>(hi->number), static_cast<uint64_t>(lo->number));
  }
  // Lists and sets: writeObject writes a count (ArrayList: its capacity, then the elements).
  if (c == "java.util.ArrayList" || c == "java.util.LinkedList" || c == "java.util.ArrayDeque" ||
      c == "java.util.HashSet" || c == "java.util.LinkedHashSet" || c == "java.util.TreeSet") {
    std::string_view owner = c;
    if (c == "java.util.LinkedHashSet") owner = "java.util.HashSet";
    const auto* items = data(owner);
    if (!items) return std::nullopt;
    DataCursor cursor(*items);
    if (owner == "java.util.TreeSet") (void)cursor.object();  // its comparator
    int32_t n = cursor.i32();
    if (owner == "java.util.HashSet") {  // capacity, load factor, size
      (void)cursor.i32();
      n = cursor.i32();
    }
    if (c == "java.util.ArrayList") {
      const JavaValue* size = v.field("size");
      if (!size || size->number < 0) return std::nullopt;
      n = static_cast<int32_t>(size->number);
    }
    return objects(cursor, n, false);
  }
  // Maps: [k, v] pairs in stored order, as value_decoder.h prints maps.
  if (c == "java.util.HashMap" || c == "java.util.LinkedHashMap" || c == "java.util.TreeMap" ||
      c == "java.util.Hashtable" || c == "java.util.Properties") {
    std::string_view owner = c == "java.util.LinkedHashMap"  ? "java.util.HashMap"
                             : c == "java.util.Properties" ? "java.util.Hashtable"
                                                           : std::string_view(c);
    const auto* items = data(owner);
    if (!items) return std::nullopt;
    DataCursor cursor(*items);
    if (owner == "java.util.HashMap" || owner == "java.util.Hashtable") (void)cursor.i32();  // buckets / capacity
    int32_t n = cursor.i32();
    return objects(cursor, n, true);
  }
  // List.of, Set.of, Map.of and friends: java.util.CollSer with its tag.
  if (c == "java.util.CollSer") {
    const auto* items = data(c);
    const JavaValue* tag = v.field("tag");
    if (!items || !tag) return std::nullopt;
    DataCursor cursor(*items);
    int32_t n = cursor.i32();
    int64_t kind = tag->number & 0xFF;
    if (kind == 3) return n % 2 == 0 ? objects(cursor, n / 2, true) : std::nullopt;  // IMM_MAP
    if (kind == 1 || kind == 2 || kind == 4) return objects(cursor, n, false);      // IMM_LIST, _SET, _LIST_NULLS
    return std::nullopt;
  }
  if (c == "java.util.Arrays$ArrayList") {
    const JavaValue* a = v.field("a");
    if (!a || a->kind != JavaKind::kArray) return std::nullopt;
    return array_json(*a);
  }
  if (c == "java.util.Collections$EmptyList" || c == "java.util.Collections$EmptySet" ||
      c == "java.util.Collections$EmptyMap")
    return Json::array();
  if (c == "java.util.Collections$SingletonList" || c == "java.util.Collections$SingletonSet") {
    const JavaValue* e = v.field("element");
    if (!e) return std::nullopt;
    return Json::array({render(*e)});
  }
  if (c == "java.util.Collections$SingletonMap") {
    const JavaValue* k = v.field("k");
    const JavaValue* val = v.field("v");
    if (!k || !val) return std::nullopt;
    return Json::array({Json::array({render(*k), render(*val)})});
  }
  // Views that wrap a collection or map: the wrapped one.
  if (starts_with(c, "java.util.Collections$Unmodifiable") || starts_with(c, "java.util.Collections$Synchronized") ||
      starts_with(c, "java.util.Collections$Checked")) {
    for (const char* name : {"c", "m"}) {
      const JavaValue* inner = v.field(name);
      if (inner && !inner->is_null()) return render(*inner);
    }
  }
  return std::nullopt;
}

// What writeObject / writeExternal methods wrote that is not interpreted: objects rendered,
// block data as hex with the reason.
Json method_data(const ClassData& d, const char* method) {
  Json out = Json::array();
  for (const auto& item : d.annotations) {
    if (item->kind == JavaKind::kBlockData) {
      out.push_back({{"hex", decoders::to_hex(item->text)},
                     {"why", fmt::format("data of {}.{} is not interpreted", d.desc->name, method)}});
    } else {
      out.push_back(render(*item));
    }
  }
  return out;
}

Json object_json(const JavaValue& v) {
  if (v.unfilled) return {{"class", v.class_name}, {"cycle", "a reference to an object that contains it"}};
  if (auto jdk = jdk_value(v)) return std::move(*jdk);
  Json fields = Json::object();
  Json write_object = Json::array();
  Json write_external = Json::array();
  // Most derived class first: a field a superclass declares again goes under "Class.name".
  for (auto d = v.classes.rbegin(); d != v.classes.rend(); ++d) {
    for (const auto& [name, value] : d->fields)
      fields[fields.contains(name) ? d->desc->name + "." + name : name] = render(*value);
  }
  for (const ClassData& d : v.classes) {
    if (d.annotations.empty()) continue;
    bool external = d.desc->flags & java::kScExternalizable;
    Json& out = external ? write_external : write_object;
    for (auto& item : method_data(d, external ? "writeExternal" : "writeObject")) out.push_back(std::move(item));
  }
  Json out = {{"class", v.class_name}, {"fields", std::move(fields)}};
  if (v.desc && v.desc->proxy) out["interfaces"] = v.desc->interfaces;
  if (!write_object.empty()) out["writeObject"] = std::move(write_object);
  if (!write_external.empty()) out["writeExternal"] = std::move(write_external);
  return out;
}

Json render(const JavaValue& v) {
  switch (v.kind) {
    case JavaKind::kNull: return nullptr;
    case JavaKind::kString:
    case JavaKind::kEnum: return v.text;
    case JavaKind::kPrimitive: return primitive_json(v.type, v.number);
    case JavaKind::kArray: return array_json(v);
    case JavaKind::kClass: return {{"class", "java.lang.Class"}, {"name", v.class_name}};
    case JavaKind::kBlockData: return {{"hex", decoders::to_hex(v.text)}, {"why", "block data outside an object"}};
    case JavaKind::kObject: return object_json(v);
  }
  return nullptr;
}

// Flink's JavaSerializer: each value one ObjectOutputStream stream (InstantiationUtil.serializeObject),
// whose end the stream's own grammar gives.
class JavaObjectDecoder final : public ValueDecoder {
 public:
  explicit JavaObjectDecoder(std::string serializer_class) : ValueDecoder(std::move(serializer_class)) {}
  void read(ByteReader& r, nlohmann::json& out) const override {
    auto v = java::read_object_stream(r);
    if (v.ok()) out = render(**v);
  }
  void skip(ByteReader& r) const override { (void)java::read_object_stream(r); }
};

constexpr std::string_view kJavaSerializer = "org.apache.flink.runtime.state.JavaSerializer";

}  // namespace

nlohmann::json java_value_json(const java::Value& v) { return render(v); }

namespace decoders {

DecoderPtr make_java(const SerializerSnapshot& s) {
  if (s.snapshot_class == std::string(kJavaSerializer) + "$JavaSerializerSnapshot")
    return std::make_unique<JavaObjectDecoder>(s.serializer_class);
  if (s.form != SnapshotForm::kLegacyConfig) return nullptr;
  // A legacy config snapshot keeps the serializer itself, Java-serialized: Flink 1.2's
  // `_default_` operator state names a JavaSerializer this way.
  ByteReader r(s.legacy_java_serializer, s.offset);
  auto serializer = java::read_object_stream(r);
  if (!serializer.ok() || (*serializer)->class_name != kJavaSerializer) return nullptr;
  return std::make_unique<JavaObjectDecoder>(std::string(kJavaSerializer));
}

DecoderPtr make_java_singleton(const SerializerSnapshot& s) {
  if (s.form != SnapshotForm::kLegacyConfig) return nullptr;
  ByteReader r(s.legacy_java_serializer, s.offset);
  auto serializer = java::read_object_stream(r);
  if (!serializer.ok() || (*serializer)->kind != java::Value::Kind::kObject) return nullptr;
  const std::string& c = (*serializer)->class_name;
  constexpr std::string_view kBase = "org.apache.flink.api.common.typeutils.base.";
  bool base = c.starts_with(kBase) && c.find_first_of(".$", kBase.size()) == std::string::npos;
  if (!base && c != "org.apache.flink.runtime.state.VoidNamespaceSerializer") return nullptr;
  // A configured serializer of those packages (EnumSerializer, ListSerializer...) has fields
  // its snapshot would have to carry: only field-less singletons are what their class says.
  for (const auto& cls : (*serializer)->classes)
    if (!cls.fields.empty()) return nullptr;
  SerializerSnapshot simple;
  simple.snapshot_class = c + "$" + c.substr(c.rfind('.') + 1) + "Snapshot";
  simple.serializer_class = c;
  simple.version = 3;
  simple.form = SnapshotForm::kSimple;
  return make_scalar(simple);
}

}  // namespace decoders
}  // namespace ckpt
