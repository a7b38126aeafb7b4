// Decoders of Flink's basic serializers: primitives, boxed and Value types, strings, big
// numbers, arrays, dates and times, windows and namespaces (formats/serializers.md §2, §3, §4, §5).
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "types/flink_string.h"
#include "types/java_hash.h"
#include "types/serializer_classes.h"
#include "types/value_decoders.h"
#include "support/json_text.h"

namespace ckpt::decoders {
namespace {

enum class Scalar {
  kBoolean, kByte, kShort, kInt, kLong, kFloat, kDouble, kChar,
  kString, kStringValue, kBigInt, kBigDec,
  kDate,          // Date, SqlDate, SqlTime: i64 millis, Long.MIN = null
  kSqlTimestamp,  // i64 millis + i32 nanos
  kInstant,       // i64 seconds + i32 nanos
  kLocalDate, kLocalTime, kLocalDateTime,
  kVoid,          // VoidSerializer: one byte, null
  kVoidNamespace, kTimeWindow, kGlobalWindow, kCountWindow, kNullValue,
  kBooleanArray, kByteArray, kShortArray, kIntArray, kLongArray, kFloatArray, kDoubleArray, kCharArray,
  kStringArray,
};

struct ScalarInfo {
  std::string_view suffix;  // class name after the package, up to '$'
  Scalar kind;
  int32_t length;           // TypeSerializer#getLength()
};

// Base-package serializers, by class name after "org.apache.flink.api.common.typeutils.base.".
constexpr ScalarInfo kBaseScalars[] = {
    {"BooleanSerializer", Scalar::kBoolean, 1}, {"BooleanValueSerializer", Scalar::kBoolean, 1},
    {"ByteSerializer", Scalar::kByte, 1},       {"ByteValueSerializer", Scalar::kByte, 1},
    {"ShortSerializer", Scalar::kShort, 2},     {"ShortValueSerializer", Scalar::kShort, 2},
    {"IntSerializer", Scalar::kInt, 4},         {"IntValueSerializer", Scalar::kInt, 4},
    {"LongSerializer", Scalar::kLong, 8},       {"LongValueSerializer", Scalar::kLong, 8},
    {"FloatSerializer", Scalar::kFloat, 4},     {"FloatValueSerializer", Scalar::kFloat, 4},
    {"DoubleSerializer", Scalar::kDouble, 8},   {"DoubleValueSerializer", Scalar::kDouble, 8},
    {"CharSerializer", Scalar::kChar, 2},       {"CharValueSerializer", Scalar::kChar, 2},
    {"StringSerializer", Scalar::kString, -1},  {"StringValueSerializer", Scalar::kStringValue, -1},
    {"BigIntSerializer", Scalar::kBigInt, -1},  {"BigDecSerializer", Scalar::kBigDec, -1},
    {"DateSerializer", Scalar::kDate, 8},       {"SqlDateSerializer", Scalar::kDate, 8},
    {"SqlTimeSerializer", Scalar::kDate, 8},    {"SqlTimestampSerializer", Scalar::kSqlTimestamp, 12},
    {"InstantSerializer", Scalar::kInstant, 12},
    {"LocalDateSerializer", Scalar::kLocalDate, 6}, {"LocalTimeSerializer", Scalar::kLocalTime, 7},
    {"LocalDateTimeSerializer", Scalar::kLocalDateTime, 13},
    {"VoidSerializer", Scalar::kVoid, 1},       {"NullValueSerializer", Scalar::kNullValue, 0},
    {"array.BooleanPrimitiveArraySerializer", Scalar::kBooleanArray, -1},
    {"array.BytePrimitiveArraySerializer", Scalar::kByteArray, -1},
    {"array.ShortPrimitiveArraySerializer", Scalar::kShortArray, -1},
    {"array.IntPrimitiveArraySerializer", Scalar::kIntArray, -1},
    {"array.LongPrimitiveArraySerializer", Scalar::kLongArray, -1},
    {"array.FloatPrimitiveArraySerializer", Scalar::kFloatArray, -1},
    {"array.DoublePrimitiveArraySerializer", Scalar::kDoubleArray, -1},
    {"array.CharPrimitiveArraySerializer", Scalar::kCharArray, -1},
    {"array.StringArraySerializer", Scalar::kStringArray, -1},
};

struct FullName {
  std::string_view snapshot_class;
  Scalar kind;
  int32_t length;
};

constexpr FullName kOtherScalars[] = {
    // VoidNamespace reports 0 although it writes one byte; Flink's key layout depends on it.
    {"org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot", Scalar::kVoidNamespace, 0},
    {"org.apache.flink.streaming.api.windowing.windows.TimeWindow$Serializer$TimeWindowSerializerSnapshot",
     Scalar::kTimeWindow, 16},
    // The table runtime's windows report 0 too, although they write 16 and 8 bytes.
    {"org.apache.flink.table.runtime.operators.window.TimeWindow$Serializer$TimeWindowSerializerSnapshot",
     Scalar::kTimeWindow, 0},
    {"org.apache.flink.streaming.api.windowing.windows.GlobalWindow$Serializer$GlobalWindowSerializerSnapshot",
     Scalar::kGlobalWindow, 0},
    {"org.apache.flink.table.runtime.operators.window.CountWindow$Serializer$CountWindowSerializerSnapshot",
     Scalar::kCountWindow, 0},
};

constexpr int64_t kLongMin = std::numeric_limits<int64_t>::min();
constexpr int32_t kIntMin = std::numeric_limits<int32_t>::min();

int32_t java_long_hash(int64_t v) {
  auto u = static_cast<uint64_t>(v);
  return static_cast<int32_t>(static_cast<uint32_t>(u ^ (u >> 32)));
}

class ScalarDecoder final : public ValueDecoder {
 public:
  ScalarDecoder(std::string serializer_class, Scalar kind, int32_t length)
      : ValueDecoder(std::move(serializer_class)), kind_(kind), length_(length) {}

