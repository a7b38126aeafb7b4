// The V4+ properties trailer: a bounded Java Object Serialization Stream codec for the classes
// of Flink's CheckpointProperties graph, and nothing else.
#include "format/java/java_serialization.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "support/byte_reader.h"
#include "support/byte_writer.h"

namespace ckpt {
namespace {

// Java Object Serialization Stream Protocol constants (java.io.ObjectStreamConstants).
constexpr uint16_t kStreamMagic = 0xACED;
constexpr uint16_t kStreamVersion = 5;
constexpr uint8_t kTcNull = 0x70;
constexpr uint8_t kTcReference = 0x71;
constexpr uint8_t kTcClassDesc = 0x72;
constexpr uint8_t kTcObject = 0x73;
constexpr uint8_t kTcString = 0x74;
constexpr uint8_t kTcEndBlockData = 0x78;
constexpr uint8_t kTcLongString = 0x7C;
constexpr uint8_t kTcEnum = 0x7E;
constexpr uint32_t kBaseWireHandle = 0x7E0000;
constexpr uint8_t kScSerializable = 0x02;
constexpr uint8_t kScEnum = 0x10;

// A valid trailer has 16 handles and nests 3 deep; these limits only stop hostile input.
constexpr size_t kMaxHandles = 256;
constexpr int kMaxDepth = 16;

constexpr const char* kPropertiesClass = "org.apache.flink.runtime.checkpoint.CheckpointProperties";
constexpr const char* kCheckpointTypeClass = "org.apache.flink.runtime.checkpoint.CheckpointType";
constexpr const char* kSavepointTypeClass = "org.apache.flink.runtime.checkpoint.SavepointType";
constexpr const char* kSharingClass = "org.apache.flink.runtime.checkpoint.SnapshotType$SharingFilesStrategy";
constexpr const char* kFormatClass = "org.apache.flink.core.execution.SavepointFormatType";
constexpr const char* kActionClass = "org.apache.flink.runtime.checkpoint.SavepointType$PostCheckpointAction";
constexpr const char* kEnumClass = "java.lang.Enum";

struct FieldSpec {
  char type;              // 'Z', 'L', ... (the JVM type code)
  std::string name;
  std::string signature;  // object fields only: "Ljava/lang/String;"
  bool primitive() const { return type != 'L' && type != '['; }
};

// What ObjectOutputStream writes for one class of the graph. Fields are listed in Java's
// serialization order (see sort_fields), which is what both directions use.
struct ClassSpec {
  std::string name;
  uint64_t uid;
  uint8_t flags;
  std::vector<FieldSpec> fields;
  const ClassSpec* super;
  std::vector<std::string> constants;  // enums: the constants Flink defines
};

// ObjectStreamClass.getDefaultSerialFields sorts with ObjectStreamField.compareTo: primitive
// fields first, then object fields, each group by name (ASCII names, so byte order is
// String.compareTo's order).
std::vector<FieldSpec> sort_fields(std::vector<FieldSpec> fields) {
  std::stable_sort(fields.begin(), fields.end(), [](const FieldSpec& a, const FieldSpec& b) {
    if (a.primitive() != b.primitive()) return a.primitive();
    return a.name < b.name;
  });
  return fields;
}

bool in_serial_order(const std::vector<FieldSpec>& fields) {
  for (size_t i = 1; i < fields.size(); ++i) {
    const FieldSpec& a = fields[i - 1];
    const FieldSpec& b = fields[i];
    if (a.primitive() != b.primitive() ? !a.primitive() : !(a.name < b.name)) return false;
  }
  return true;
}

struct Schema {
  ClassSpec enum_base{kEnumClass, 0, kScSerializable | kScEnum, {}, nullptr, {}};
  ClassSpec sharing{kSharingClass, 0, kScSerializable | kScEnum, {}, &enum_base,
                    {"FORWARD_BACKWARD", "FORWARD", "NO_SHARING"}};
  ClassSpec format{kFormatClass, 0, kScSerializable | kScEnum, {}, &enum_base, {"CANONICAL", "NATIVE"}};
  ClassSpec action{kActionClass, 0, kScSerializable | kScEnum, {}, &enum_base,
                   {"NONE", "SUSPEND", "TERMINATE"}};
  // Declaration order as in Flink's sources; sorted below.
  ClassSpec checkpoint_type{
      kCheckpointTypeClass, 0xD6DE4F0305AE1D3Aull, kScSerializable,
      sort_fields({{'L', "name", "Ljava/lang/String;"},
                   {'L', "sharingFilesStrategy",
                    "Lorg/apache/flink/runtime/checkpoint/SnapshotType$SharingFilesStrategy;"}}),
      nullptr, {}};
  ClassSpec savepoint_type{
      kSavepointTypeClass, 0xA087D308A45814B8ull, kScSerializable,
      sort_fields({{'L', "name", "Ljava/lang/String;"},
                   {'L', "postCheckpointAction",
                    "Lorg/apache/flink/runtime/checkpoint/SavepointType$PostCheckpointAction;"},
                   {'L', "formatType", "Lorg/apache/flink/core/execution/SavepointFormatType;"}}),
      nullptr, {}};
  ClassSpec properties{
      kPropertiesClass, 2, kScSerializable,
      sort_fields({{'L', "checkpointType", "Lorg/apache/flink/runtime/checkpoint/SnapshotType;"},
                   {'Z', "forced", ""},
                   {'Z', "discardSubsumed", ""},
                   {'Z', "discardFinished", ""},
                   {'Z', "discardCancelled", ""},
                   {'Z', "discardFailed", ""},
                   {'Z', "discardSuspended", ""},
                   {'Z', "unclaimed", ""}}),
      nullptr, {}};

