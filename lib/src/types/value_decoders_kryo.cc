// Kryo 2 values of the classes Kryo itself registers and of JDK collections (formats/serializers.md §16).
//
// Flink's KryoSerializer writes each value with Kryo.writeClassAndObject: the class (a varint
// registration id, or a name), a reference marker for classes Kryo tracks references of, then
// the class' serializer's bytes. Kryo's constructor registers int, String, float, boolean, byte,
// char, short, long, double and void (ids 0-9, their wrappers sharing the ids) before anything
// Flink or the job registers, so values of those classes read without the job's Kryo set-up;
// KryoSerializer also serializes every Throwable with Java serialization. Anything else stops
// the read at its offset, never guessed.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "format/java/java_object_stream.h"
#include "types/java_values.h"
#include "types/kryo_values.h"
#include "types/value_decoders.h"

namespace ckpt::decoders {
namespace {

// Kryo.NULL and Kryo.NOT_NULL, the class id markers; DefaultClassResolver.NAME + 2.
constexpr uint32_t kKryoNull = 0, kKryoNotNull = 1, kKryoName = 1;
enum class Builtin { kInt, kString, kFloat, kBoolean, kByte, kChar, kShort, kLong, kDouble, kVoid };
constexpr int kBuiltins = 10;

// The declared types whose values are builtins, JDK collections or, for Throwable, Java-serialized.
constexpr std::string_view kKryoTypes[] = {
    "java.lang.Object", "java.lang.Integer", "java.lang.String", "java.lang.Float", "java.lang.Boolean",
    "java.lang.Byte", "java.lang.Character", "java.lang.Short", "java.lang.Long", "java.lang.Double",
    "java.lang.Throwable",
    // Interfaces: their values' classes are never Flink's
    // registration (the declared type), so they are named.
    "java.lang.Iterable", "java.util.Collection", "java.util.List", "java.util.Set", "java.util.Queue",
    "java.util.Deque", "java.util.Map", "java.util.SortedMap", "java.util.NavigableMap"};

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

// Kryo's default serializer of each JDK collection class it reaches with no registration
// (Kryo's constructor: Collection -> CollectionSerializer, TreeMap -> TreeMapSerializer, Map ->
// MapSerializer; the first assignable entry wins). Only classes no earlier, more specific
// default covers are listed; TreeSet is not (its serializer differs between Kryo versions).
enum class KryoShape { kCollection, kMap, kTreeMap };
struct KryoJdkCollection {
  std::string_view name;
  KryoShape shape;
  // The collection interface the class stands for in a type (kryo_values.h): an ArrayDeque is
  // no List, so it stays a class of its own (kOther).
  KryoType::Kind kind;
  // Its superclasses and interfaces besides those of every collection or map (kCollectionTypes,
  // kMapTypes), through Java 21: a job's default Kryo serializer for any of them is the one
  // Kryo takes for the class (Kryo.getDefaultSerializer: the job's defaults come before Kryo's
  // own, and the first whose type is assignable from the class wins).
  std::string_view supertypes;
};
constexpr std::string_view kCollectionTypes =
    "java.lang.Object java.io.Serializable java.lang.Cloneable java.lang.Iterable java.util.Collection "
    "java.util.AbstractCollection java.util.SequencedCollection";
constexpr std::string_view kMapTypes = "java.lang.Object java.io.Serializable java.lang.Cloneable java.util.Map";
constexpr KryoJdkCollection kJdkCollections[] = {
    {"java.util.ArrayList", KryoShape::kCollection, KryoType::Kind::kList,
     "java.util.AbstractList java.util.List java.util.RandomAccess"},
    {"java.util.LinkedList", KryoShape::kCollection, KryoType::Kind::kList,
     "java.util.AbstractSequentialList java.util.AbstractList java.util.List java.util.Deque java.util.Queue"},
    {"java.util.HashSet", KryoShape::kCollection, KryoType::Kind::kSet, "java.util.AbstractSet java.util.Set"},
    {"java.util.LinkedHashSet", KryoShape::kCollection, KryoType::Kind::kSet,
     "java.util.HashSet java.util.AbstractSet java.util.Set java.util.SequencedSet"},
    {"java.util.Vector", KryoShape::kCollection, KryoType::Kind::kList,
     "java.util.AbstractList java.util.List java.util.RandomAccess"},
    {"java.util.ArrayDeque", KryoShape::kCollection, KryoType::Kind::kOther, "java.util.Deque java.util.Queue"},
    {"java.util.HashMap", KryoShape::kMap, KryoType::Kind::kMap, "java.util.AbstractMap"},
    {"java.util.LinkedHashMap", KryoShape::kMap, KryoType::Kind::kMap,
     "java.util.HashMap java.util.AbstractMap java.util.SequencedMap"},
    {"java.util.Hashtable", KryoShape::kMap, KryoType::Kind::kMap, "java.util.Dictionary"},
    {"java.util.TreeMap", KryoShape::kTreeMap, KryoType::Kind::kMap,
     "java.util.AbstractMap java.util.NavigableMap java.util.SortedMap java.util.SequencedMap"}};

// Whether `list` (class names separated by single spaces) holds `name`.
bool lists(std::string_view list, std::string_view name) {
  for (size_t at = 0; at <= list.size();) {
    size_t end = std::min(list.find(' ', at), list.size());
    if (list.substr(at, end - at) == name) return true;
    at = end + 1;
  }
  return false;
}

// The class of the job's default Kryo serializers that Kryo would take for `c` (the first
// listed: Flink adds them in the snapshot's order), or nullptr when Kryo's own serializer it is.
const std::string* overriding_default(const KryoJdkCollection& c, const std::vector<std::string>& defaults) {
  const std::string_view common = c.shape == KryoShape::kCollection ? kCollectionTypes : kMapTypes;
  for (const std::string& d : defaults)
    if (d == c.name || lists(c.supertypes, d) || lists(common, d)) return &d;
  return nullptr;
}

// Nested collections deeper than this are refused rather than recursed into.
constexpr int kMaxKryoDepth = 64;

// What one writeClassAndObject call tree shares: Kryo resets both after each top-level value.
struct KryoGraph {
  std::vector<std::string> class_names;  // DefaultClassResolver's name ids, in first-use order
  // MapReferenceResolver's ids, in the order objects were first written; a collection stays
  // null (a back-reference to it is refused: copying it could grow the output without bound).
  std::vector<std::optional<nlohmann::json>> objects;
  std::vector<KryoType> object_types;  // objects' types, same ids (a back-reference has its object's)
  int depth = 0;
};

// One Kryo 2 value of a declared type; with a KryoType to fill, the Java types of what it reads too.
class KryoReader {
 public:
  // `defaults`: the classes the job gave default Kryo serializers of its own (may be null: none).
  explicit KryoReader(std::string_view declared, const std::vector<std::string>* defaults = nullptr)
      : type_(declared), defaults_(defaults) {}