  int32_t fixed_length() const override { return length_; }

  void read(ByteReader& r, nlohmann::json& out) const override {
    switch (kind_) {
      case Scalar::kBoolean: out = r.boolean(); return;
      case Scalar::kByte: out = r.i8(); return;
      case Scalar::kShort: out = r.i16(); return;
      case Scalar::kInt: out = r.i32(); return;
      case Scalar::kLong: out = r.i64(); return;
      case Scalar::kFloat: out = float_json(r.f32()); return;
      case Scalar::kDouble: out = double_json(r.f64()); return;
      case Scalar::kChar: out = char_string(r.u16()); return;
      case Scalar::kString: {
        std::string s;
        if (read_flink_string(r, &s)) out = std::move(s);
        else out = nullptr;
        return;
      }
      case Scalar::kStringValue: {
        std::string s;
        read_string_value(r, &s);
        out = std::move(s);
        return;
      }
      case Scalar::kBigInt: out = read_big_int(r); return;
      case Scalar::kBigDec: {
        nlohmann::json unscaled = read_big_int(r);
        if (unscaled.is_null()) { out = nullptr; return; }
        int32_t scale = r.i32();
        out = {{"unscaled", std::move(unscaled)}, {"scale", scale}};
        return;
      }
      case Scalar::kDate: {
        int64_t v = r.i64();
        out = v == kLongMin ? nlohmann::json(nullptr) : nlohmann::json(v);
        return;
      }
      case Scalar::kSqlTimestamp: {
        int64_t ms = r.i64();
        int32_t ns = r.i32();
        out = ms == kLongMin ? nlohmann::json(nullptr) : nlohmann::json{{"millis", ms}, {"nanos", ns}};
        return;
      }
      case Scalar::kInstant: {
        int64_t s = r.i64();
        int32_t ns = r.i32();
        out = s == kLongMin ? nlohmann::json(nullptr) : nlohmann::json{{"seconds", s}, {"nanos", ns}};
        return;
      }
      case Scalar::kLocalDate: out = read_local_date(r); return;
      case Scalar::kLocalTime: out = read_local_time(r); return;
      case Scalar::kLocalDateTime: {
        nlohmann::json d = read_local_date(r);
        nlohmann::json t = read_local_time(r);
        out = d.is_null() ? nlohmann::json(nullptr) : nlohmann::json{{"date", std::move(d)}, {"time", std::move(t)}};
        return;
      }
      case Scalar::kVoid: r.u8(); out = nullptr; return;
      case Scalar::kVoidNamespace: r.u8(); out = "VoidNamespace"; return;
      case Scalar::kGlobalWindow: r.u8(); out = "GlobalWindow"; return;
      case Scalar::kTimeWindow: {
        int64_t start = r.i64();
        int64_t end = r.i64();
        out = {{"start", start}, {"end", end}};
        return;
      }
      case Scalar::kCountWindow: out = {{"id", r.i64()}}; return;
      case Scalar::kNullValue: out = nullptr; return;
      case Scalar::kByteArray: {
        int32_t n = r.count(1, "byte array element");
        // Built in place: the initializer-list form checks and copies each member (the entry
        // iterator decodes every byte[] value this way).
        out = nlohmann::json::object();
        out.get_ref<nlohmann::json::object_t&>().emplace("bytes", to_hex(r.bytes(n)));
        return;
      }
      case Scalar::kBooleanArray: array(r, out, 1, [](ByteReader& x) { return nlohmann::json(x.boolean()); }); return;
      case Scalar::kShortArray: array(r, out, 2, [](ByteReader& x) { return nlohmann::json(x.i16()); }); return;
      case Scalar::kIntArray: array(r, out, 4, [](ByteReader& x) { return nlohmann::json(x.i32()); }); return;
      case Scalar::kLongArray: array(r, out, 8, [](ByteReader& x) { return nlohmann::json(x.i64()); }); return;
      case Scalar::kFloatArray: array(r, out, 4, [](ByteReader& x) { return float_json(x.f32()); }); return;
      case Scalar::kDoubleArray: array(r, out, 8, [](ByteReader& x) { return double_json(x.f64()); }); return;
      case Scalar::kCharArray: array(r, out, 2, [](ByteReader& x) { return nlohmann::json(char_string(x.u16())); }); return;
      case Scalar::kStringArray:
        array(r, out, 1, [](ByteReader& x) {
          std::string s;
          return read_flink_string(x, &s) ? nlohmann::json(std::move(s)) : nlohmann::json(nullptr);
        });
        return;
    }
  }

