// The V4+ properties trailer: read by the one Java-serialization reader and checked against the
// classes of Flink's CheckpointProperties graph; written as Flink's ObjectOutputStream writes it.
#include "format/java/java_serialization.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "format/java/java_object_stream.h"
#include "format/java/java_object_writer.h"
#include "support/byte_reader.h"

namespace ckpt {
namespace {

using java::kScEnum;
using java::kScSerializable;

// A valid trailer has about 30 nodes and nests 3 deep; these limits only stop hostile input.
constexpr size_t kMaxObjects = 256;
constexpr int kMaxJavaDepth = 16;

constexpr const char* kPropertiesClass = "org.apache.flink.runtime.checkpoint.CheckpointProperties";
constexpr const char* kCheckpointTypeClass = "org.apache.flink.runtime.checkpoint.CheckpointType";
constexpr const char* kSavepointTypeClass = "org.apache.flink.runtime.checkpoint.SavepointType";
constexpr const char* kSharingClass = "org.apache.flink.runtime.checkpoint.SnapshotType$SharingFilesStrategy";
constexpr const char* kFormatClass = "org.apache.flink.core.execution.SavepointFormatType";
constexpr const char* kActionClass = "org.apache.flink.runtime.checkpoint.SavepointType$PostCheckpointAction";
constexpr const char* kEnumClass = "java.lang.Enum";

using java::ClassSpec;
using java::FieldSpec;
using java::sort_fields;

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

// ---------------------------------------------------------------------------------------------
// Decoding: the stream is read by the one Java-serialization reader (java_object_stream.h), then
// its tree is checked against the classes above.

using java::ClassDesc;
using JValue = java::Value;

Error corrupt(std::string message, uint64_t at) { return Error(ErrorCode::kCorruption, std::move(message), at); }

// The ClassSpec a descriptor (and its superclasses) matches exactly, as Flink's classes write
// it: anything else would fail in Flink's ObjectInputStream (UID, fields) or could not be
// written back.
Result<const ClassSpec*> check_desc(const ClassDesc& d) {
  const ClassSpec* spec = d.proxy ? nullptr : schema().find(d.name);
  if (!spec) return corrupt(fmt::format("unexpected java class '{}' in checkpoint properties", d.name), d.offset);
  if (d.uid != spec->uid)
    return corrupt(fmt::format("java class '{}' has serialVersionUID {:#x}, expected {:#x}", d.name, d.uid, spec->uid),
                   d.offset);
  if (d.flags != spec->flags)
    return corrupt(fmt::format("java class '{}' has flags {:#04x}, expected {:#04x}", d.name, d.flags, spec->flags),
                   d.offset);
  std::vector<FieldSpec> fields;
  for (const java::FieldDesc& f : d.fields) fields.push_back({f.type, f.name, f.signature});
  if (!in_serial_order(fields))
    return corrupt(fmt::format("fields of java class '{}' are not in serialization order", d.name), d.offset);
  bool same = fields.size() == spec->fields.size();
  for (size_t i = 0; same && i < fields.size(); ++i)
    same = fields[i].type == spec->fields[i].type && fields[i].name == spec->fields[i].name &&
           fields[i].signature == spec->fields[i].signature;
  if (!same) return corrupt(fmt::format("java class '{}' does not have the fields Flink's class has", d.name), d.offset);
  if (!d.annotations.empty())
    return corrupt(fmt::format("java class annotations are not supported (class '{}')", d.name), d.offset);
  const ClassDesc* super = d.super.get();
  if ((super ? super->name : std::string()) != (spec->super ? spec->super->name : std::string()))
    return corrupt(fmt::format("java class '{}' has superclass '{}', expected '{}'", d.name, super ? super->name : "none",
                               spec->super ? spec->super->name : "none"),
                   super ? super->offset : d.offset);
  if (super) CKPT_RETURN_IF_ERROR(check_desc(*super));
  return spec;
}

// An object (or enum constant) of the trailer: its class checked, a known constant.
Result<const ClassSpec*> check_instance(const JValue& v) {
  const char* what = v.kind == JValue::Kind::kEnum ? "enum" : "object";
  if (v.unfilled) return corrupt(fmt::format("java {} of class '{}' refers to itself", what, v.class_name), v.offset);
  CKPT_ASSIGN_OR_RETURN(const ClassSpec* spec, check_desc(*v.desc));
  bool is_enum = !spec->constants.empty();
  if (is_enum != (v.kind == JValue::Kind::kEnum))
    return corrupt(fmt::format("java {} of class '{}', which Flink writes as {}", what, spec->name,
                               is_enum ? "an enum" : "an object"),
                   v.offset);
  if (is_enum && std::find(spec->constants.begin(), spec->constants.end(), v.text) == spec->constants.end())
    return corrupt(fmt::format("unknown constant '{}' of java enum '{}'", v.text, spec->name), v.offset);
  return spec;
}

// The value of an object field that must be a string or a constant of enum `enum_class`.
Status take_text(const JValue& obj, const char* field, const char* enum_class, std::string* out) {
  const JValue* v = obj.field(field);
  JValue::Kind want = enum_class ? JValue::Kind::kEnum : JValue::Kind::kString;
  if (v && v->kind == want && enum_class) {
    CKPT_ASSIGN_OR_RETURN(const ClassSpec* spec, check_instance(*v));
    if (spec->name != enum_class) v = nullptr;
  }
  if (!v || v->kind != want) {
    return corrupt(fmt::format("field '{}' of '{}' must be a {}", field, obj.class_name,
                               enum_class ? fmt::format("constant of '{}'", enum_class) : std::string("string")),
                   v ? v->offset : obj.offset);
  }
  *out = v->text;
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Encoding: the one ObjectOutputStream writer (java_object_writer.h). Every string Flink writes in
// this graph (type signatures, enum names, the type names) is an interned constant.

// A new object of a class without superclass: its fields in serialization order; `primitive`
// gives the value of a (boolean) primitive field, `object` writes an object field.
template <class Primitive, class Object>
void write_object(java::ObjectWriter& e, const ClassSpec* spec, Primitive primitive, Object object) {
  e.begin_object(spec);
  for (const FieldSpec& f : spec->fields) {
    if (f.primitive())
      e.out().boolean(primitive(f.name));
    else
      object(f.name);
  }
}

}  // namespace

Result<CheckpointProperties> decode_checkpoint_properties(std::string_view raw, uint64_t base_offset) {
  ByteReader r(raw, base_offset);
  CKPT_ASSIGN_OR_RETURN(java::ValuePtr top, java::read_object_stream(r, {kMaxJavaDepth, kMaxObjects}));
  const Schema& s = schema();
  const ClassSpec* top_spec = nullptr;
  if (top->kind == JValue::Kind::kObject) {
    CKPT_ASSIGN_OR_RETURN(top_spec, check_instance(*top));
  }
  if (top_spec != &s.properties) return corrupt(fmt::format("expected a java '{}' object", kPropertiesClass), top->offset);
  if (!r.at_end()) return corrupt(fmt::format("{} trailing bytes after the checkpoint properties", r.remaining()), r.offset());

  CheckpointProperties p;
  p.present = true;
  auto flag = [&](const char* name) { return top->field(name)->number != 0; };
  p.forced = flag("forced");
  p.discard_subsumed = flag("discardSubsumed");
  p.discard_finished = flag("discardFinished");
  p.discard_cancelled = flag("discardCancelled");
  p.discard_failed = flag("discardFailed");
  p.discard_suspended = flag("discardSuspended");
  p.unclaimed = flag("unclaimed");

  const JValue* type = top->field("checkpointType");
  const ClassSpec* type_spec = nullptr;
  if (type->kind == JValue::Kind::kObject) {
    CKPT_ASSIGN_OR_RETURN(type_spec, check_instance(*type));
  }
  if (type_spec != &s.checkpoint_type && type_spec != &s.savepoint_type)
    return corrupt("field 'checkpointType' must be a CheckpointType or SavepointType object",
                   type->offset);
  p.type_class = type_spec->name;
  CKPT_RETURN_IF_ERROR(take_text(*type, "name", nullptr, &p.type_name));
  if (type_spec == &s.checkpoint_type) {
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
  java::ObjectWriter e;
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
  write_object(e, &s.properties, flags, [&](const std::string&) {
    write_object(e, savepoint ? &s.savepoint_type : &s.checkpoint_type, no_primitives, type_fields);
  });
  return e.take();
}

CheckpointProperties savepoint_properties(bool canonical) {
  CheckpointProperties p;
  p.present = true;
  p.forced = true;
  p.type_class = kSavepointTypeClass;
  p.type_name = "Savepoint";
  p.format_type = canonical ? "CANONICAL" : "NATIVE";
  p.post_checkpoint_action = "NONE";
  return p;
}

}  // namespace ckpt