  // Kryo.readClassAndObject. `t` (may be null): set to the value's type.
  void class_and_object(ByteReader& r, KryoGraph& g, nlohmann::json& out, KryoType* t) const {
    uint64_t at = r.offset();
    uint32_t id = kryo_varint(r);
    if (!r.ok()) return;
    if (id == kKryoNull) {
      out = nullptr;
      if (t) *t = KryoType{KryoType::Kind::kNone, true, {}, {}};
      return;
    }
    if (id == kKryoName) {
      named(r, g, at, out, t);
      return;
    }
    if (id - 2 >= kBuiltins) {
      r.not_supported_at(at, fmt::format("Kryo class registration {} of a {} value: registered by the job or Flink, "
                                         "its serializer is not known",
                                         id - 2, type_));
      return;
    }
    builtin(static_cast<Builtin>(id - 2), r, g, out, t);
  }

 private:
  // Kryo.readReferenceOrNull: 0 null, 1 a new object (its id is the next one), n >= 2 the object
  // of id n - 2. Returns the new object's id, or -1 when `out` is set already or r failed.
  long reference(ByteReader& r, KryoGraph& g, std::string_view what, nlohmann::json& out, KryoType* t) const {
    uint64_t at = r.offset();
    uint32_t marker = kryo_varint(r);
    if (!r.ok()) return -1;
    if (marker == kKryoNull) {
      out = nullptr;
      if (t) *t = KryoType{KryoType::Kind::kNone, true, {}, {}};
      return -1;
    }
    if (marker == kKryoNotNull) {
      g.objects.emplace_back();
      g.object_types.emplace_back();
      return static_cast<long>(g.objects.size() - 1);
    }
    uint32_t ref = marker - 2;
    if (ref >= g.objects.size()) {
      r.fail_at(at, fmt::format("Kryo back-reference to object {} of a {}, only {} read so far", ref, what,
                                g.objects.size()));
      return -1;
    }
    if (!g.objects[ref]) {
      r.not_supported_at(at,
                         fmt::format("Kryo back-reference to object {}, a collection or one still being read", ref));
      return -1;
    }
    out = *g.objects[ref];
    if (t) *t = g.object_types[ref];
    return -1;
  }