  // The types keys, namespaces and values most often have, written without a tree.
  void write_json(ByteReader& r, std::string& out) const override {
    switch (kind_) {
      case Scalar::kBoolean: out += r.boolean() ? "true" : "false"; return;
      case Scalar::kByte: append_json_integer(out, r.i8()); return;
      case Scalar::kShort: append_json_integer(out, r.i16()); return;
      case Scalar::kInt: append_json_integer(out, r.i32()); return;
      case Scalar::kLong: append_json_integer(out, r.i64()); return;
      case Scalar::kString: {
        std::string s;
        if (read_flink_string(r, &s)) append_json_string(out, s);
        else out += "null";
        return;
      }
      case Scalar::kDate: {
        int64_t v = r.i64();
        if (v == kLongMin) out += "null";
        else append_json_integer(out, v);
        return;
      }
      case Scalar::kVoidNamespace: r.u8(); out += "\"VoidNamespace\""; return;
      case Scalar::kGlobalWindow: r.u8(); out += "\"GlobalWindow\""; return;
      case Scalar::kTimeWindow: {
        int64_t start = r.i64();
        int64_t end = r.i64();
        out += "{\"end\":";  // members in key order, as the tree prints
        append_json_integer(out, end);
        out += ",\"start\":";
        append_json_integer(out, start);
        out += '}';
        return;
      }
      case Scalar::kByteArray: {
        int32_t n = r.count(1, "byte array element");
        std::string_view bytes = r.bytes(n);
        out += "{\"bytes\":\"";
        append_hex(out, bytes);
        out += "\"}";
        return;
      }
      default: ValueDecoder::write_json(r, out); return;
    }
  }

