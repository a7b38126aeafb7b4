// Kryo 2 values of the classes Kryo itself registers (formats/serializers.md §16).
//
// Flink's KryoSerializer writes each value with Kryo.writeClassAndObject: the class (a varint
// registration id, or a name), a reference marker for classes Kryo tracks references of, then
// the class' serializer's bytes. Kryo's constructor registers int, String, float, boolean, byte,
// char, short, long, double and void (ids 0-9, their wrappers sharing the ids) before anything
// Flink or the job registers, so values of those classes read without the job's Kryo set-up;
// KryoSerializer also serializes every Throwable with Java serialization. Anything else stops
// the read at its offset, never guessed.
#include <fmt/format.h>

#include "format/java/java_object_stream.h"
#include "types/java_values.h"
#include "types/value_decoders.h"

namespace ckpt::decoders {
namespace {

// Kryo.NULL and Kryo.NOT_NULL, the class id markers; DefaultClassResolver.NAME + 2.
constexpr uint32_t kKryoNull = 0, kKryoNotNull = 1, kKryoName = 1;
enum class Builtin { kInt, kString, kFloat, kBoolean, kByte, kChar, kShort, kLong, kDouble, kVoid };
constexpr int kBuiltins = 10;

// The declared types whose every value is a builtin or, for Throwable, Java-serialized.
constexpr std::string_view kKryoTypes[] = {"java.lang.Object",    "java.lang.Integer",  "java.lang.String",
                                           "java.lang.Float",     "java.lang.Boolean",  "java.lang.Byte",
                                           "java.lang.Character", "java.lang.Short",    "java.lang.Long",
                                           "java.lang.Double",    "java.lang.Throwable"};

// Input.readVarInt(true) / readVarLong(false): 7-bit groups, low first; a long's ninth byte
// carries 8 bits.
uint32_t kryo_varint(ByteReader& r) {
  uint32_t v = 0;
  for (int i = 0; i < 5 && r.ok(); ++i) {
    uint8_t b = r.u8();
    v |= static_cast<uint32_t>(b & 0x7F) << (7 * i);
    if (!(b & 0x80)) break;
  }
  return v;
}

int64_t kryo_zigzag_long(ByteReader& r) {
  uint64_t v = 0;
  for (int i = 0; i < 9 && r.ok(); ++i) {
    uint8_t b = r.u8();
    if (i == 8) {
      v |= static_cast<uint64_t>(b) << 56;
      break;
    }
    v |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if (!(b & 0x80)) break;
  }
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

int32_t kryo_zigzag_int(ByteReader& r) {
  uint32_t v = kryo_varint(r);
  return static_cast<int32_t>((v >> 1) ^ (~(v & 1) + 1));
}

// Input.readString: ASCII with the last byte's high bit set, or (high bit on the first byte) a
// length + 1 in 6, then 7-bit groups, then that many chars in Java's UTF-8 forms.
bool kryo_string(ByteReader& r, std::string* out) {
  uint64_t at = r.offset();
  uint8_t b = r.u8();
  if (!r.ok()) return false;
  if (!(b & 0x80)) {
    out->push_back(static_cast<char>(b));
    while (r.ok()) {
      uint8_t c = r.u8();
      out->push_back(static_cast<char>(c & 0x7F));
      if (c & 0x80) break;
    }
    return r.ok();
  }
  uint32_t n = b & 0x3F;
  if (b & 0x40) {
    for (int shift = 6; shift <= 27 && r.ok(); shift += 7) {
      uint8_t c = r.u8();
      n |= static_cast<uint32_t>(c & 0x7F) << shift;
      if (!(c & 0x80)) break;
    }
  }
  if (!r.ok() || n == 0) return false;  // 0: null
  if (n - 1 > r.remaining()) {
    r.fail_at(at, fmt::format("Kryo string of {} chars runs past the end of the data", n - 1));
    return false;
  }
  Utf8FromUtf16 utf8(out);
  for (uint32_t i = 1; i < n && r.ok(); ++i) {
    uint8_t c = r.u8();
    uint16_t unit = c;
    if ((c >> 4) == 12 || (c >> 4) == 13)
      unit = static_cast<uint16_t>(((c & 0x1F) << 6) | (r.u8() & 0x3F));
    else if ((c >> 4) == 14) {
      uint16_t hi = static_cast<uint16_t>((c & 0x0F) << 12);
      hi |= static_cast<uint16_t>((r.u8() & 0x3F) << 6);
      unit = static_cast<uint16_t>(hi | (r.u8() & 0x3F));
    } else if (c >= 0x80) {
      r.fail_at(r.offset() - 1, fmt::format("byte {:#x} starts no Kryo string char", c));
    }
    utf8.unit(unit);
  }
  utf8.finish();
  return r.ok();
}

class KryoDecoder final : public ValueDecoder {
 public:
  KryoDecoder(const SerializerSnapshot& s) : ValueDecoder(s.serializer_class), type_(s.type_class) {}

  void read(ByteReader& r, nlohmann::json& out) const override {
    uint64_t at = r.offset();
    uint32_t id = kryo_varint(r);
    if (!r.ok()) return;
    if (id == kKryoNull) {
      out = nullptr;
      return;
    }
    if (id == kKryoName) {
      named(r, at, out);
      return;
    }
    if (id - 2 >= kBuiltins) {
      r.not_supported_at(at, fmt::format("Kryo class registration {} of a {} value: registered by the job or Flink, "
                                         "its serializer is not known",
                                         id - 2, type_));
      return;
    }
    builtin(static_cast<Builtin>(id - 2), r, out);
  }

 private:
  // A class Kryo does not know by id: its name (once per value; later by name id), then, as
  // the class is no wrapper, a reference marker. Only Throwables are understood: Java-serialized.
  void named(ByteReader& r, uint64_t at, nlohmann::json& out) const {
    (void)kryo_varint(r);  // name id, first use: the name follows
    std::string name;
    if (!kryo_string(r, &name)) {
      if (r.ok()) r.fail_at(at, "null Kryo class name");
      return;
    }
    if (type_ != "java.lang.Throwable") {
      r.not_supported_at(at, fmt::format("Kryo value of class {} needs the job's Kryo serializers", name));
      return;
    }
    uint64_t marker_at = r.offset();
    uint32_t marker = kryo_varint(r);
    if (r.ok() && marker != kKryoNotNull) {
      r.fail_at(marker_at, fmt::format("expected a new object (Kryo marker 1) for {}, found {}", name, marker));
      return;
    }
    auto object = java::read_object_stream(r);
    if (object.ok()) out = java_value_json(**object);
  }

  void builtin(Builtin b, ByteReader& r, nlohmann::json& out) const {
    // Wrappers carry no reference marker (MapReferenceResolver.useReferences); String does.
    if (b == Builtin::kString) {
      uint64_t at = r.offset();
      uint32_t marker = kryo_varint(r);
      if (!r.ok()) return;
      if (marker == kKryoNull) {
        out = nullptr;
        return;
      }
      if (marker != kKryoNotNull) {
        r.fail_at(at, fmt::format("Kryo back-reference {} at the start of a value", marker));
        return;
      }
      std::string s;
      if (kryo_string(r, &s))
        out = std::move(s);
      else if (r.ok())
        out = nullptr;
      return;
    }
    switch (b) {
      case Builtin::kInt: out = kryo_zigzag_int(r); return;
      case Builtin::kFloat: out = float_json(r.f32()); return;
      case Builtin::kBoolean: out = r.boolean(); return;
      case Builtin::kByte: out = r.i8(); return;
      case Builtin::kChar: out = char_string(r.u16()); return;
      case Builtin::kShort: out = r.i16(); return;
      case Builtin::kLong: out = kryo_zigzag_long(r); return;
      case Builtin::kDouble: out = double_json(r.f64()); return;
      case Builtin::kVoid: out = nullptr; return;
      case Builtin::kString: return;
    }
  }

  std::string type_;
};

}  // namespace

DecoderPtr make_kryo(const SerializerSnapshot& s) {
  for (std::string_view t : kKryoTypes)
    if (s.type_class == t) return std::make_unique<KryoDecoder>(s);
  return nullptr;
}

}  // namespace ckpt::decoders