  // A class Kryo does not know by id: DefaultClassResolver.readName gives it a name id and,
  // on its first use in the value, its name. JDK collections and, under a declared Throwable,
  // Java-serialized throwables are understood; anything else needs the job's set-up.
  void named(ByteReader& r, KryoGraph& g, uint64_t at, nlohmann::json& out, KryoType* t) const {
    uint64_t name_at = r.offset();
    uint32_t name_id = kryo_varint(r);
    if (!r.ok()) return;
    std::string name;
    if (name_id < g.class_names.size()) {
      name = g.class_names[name_id];
    } else if (name_id == g.class_names.size()) {
      if (!kryo_string(r, &name)) {
        if (r.ok()) r.fail_at(at, "null Kryo class name");
        return;
      }
      g.class_names.push_back(name);
    } else {
      r.fail_at(name_at, fmt::format("Kryo class name id {} before id {} was named", name_id, g.class_names.size()));
      return;
    }
    for (const KryoJdkCollection& c : kJdkCollections) {
      if (name != c.name) continue;
      if (const std::string* d = defaults_ ? overriding_default(c, *defaults_) : nullptr) {
        r.not_supported_at(at, fmt::format("Kryo value of class {}: the job gives {} a default Kryo serializer of "
                                           "its own, whose bytes only it knows",
                                           name, *d));
        return;
      }
      return collection(c, r, g, at, out, t);
    }
    if (type_ != "java.lang.Throwable") {
      r.not_supported_at(at, fmt::format("Kryo value of class {} needs the job's Kryo serializers", name));
      return;
    }
    long id = reference(r, g, name, out, t);
    if (id < 0) return;
    g.object_types[id] = KryoType{KryoType::Kind::kOther, false, name, {}};
    if (t) *t = g.object_types[id];
    auto object = java::read_object_stream(r);
    if (object.ok()) g.objects[id] = out = java_value_json(**object);
  }

  // CollectionSerializer / MapSerializer (Kryo 2): the size varint, then every element (key,
  // value) with its class; TreeMapSerializer first writes its comparator the same way.
  // `t`: the interface type, its element types unified over the elements (kryo_unify).
  void collection(const KryoJdkCollection& c, ByteReader& r, KryoGraph& g, uint64_t at, nlohmann::json& out,
                  KryoType* t) const {
    long id = reference(r, g, c.name, out, t);
    if (id < 0) return;
    if (g.depth >= kMaxKryoDepth) {
      r.not_supported_at(at, fmt::format("Kryo collections nested deeper than {}", kMaxKryoDepth));
      return;
    }
    if (c.shape == KryoShape::kTreeMap) {
      uint64_t cmp_at = r.offset();
      uint32_t comparator = kryo_varint(r);
      if (!r.ok()) return;
      if (comparator != kKryoNull) {
        r.not_supported_at(cmp_at, "a TreeMap with a comparator: its class needs the job's Kryo serializers");
        return;
      }
    }
    uint64_t size_at = r.offset();
    uint32_t n = kryo_varint(r);
    if (!r.ok()) return;
    // Every element takes one byte at least (a map entry two): a size beyond that is corrupt.
    uint64_t min_bytes = static_cast<uint64_t>(n) * (c.shape == KryoShape::kCollection ? 1 : 2);
    if (min_bytes > r.remaining()) {
      r.fail_at(size_at, fmt::format("Kryo {} of {} elements runs past the end of the data ({} bytes left)", c.name, n,
                                     r.remaining()));
      return;
    }
    ++g.depth;
    out = nlohmann::json::array();
    KryoType own{c.kind, false, c.kind == KryoType::Kind::kOther ? std::string(c.name) : std::string(), {}};
    if (t && c.kind != KryoType::Kind::kOther) own.args.resize(c.shape == KryoShape::kCollection ? 1 : 2);
    KryoType element_type, value_type;
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
      nlohmann::json element;
      class_and_object(r, g, element, t ? &element_type : nullptr);
      if (t && !own.args.empty()) own.args[0] = kryo_unify(own.args[0], element_type);
      if (c.shape != KryoShape::kCollection) {
        nlohmann::json value;
        if (r.ok()) class_and_object(r, g, value, t ? &value_type : nullptr);
        if (t && own.args.size() > 1) own.args[1] = kryo_unify(own.args[1], value_type);
        element = nlohmann::json::array({std::move(element), std::move(value)});
      }
      out.push_back(std::move(element));
    }
    --g.depth;
    if (t) *t = std::move(own);
  }