  const ClassSpec* find(const std::string& name) const {
    for (const ClassSpec* c : {&enum_base, &sharing, &format, &action, &checkpoint_type, &savepoint_type, &properties})
      if (c->name == name) return c;
    return nullptr;
  }
};

const Schema& schema() {
  static const Schema s;
  return s;
}

size_t primitive_size(char type) {
  switch (type) {
    case 'B': case 'Z': return 1;
    case 'C': case 'S': return 2;
    case 'I': case 'F': return 4;
    case 'J': case 'D': return 8;
    default: return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Decoding

struct Value {
  enum class Kind { kNull, kString, kEnum, kObject } kind = Kind::kNull;
  uint64_t offset = 0;
  const ClassSpec* spec = nullptr;    // enum and object
  std::string text;                   // string contents, enum constant name
  std::vector<uint64_t> primitives;   // object: primitive field values, serialization order
  std::vector<const Value*> objects;  // object: object field values, serialization order
};

class Decoder {
 public:
  explicit Decoder(ByteReader& r) : r_(r) {}

  const Value* read_value(int depth);
  bool ok() const { return r_.ok(); }

 private:
  struct Handle {
    const ClassSpec* spec = nullptr;  // a class descriptor
    const Value* value = nullptr;     // or an object, string or enum constant
  };

  Handle* assign(uint64_t at) {
    if (handles_.size() >= kMaxHandles) {
      r_.fail_at(at, fmt::format("more than {} java serialization handles", kMaxHandles));
      return nullptr;
    }
    handles_.emplace_back();
    return &handles_.back();
  }
  const Handle* reference(uint64_t at) {
    uint32_t h = r_.u32();
    if (!r_.ok()) return nullptr;
    if (h < kBaseWireHandle || h - kBaseWireHandle >= handles_.size()) {
      r_.fail_at(at, fmt::format("java serialization back-reference {:#x} to an unassigned handle", h));
      return nullptr;
    }
    return &handles_[h - kBaseWireHandle];
  }
  Value* make(Value::Kind kind, uint64_t at) {
    values_.emplace_back();
    values_.back().kind = kind;
    values_.back().offset = at;
    return &values_.back();
  }
  const Value* read_string_body(uint8_t tc, uint64_t at);
  const Value* read_string(const char* what);
  const ClassSpec* read_class_desc(int depth, bool* is_null);
  const ClassSpec* read_new_class_desc(int depth);
  Value* read_instance(uint64_t at, Value::Kind kind, int depth);
  bool read_field_values(const ClassSpec& spec, Value* obj, int depth);

  ByteReader& r_;
  std::deque<Handle> handles_;
  std::deque<Value> values_;
  Value null_;
};

const Value* Decoder::read_string_body(uint8_t tc, uint64_t at) {
  std::string text;
  if (tc == kTcString) {
    text = r_.utf();
  } else {
    uint64_t len_at = r_.offset();
    uint64_t n = r_.u64();
    if (!r_.ok()) return nullptr;
    if (n > r_.remaining()) {
      r_.fail_at(len_at, fmt::format("java long string of {} bytes, only {} left", n, r_.remaining()));
      return nullptr;
    }
    std::string_view raw = r_.bytes(static_cast<size_t>(n));
    if (!decode_modified_utf8(raw, &text)) {
      r_.fail_at(len_at, fmt::format("malformed modified UTF-8 string of {} bytes", n));
      return nullptr;
    }
  }
  if (!r_.ok()) return nullptr;
  Handle* h = assign(at);
  if (!h) return nullptr;
  Value* v = make(Value::Kind::kString, at);
  v->text = std::move(text);
  h->value = v;
  return v;
}

// A string object where Java calls readTypeString / readString: new or a back-reference.
const Value* Decoder::read_string(const char* what) {
  uint64_t at = r_.offset();
  uint8_t tc = r_.u8();
  if (!r_.ok()) return nullptr;
  if (tc == kTcString || tc == kTcLongString) return read_string_body(tc, at);
  if (tc == kTcReference) {
    const Handle* h = reference(at);
    if (!h) return nullptr;
    if (!h->value || h->value->kind != Value::Kind::kString) {
      r_.fail_at(at, fmt::format("{}: back-reference to something that is not a string", what));
      return nullptr;
    }
    return h->value;
  }
  r_.fail_at(at, fmt::format("{}: expected a java string (0x74), found type code {:#04x}", what, tc));
  return nullptr;
}

// TC_CLASSDESC, a back-reference to one, or TC_NULL (*is_null set).
const ClassSpec* Decoder::read_class_desc(int depth, bool* is_null) {
  *is_null = false;
  uint64_t at = r_.offset();
  uint8_t tc = r_.u8();
  if (!r_.ok()) return nullptr;
  if (tc == kTcNull) {
    *is_null = true;
    return nullptr;
  }
  if (tc == kTcReference) {
    const Handle* h = reference(at);
    if (!h) return nullptr;
    if (!h->spec) {
      r_.fail_at(at, "java back-reference where a class descriptor was expected does not point to one");
      return nullptr;
    }
    return h->spec;
  }
  if (tc != kTcClassDesc) {
    r_.fail_at(at, fmt::format("expected a java class descriptor (0x72), found type code {:#04x}", tc));
    return nullptr;
  }
  return read_new_class_desc(depth);
}

// The body of a TC_CLASSDESC, checked against the one Flink's classes produce: anything else
// would either fail in Flink's ObjectInputStream (UID, fields) or could not be written back.
const ClassSpec* Decoder::read_new_class_desc(int depth) {
  uint64_t at = r_.offset() - 1;
  if (depth > kMaxDepth) {
    r_.fail_at(at, "java class descriptors nested too deeply");
    return nullptr;
  }
  Handle* handle = assign(at);  // numbered before its field-type strings, as Java does
  if (!handle) return nullptr;
  size_t handle_index = handles_.size() - 1;
  std::string name = r_.utf();
  uint64_t uid = r_.u64();
  uint8_t flags = r_.u8();
  uint64_t count_at = r_.offset();
  int16_t nfields = r_.i16();
  if (!r_.ok()) return nullptr;
  const ClassSpec* spec = schema().find(name);
  if (!spec) {
    r_.fail_at(at, fmt::format("unexpected java class '{}' in checkpoint properties", name));
    return nullptr;
  }
  if (uid != spec->uid) {
    r_.fail_at(at, fmt::format("java class '{}' has serialVersionUID {:#x}, expected {:#x}", name, uid, spec->uid));
    return nullptr;
  }
  if (flags != spec->flags) {
    r_.fail_at(at, fmt::format("java class '{}' has flags {:#04x}, expected {:#04x}", name, flags, spec->flags));
    return nullptr;
  }
  if (nfields < 0 || static_cast<size_t>(nfields) * 3 > r_.remaining()) {
    r_.fail_at(count_at, fmt::format("java class '{}' field count {} does not fit the bytes left", name, nfields));
    return nullptr;
  }
  std::vector<FieldSpec> fields;
  for (int i = 0; i < nfields && r_.ok(); ++i) {
    uint64_t field_at = r_.offset();
    FieldSpec f;
    f.type = static_cast<char>(r_.u8());
    f.name = r_.utf();
    if (!r_.ok()) return nullptr;
    if (!f.primitive()) {
      const Value* sig = read_string("field type signature");
      if (!sig) return nullptr;
      f.signature = sig->text;
    } else if (primitive_size(f.type) == 0) {
      r_.fail_at(field_at, fmt::format("unknown java field type code {:#04x}", static_cast<uint8_t>(f.type)));
      return nullptr;
    }
    fields.push_back(std::move(f));
  }
  if (!r_.ok()) return nullptr;
  if (!in_serial_order(fields)) {
    r_.fail_at(at, fmt::format("fields of java class '{}' are not in serialization order", name));
    return nullptr;
  }
  bool same = fields.size() == spec->fields.size();
  for (size_t i = 0; same && i < fields.size(); ++i)
    same = fields[i].type == spec->fields[i].type && fields[i].name == spec->fields[i].name &&
           fields[i].signature == spec->fields[i].signature;
  if (!same) {
    r_.fail_at(at, fmt::format("java class '{}' does not have the fields Flink's class has", name));
    return nullptr;
  }
  uint64_t annotation_at = r_.offset();
  uint8_t end = r_.u8();
  if (!r_.ok()) return nullptr;
  if (end != kTcEndBlockData) {
    r_.fail_at(annotation_at, fmt::format("java class annotations are not supported (type code {:#04x})", end));
    return nullptr;
  }
  uint64_t super_at = r_.offset();
  bool super_null = false;
  const ClassSpec* super = read_class_desc(depth + 1, &super_null);
  if (!r_.ok()) return nullptr;
  if (super != spec->super) {
    r_.fail_at(super_at, fmt::format("java class '{}' has superclass '{}', expected '{}'", name,
                                     super ? super->name : "none", spec->super ? spec->super->name : "none"));
    return nullptr;
  }
  handles_[handle_index].spec = spec;
  return spec;
}

bool Decoder::read_field_values(const ClassSpec& spec, Value* obj, int depth) {
  if (spec.super && !read_field_values(*spec.super, obj, depth)) return false;
  for (const FieldSpec& f : spec.fields) {
    if (f.primitive()) {
      uint64_t v = 0;
      for (size_t i = 0; i < primitive_size(f.type); ++i) v = (v << 8) | r_.u8();
      obj->primitives.push_back(v);
    } else {
      const Value* v = read_value(depth + 1);
      if (!v) return false;
      obj->objects.push_back(v);
    }
    if (!r_.ok()) return false;
  }
  return true;
}

// The class descriptor of a new enum constant or object, then its handle (Java numbers the
// instance after its descriptor and before its contents).
Value* Decoder::read_instance(uint64_t at, Value::Kind kind, int depth) {
  bool is_null = false;
  const ClassSpec* spec = read_class_desc(depth + 1, &is_null);
  if (!r_.ok()) return nullptr;
  const char* what = kind == Value::Kind::kEnum ? "enum" : "object";
  if (!spec) {
    r_.fail_at(at, fmt::format("java {} without a class descriptor", what));
    return nullptr;
  }
  bool is_enum = (spec->flags & kScEnum) && !spec->constants.empty();
  if (is_enum != (kind == Value::Kind::kEnum)) {
    r_.fail_at(at, fmt::format("java {} of class '{}', which Flink writes as {}", what, spec->name,
                               is_enum ? "an enum" : "an object"));
    return nullptr;
  }
  Handle* h = assign(at);
  if (!h) return nullptr;
  Value* v = make(kind, at);
  v->spec = spec;
  h->value = v;
  return v;
}

const Value* Decoder::read_value(int depth) {
  uint64_t at = r_.offset();
  if (depth > kMaxDepth) {
    r_.fail_at(at, "java objects nested too deeply");
    return nullptr;
  }
  uint8_t tc = r_.u8();
  if (!r_.ok()) return nullptr;
  switch (tc) {
    case kTcNull:
      null_.offset = at;
      return &null_;
    case kTcReference: {
      const Handle* h = reference(at);
      if (!h) return nullptr;
      if (!h->value) {
        r_.fail_at(at, "java back-reference to a class descriptor where an object was expected");
        return nullptr;
      }
      return h->value;
    }
    case kTcString:
    case kTcLongString:
      return read_string_body(tc, at);
    case kTcEnum: {
      Value* v = read_instance(at, Value::Kind::kEnum, depth);
      if (!v) return nullptr;
      uint64_t name_at = r_.offset();
      const Value* constant = read_string("enum constant name");
      if (!constant) return nullptr;
      const auto& known = v->spec->constants;
      if (std::find(known.begin(), known.end(), constant->text) == known.end()) {
        r_.fail_at(name_at, fmt::format("unknown constant '{}' of java enum '{}'", constant->text, v->spec->name));
        return nullptr;
      }
      v->text = constant->text;
      return v;
    }
    case kTcObject: {
      Value* v = read_instance(at, Value::Kind::kObject, depth);
      if (!v || !read_field_values(*v->spec, v, depth)) return nullptr;
      return v;
    }
    default:
      r_.fail_at(at, fmt::format("unsupported java serialization type code {:#04x}", tc));
      return nullptr;
  }
}

// Field access on a decoded object whose descriptor matched its ClassSpec.
size_t primitive_index(const ClassSpec& spec, const std::string& name) {
  size_t i = 0;
  for (const FieldSpec& f : spec.fields) {
    if (!f.primitive()) continue;
    if (f.name == name) return i;
    ++i;
  }
  return i;
}
const Value* object_field(const Value& obj, const std::string& name) {
  size_t i = 0;
  for (const FieldSpec& f : obj.spec->fields) {
    if (f.primitive()) continue;
    if (f.name == name) return obj.objects[i];
    ++i;
  }
  return nullptr;
}

// The value of an object field that must be a string or a constant of enum `enum_class`.
Status take_text(const Value& obj, const char* field, const char* enum_class, std::string* out) {
  const Value* v = object_field(obj, field);
  Value::Kind want = enum_class ? Value::Kind::kEnum : Value::Kind::kString;
  if (!v || v->kind != want || (enum_class && v->spec->name != enum_class)) {
    return Error(ErrorCode::kCorruption,
                 fmt::format("field '{}' of '{}' must be a {}", field, obj.spec->name,
                             enum_class ? fmt::format("constant of '{}'", enum_class) : std::string("string")),
                 v ? v->offset : obj.offset);
  }
  *out = v->text;
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Encoding: ObjectOutputStream's handle rules for this graph. Strings are deduplicated by
// content, which equals Java's identity rule here because every string Flink writes in it
// (type signatures, enum names, the type names) is an interned constant.

class Encoder {
 public:
  std::string finish() { return w_.take(); }

  void header() {
    w_.u16(kStreamMagic);
    w_.u16(kStreamVersion);
  }

  void string(const std::string& s) {
    auto it = strings_.find(s);
    if (it != strings_.end()) return reference(it->second);
    std::string enc = encode_modified_utf8(s);
    if (enc.size() <= 0xFFFF) {
      w_.u8(kTcString);
      w_.u16(static_cast<uint16_t>(enc.size()));
    } else {
      w_.u8(kTcLongString);
      w_.u64(enc.size());
    }
    w_.bytes(enc);
    strings_.emplace(s, next_++);
  }

  void class_desc(const ClassSpec* spec) {
    if (!spec) return w_.u8(kTcNull);
    auto it = classes_.find(spec);
    if (it != classes_.end()) return reference(it->second);
    w_.u8(kTcClassDesc);
    classes_.emplace(spec, next_++);
    w_.utf(spec->name);
    w_.u64(spec->uid);
    w_.u8(spec->flags);
    w_.i16(static_cast<int16_t>(spec->fields.size()));
    for (const FieldSpec& f : spec->fields) {
      w_.u8(static_cast<uint8_t>(f.type));
      w_.utf(f.name);
      if (!f.primitive()) string(f.signature);
    }
    w_.u8(kTcEndBlockData);
    class_desc(spec->super);
  }

  void enum_constant(const ClassSpec* spec, const std::string& name) {
    auto key = std::make_pair(spec, name);
    auto it = enums_.find(key);
    if (it != enums_.end()) return reference(it->second);
    w_.u8(kTcEnum);
    class_desc(spec);
    enums_.emplace(key, next_++);
    string(name);
  }

  // A new object: descriptor, handle, then fields in serialization order; `primitive` gives
  // the bytes of a (boolean) primitive field, `object` writes an object field.
  template <class Primitive, class Object>
  void object(const ClassSpec* spec, Primitive primitive, Object object) {
    w_.u8(kTcObject);
    class_desc(spec);
    ++next_;
    for (const FieldSpec& f : spec->fields) {
      if (f.primitive()) w_.boolean(primitive(f.name));
      else object(f.name);
    }
  }

 private:
  void reference(uint32_t handle) {
    w_.u8(kTcReference);
    w_.u32(handle);
  }

  ByteWriter w_;
  uint32_t next_ = kBaseWireHandle;
  std::map<std::string, uint32_t> strings_;
  std::map<const ClassSpec*, uint32_t> classes_;
  std::map<std::pair<const ClassSpec*, std::string>, uint32_t> enums_;
};

}  // namespace

Result<CheckpointProperties> decode_checkpoint_properties(std::string_view raw, uint64_t base_offset) {
  ByteReader r(raw, base_offset);
  uint16_t magic = r.u16();
  uint16_t version = r.u16();
  if (!r.ok()) return r.take_error();
  if (magic != kStreamMagic || version != kStreamVersion) {
    return Error(ErrorCode::kCorruption,
                 fmt::format("expected java serialization stream header ac ed 00 05, found {:02x} {:02x} {:02x} {:02x}",
                             magic >> 8, magic & 0xff, version >> 8, version & 0xff),
                 base_offset);
  }
  Decoder d(r);
  const Value* top = d.read_value(0);
  if (!r.ok()) return r.take_error();
  const Schema& s = schema();
  if (top->kind != Value::Kind::kObject || top->spec != &s.properties)
    return Error(ErrorCode::kCorruption, fmt::format("expected a java '{}' object", kPropertiesClass), top->offset);
  if (!r.at_end())
    return Error(ErrorCode::kCorruption,
                 fmt::format("{} trailing bytes after the checkpoint properties", r.remaining()), r.offset());

  CheckpointProperties p;
  p.present = true;
  auto flag = [&](const char* name) { return top->primitives[primitive_index(s.properties, name)] != 0; };
  p.forced = flag("forced");
  p.discard_subsumed = flag("discardSubsumed");
  p.discard_finished = flag("discardFinished");
  p.discard_cancelled = flag("discardCancelled");
  p.discard_failed = flag("discardFailed");
  p.discard_suspended = flag("discardSuspended");
  p.unclaimed = flag("unclaimed");

  const Value* type = object_field(*top, "checkpointType");
  if (!type || type->kind != Value::Kind::kObject ||
      (type->spec != &s.checkpoint_type && type->spec != &s.savepoint_type)) {
    return Error(ErrorCode::kCorruption, "field 'checkpointType' must be a CheckpointType or SavepointType object",
                 type ? type->offset : top->offset);
  }
  p.type_class = type->spec->name;
  CKPT_RETURN_IF_ERROR(take_text(*type, "name", nullptr, &p.type_name));
  if (type->spec == &s.checkpoint_type) {
    CKPT_RETURN_IF_ERROR(take_text(*type, "sharingFilesStrategy", kSharingClass, &p.sharing_files_strategy));
  } else {
    CKPT_RETURN_IF_ERROR(take_text(*type, "formatType", kFormatClass, &p.format_type));
    CKPT_RETURN_IF_ERROR(take_text(*type, "postCheckpointAction", kActionClass, &p.post_checkpoint_action));
  }
  return p;
}

std::string encode_checkpoint_properties(const CheckpointProperties& p) {
  const Schema& s = schema();
  bool savepoint = p.type_class == kSavepointTypeClass;
  Encoder e;
  e.header();
  auto flags = [&](const std::string& name) {
    if (name == "forced") return p.forced;
    if (name == "discardSubsumed") return p.discard_subsumed;
    if (name == "discardFinished") return p.discard_finished;
    if (name == "discardCancelled") return p.discard_cancelled;
    if (name == "discardFailed") return p.discard_failed;
    if (name == "discardSuspended") return p.discard_suspended;
    return p.unclaimed;
  };
  auto no_primitives = [](const std::string&) { return false; };
  auto type_fields = [&](const std::string& name) {
    if (name == "name") e.string(p.type_name);
    else if (name == "sharingFilesStrategy") e.enum_constant(&s.sharing, p.sharing_files_strategy);
    else if (name == "formatType") e.enum_constant(&s.format, p.format_type);
    else e.enum_constant(&s.action, p.post_checkpoint_action);
  };
  e.object(&s.properties, flags, [&](const std::string&) {
    e.object(savepoint ? &s.savepoint_type : &s.checkpoint_type, no_primitives, type_fields);
  });
  return e.finish();
}

}  // namespace ckpt