  void skip(ByteReader& r) const override {
    if (length_ > 0) { r.skip(static_cast<size_t>(length_)); return; }
    switch (kind_) {
      case Scalar::kString: skip_flink_string(r); return;
      case Scalar::kStringValue: skip_string_value(r); return;
      case Scalar::kVoidNamespace: case Scalar::kGlobalWindow: r.skip(1); return;
      case Scalar::kNullValue: return;
      case Scalar::kByteArray: case Scalar::kBooleanArray: r.skip(r.count(1, "array element")); return;
      case Scalar::kShortArray: case Scalar::kCharArray: r.skip(size_t{2} * r.count(2, "array element")); return;
      case Scalar::kIntArray: case Scalar::kFloatArray: r.skip(size_t{4} * r.count(4, "array element")); return;
      case Scalar::kLongArray: case Scalar::kDoubleArray: r.skip(size_t{8} * r.count(8, "array element")); return;
      case Scalar::kStringArray: {
        int32_t n = r.count(1, "string array element");
        for (int32_t i = 0; i < n && r.ok(); ++i) skip_flink_string(r);
        return;
      }
      default: {
        nlohmann::json ignored;
        read(r, ignored);
      }
    }
  }

  std::optional<int32_t> java_hash_code(const nlohmann::json& v) const override {
    if (v.is_null()) return std::nullopt;
    // `v` is what read() gave, but any JSON may be passed: a value of another type has no hash
    // here rather than an exception.
    switch (kind_) {
      case Scalar::kBoolean:
        if (!v.is_boolean()) return std::nullopt;
        return v.get<bool>() ? 1231 : 1237;
      case Scalar::kByte: case Scalar::kShort: case Scalar::kInt:
        if (!v.is_number_integer()) return std::nullopt;
        return v.get<int32_t>();
      case Scalar::kLong:
      case Scalar::kDate:  // java.util.Date#hashCode is its millis' Long hash
        if (!v.is_number_integer()) return std::nullopt;
        return java_long_hash(v.get<int64_t>());
      case Scalar::kChar:  // a one-unit string hashes to its unit
      case Scalar::kString:
        if (!v.is_string()) return std::nullopt;
        return java_string_hash(v.get_ref<const std::string&>());
      case Scalar::kBigInt: return java_big_integer_hash(v);
      case Scalar::kBigDec: return java_big_decimal_hash(v);
      case Scalar::kDouble: {
        if (!v.is_number()) return std::nullopt;
        double d = v.get<double>();
        uint64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        if (std::isnan(d)) bits = 0x7ff8000000000000ULL;
        return java_long_hash(static_cast<int64_t>(bits));
      }
      case Scalar::kFloat: {
        if (!v.is_number()) return std::nullopt;
        float f = static_cast<float>(v.get<double>());
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        if (std::isnan(f)) bits = 0x7fc00000u;
        return static_cast<int32_t>(bits);
      }
      default: return std::nullopt;
    }
  }

 private:
  template <class F>
  static void array(ByteReader& r, nlohmann::json& out, size_t elem, F&& one) {
    int32_t n = r.count(elem, "array element");
    out = nlohmann::json::array();
    for (int32_t i = 0; i < n && r.ok(); ++i) out.push_back(one(r));
  }

  static nlohmann::json read_big_int(ByteReader& r) {
    int32_t t = r.i32();
    if (!r.ok()) return nullptr;
    switch (t) {
      case 0: return nullptr;
      case 1: return 0;
      case 2: return 1;
      case 3: return 10;
      default: break;
    }
    if (t < 4) {
      r.fail(fmt::format("invalid BigInteger length {}", t));
      return nullptr;
    }
    std::string_view mag = r.bytes(static_cast<size_t>(t - 4));
    return r.ok() ? big_integer_json(mag) : nlohmann::json(nullptr);
  }

  static nlohmann::json read_local_date(ByteReader& r) {
    int32_t year = r.i32();
    if (year == kIntMin) { r.i16(); return nullptr; }
    int8_t month = r.i8();
    int8_t day = r.i8();
    return {{"year", year}, {"month", month}, {"day", day}};
  }

  static nlohmann::json read_local_time(ByteReader& r) {
    int8_t hour = r.i8();
    if (hour == std::numeric_limits<int8_t>::min()) { r.i16(); r.i32(); return nullptr; }
    int8_t minute = r.i8();
    int8_t second = r.i8();
    int32_t nano = r.i32();
    return {{"hour", hour}, {"minute", minute}, {"second", second}, {"nano", nano}};
  }