  void builtin(Builtin b, ByteReader& r, KryoGraph& g, nlohmann::json& out, KryoType* t) const {
    // Builtin's order is KryoType::Kind's from kInt on.
    if (t)
      *t = KryoType{
          static_cast<KryoType::Kind>(static_cast<int>(KryoType::Kind::kInt) + static_cast<int>(b)), false, {}, {}};
    // Wrappers carry no reference marker (MapReferenceResolver.useReferences); String does.
    if (b == Builtin::kString) {
      long id = reference(r, g, "String", out, t);
      if (id < 0) return;
      g.object_types[id] = KryoType{KryoType::Kind::kString, false, {}, {}};
      std::string s;
      if (kryo_string(r, &s))
        out = std::move(s);
      else if (r.ok())
        out = nullptr;
      g.objects[id] = out;
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

  std::string_view type_;
  const std::vector<std::string>* defaults_;
};

class KryoDecoder final : public ValueDecoder {
 public:
  KryoDecoder(const SerializerSnapshot& s)
      : ValueDecoder(s.serializer_class),
        type_(s.type_class),
        defaults_(s.kryo_default_serializers),
        reader_(type_, &defaults_) {}

  void read(ByteReader& r, nlohmann::json& out) const override {
    KryoGraph g;
    reader_.class_and_object(r, g, out, nullptr);
  }

 private:
  std::string type_;
  std::vector<std::string> defaults_;
  KryoReader reader_;  // views type_ and defaults_
};

bool kryo_declared(std::string_view declared) {
  for (std::string_view t : kKryoTypes)
    if (declared == t) return true;
  return false;
}

}  // namespace

DecoderPtr make_kryo(const SerializerSnapshot& s) {
  if (kryo_declared(s.type_class)) return std::make_unique<KryoDecoder>(s);
  return nullptr;
}

}  // namespace ckpt::decoders

namespace ckpt {

KryoType kryo_unify(const KryoType& a, const KryoType& b) {
  using Kind = KryoType::Kind;
  if (a.kind == Kind::kNone) return KryoType{b.kind, a.null_seen || b.null_seen, b.other, b.args};
  if (b.kind == Kind::kNone) return KryoType{a.kind, a.null_seen || b.null_seen, a.other, a.args};
  const bool null_seen = a.null_seen || b.null_seen;
  if (a.kind != b.kind || (a.kind == Kind::kOther && a.other != b.other) || a.args.size() != b.args.size())
    return KryoType{Kind::kMixed, null_seen, kryo_type_name(a) + ", " + kryo_type_name(b), {}};
  KryoType u{a.kind, null_seen, a.other, {}};
  for (size_t i = 0; i < a.args.size(); ++i) u.args.push_back(kryo_unify(a.args[i], b.args[i]));
  return u;
}

std::string kryo_type_name(const KryoType& t) {
  using Kind = KryoType::Kind;
  static constexpr std::string_view kNames[] = {"(none)", "Integer", "String", "Float", "Boolean", "Byte", "Character",
                                                "Short",  "Long",    "Double", "Void",  "List",    "Set",  "Map"};
  if (t.kind == Kind::kOther) return t.other;
  if (t.kind == Kind::kMixed) return "mixed (" + t.other + ")";
  std::string out(kNames[static_cast<int>(t.kind)]);
  if (t.args.empty()) return out;
  out += '<';
  for (size_t i = 0; i < t.args.size(); ++i) out += (i ? ", " : "") + kryo_type_name(t.args[i]);
  return out + '>';
}

Status read_kryo_typed(ByteReader& r, std::string_view declared, const std::vector<std::string>& defaults,
                       nlohmann::json& out, KryoType& type) {
  if (!decoders::kryo_declared(declared))
    return Error(ErrorCode::kNotSupported, fmt::format("Kryo values of {} are not read", declared));
  decoders::KryoGraph g;
  decoders::KryoReader(declared, &defaults).class_and_object(r, g, out, &type);
  if (!r.ok()) return *r.error();
  return Status::OK();
}

}  // namespace ckpt