  Scalar kind_;
  int32_t length_;
};

class OpaqueDecoder final : public ValueDecoder {
 public:
  OpaqueDecoder(std::string serializer_class, std::string why)
      : ValueDecoder(std::move(serializer_class)), why_(std::move(why)) {}
  bool decodable() const override { return false; }
  std::string why_not() const override { return why_; }
  void read(ByteReader& r, nlohmann::json&) const override { refuse(r); }
  void skip(ByteReader& r) const override { refuse(r); }

 private:
  void refuse(ByteReader& r) const {
    r.not_supported_at(r.offset(), fmt::format("cannot find the end of a {} value: {}", serializer_class(), why_));
  }
  std::string why_;
};

}  // namespace

DecoderPtr make_scalar(const SerializerSnapshot& s) {
  std::string_view c = s.snapshot_class;
  for (const auto& f : kOtherScalars)
    if (c == f.snapshot_class) return std::make_unique<ScalarDecoder>(s.serializer_class, f.kind, f.length);
  std::string_view base = snapshot_class::kBase;
  if (c.substr(0, base.size()) != base) return nullptr;
  std::string_view rest = c.substr(base.size());
  rest = rest.substr(0, rest.find('$'));
  for (const auto& f : kBaseScalars)
    if (rest == f.suffix) return std::make_unique<ScalarDecoder>(s.serializer_class, f.kind, f.length);
  return nullptr;
}

DecoderPtr make_opaque(const SerializerSnapshot& s, std::string why) {
  return std::make_unique<OpaqueDecoder>(s.serializer_class.empty() ? s.snapshot_class : s.serializer_class,
                                         std::move(why));
}

namespace {

// Both hex digits of every byte value, so that a byte costs one 2-byte copy: a digit at a time
// into a fresh string was the dump's largest cost (byte-array values).
struct HexPairs {
  char digits[512];
  constexpr HexPairs() : digits() {
    constexpr char kDigits[] = "0123456789abcdef";
    for (int b = 0; b < 256; ++b) {
      digits[2 * b] = kDigits[b >> 4];
      digits[2 * b + 1] = kDigits[b & 15];
    }
  }
};
constexpr HexPairs kHexPairs;

}  // namespace

void append_hex(std::string& out, std::string_view bytes) {
  const size_t at = out.size();
  out.resize(at + 2 * bytes.size());
  char* p = out.data() + at;
  for (unsigned char b : bytes) {
    std::memcpy(p, &kHexPairs.digits[2 * b], 2);
    p += 2;
  }
}

std::string to_hex(std::string_view bytes) {
  std::string out;
  append_hex(out, bytes);
  return out;
}

nlohmann::json big_integer_json(std::string_view b) {
  if (b.empty()) return 0;
  bool negative = static_cast<unsigned char>(b[0]) & 0x80;
  if (b.size() <= 8) {
    uint64_t v = negative ? ~uint64_t{0} : 0;
    for (unsigned char c : b) v = (v << 8) | c;
    return static_cast<int64_t>(v);
  }
  // Magnitude of a two's complement number, then repeated division by 10 for the digits.
  std::vector<uint8_t> mag(b.begin(), b.end());
  if (negative) {
    for (auto& x : mag) x = static_cast<uint8_t>(~x);
    for (size_t i = mag.size(); i-- > 0;) if (++mag[i] != 0) break;
  }
  std::string digits;
  size_t start = 0;
  while (start < mag.size()) {
    unsigned rem = 0;
    for (size_t i = start; i < mag.size(); ++i) {
      unsigned cur = (rem << 8) | mag[i];
      mag[i] = static_cast<uint8_t>(cur / 10);
      rem = cur % 10;
    }
    digits.push_back(static_cast<char>('0' + rem));
    while (start < mag.size() && mag[start] == 0) ++start;
  }
  if (digits.empty()) digits = "0";
  if (negative) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}

nlohmann::json float_json(float f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, f);
  return std::strtod(std::string(buf, res.ptr).c_str(), nullptr);
}

nlohmann::json double_json(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return d;
}

std::string char_string(uint16_t unit) {
  std::string out;
  append_utf16_as_utf8(&unit, 1, &out);
  return out;
}

}  // namespace ckpt::decoders
