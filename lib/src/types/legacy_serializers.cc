// Java-serialized TypeSerializers of Flink 1.2-1.6 as snapshot trees (formats/serializers.md §15).
#include "types/legacy_serializers.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/byte_reader.h"
#include "types/serializer_classes.h"

namespace ckpt {
namespace {

using StreamValue = java::Value;
using JavaValueKind = java::Value::Kind;

constexpr int kMaxDepth = 32;
// Scala Enumerations with more ids than this are not given names (EnumDecoder indexes by id).
constexpr int32_t kMaxEnumId = 1 << 16;

// Whether `v`'s class or one of its superclasses is `name` (Scala's macro-generated case class
// serializers are anonymous subclasses of CaseClassSerializer, for instance).
bool is_a(const StreamValue& v, std::string_view name) {
  for (const auto& c : v.classes)
    if (c.desc && c.desc->name == name) return true;
  return false;
}

bool has_fields(const StreamValue& v) {
  for (const auto& c : v.classes)
    if (!c.fields.empty() || !c.annotations.empty()) return true;
  return false;
}

std::string class_of(const StreamValue* v) {
  return v && v->kind == JavaValueKind::kClass ? v->class_name : std::string();
}

SerializerSnapshot named(std::string snapshot_class, std::string serializer_class, SnapshotForm form) {
  SerializerSnapshot s;
  s.snapshot_class = std::move(snapshot_class);
  s.serializer_class = std::move(serializer_class);
  s.form = form;
  s.version = form == SnapshotForm::kSimple ? 3 : 1;
  s.outer_version = s.version;
  return s;
}

// A serializer not understood: named, so that a POJO field of it is opaque, not a removed field.
SerializerSnapshot not_understood(const std::string& cls) {
  return named(cls.empty() ? "unreadable Java-serialized serializer" : cls, cls, SnapshotForm::kUnknown);
}

class Translator {
 public:
  SerializerSnapshot of(const StreamValue* v, int depth);

 private:
  // A composite snapshot of `cls` whose nested serializers are the values of `fields`.
  SerializerSnapshot composite(const StreamValue& v, std::string cls, std::initializer_list<std::string_view> fields,
                               int depth);
  SerializerSnapshot scala_enum(const StreamValue& v);
  SerializerSnapshot pojo(const StreamValue& v, int depth);
};

// PojoSerializer.writeObject wrote, after its fields, the i32 field count and per field the
// declaring class (an object) and the name (writeUTF): the names in field order.
std::optional<std::vector<std::string>> pojo_field_names(const StreamValue& v) {
  const java::ClassData* d = v.class_data(std::string(snapshot_class::kRuntime) + "PojoSerializer");
  if (!d) return std::nullopt;
  std::vector<std::string> names;
  int32_t count = -1;
  for (const auto& item : d->annotations) {
    if (!item || item->kind != JavaValueKind::kBlockData) continue;
    ByteReader r(item->text);
    if (count < 0) count = r.i32();
    while (r.ok() && !r.at_end()) names.push_back(r.utf());
    if (!r.ok()) return std::nullopt;
  }
  if (count < 0 || names.size() != static_cast<size_t>(count)) return std::nullopt;
  return names;
}

SerializerSnapshot Translator::composite(const StreamValue& v, std::string cls,
                                         std::initializer_list<std::string_view> fields, int depth) {
  SerializerSnapshot s = named(std::move(cls), v.class_name, SnapshotForm::kComposite);
  for (std::string_view f : fields) s.nested.push_back(of(v.field(f), depth + 1));
  return s;
}

// EnumValueSerializer keeps the Enumeration object: each value is a field of it (a
// scala.Enumeration$Val holding its id), named by the field unless the Val carries a name.
SerializerSnapshot Translator::scala_enum(const StreamValue& v) {
  SerializerSnapshot s =
      named("org.apache.flink.api.scala.typeutils.ScalaEnumSerializerSnapshot", v.class_name, SnapshotForm::kEnum);
  const StreamValue* e = v.field("enum");
  if (!e || e->kind != JavaValueKind::kObject) return not_understood(v.class_name);
  s.type_class = e->class_name;
  std::map<int64_t, std::string> by_id;
  for (const auto& c : e->classes) {
    for (const auto& [name, value] : c.fields) {
      if (!value || value->kind != JavaValueKind::kObject || !is_a(*value, "scala.Enumeration$Val")) continue;
      const StreamValue* id = value->field("scala$Enumeration$Val$$i");
      const StreamValue* given = value->field("name");
      if (!id || id->kind != JavaValueKind::kPrimitive) continue;
      by_id[id->number] = given && given->kind == JavaValueKind::kString ? given->text : name;
    }
  }
  // Ids are written as they are: the decoder needs every id from 0 on.
  int64_t expected = 0;
  for (const auto& [id, name] : by_id) {
    if (id != expected || id >= kMaxEnumId) return not_understood(v.class_name);
    s.enum_constants.push_back(name);
    ++expected;
  }
  return s;
}

// PojoSerializer: the class, the field serializers with the names writeObject added, and the
// registered subclasses' serializers in tag order (registeredClasses gives their classes).
SerializerSnapshot Translator::pojo(const StreamValue& v, int depth) {
  SerializerSnapshot s =
      named(std::string(snapshot_class::kRuntime) + "PojoSerializerSnapshot", v.class_name, SnapshotForm::kPojo);
  s.type_class = class_of(v.field("clazz"));
  const StreamValue* fields = v.field("fieldSerializers");
  auto names = pojo_field_names(v);
  if (!fields || fields->kind != JavaValueKind::kArray || !names || names->size() != fields->elements.size())
    return not_understood(v.class_name);
  s.field_names = std::move(*names);
  for (const auto& f : fields->elements) s.nested.push_back(of(f.get(), depth + 1));
  const StreamValue* registered = v.field("registeredSerializers");
  if (registered && registered->kind == JavaValueKind::kArray) {
    std::vector<std::string> classes;
    if (const StreamValue* map = v.field("registeredClasses"); map && map->kind == JavaValueKind::kObject)
      for (const auto& c : map->classes)
        for (const auto& item : c.annotations)
          if (item && item->kind == JavaValueKind::kClass) classes.push_back(item->class_name);
    for (size_t i = 0; i < registered->elements.size(); ++i) {
      s.pojo_registered_subclasses.push_back(i < classes.size() ? classes[i] : std::string());
      s.pojo_registered_snapshots.push_back(of(registered->elements[i].get(), depth + 1));
    }
  }
  return s;
}

SerializerSnapshot Translator::of(const StreamValue* v, int depth) {
  if (!v || v->kind != JavaValueKind::kObject || v->unfilled || depth > kMaxDepth)
    return not_understood(v ? v->class_name : std::string());
  const std::string& c = v->class_name;
  constexpr std::string_view kScala = "org.apache.flink.api.scala.typeutils.";
  const std::string runtime(snapshot_class::kRuntime);
  const std::string base(snapshot_class::kBase);

  if (c == "org.apache.flink.runtime.state.JavaSerializer")
    return named(c + "$JavaSerializerSnapshot", c, SnapshotForm::kSimple);
  // Case classes before tuples: CaseClassSerializer extends TupleSerializerBase, as TupleSerializer does.
  if (is_a(*v, std::string(kScala) + "CaseClassSerializer") || is_a(*v, runtime + "TupleSerializer")) {
    bool scala = is_a(*v, std::string(kScala) + "CaseClassSerializer");
    SerializerSnapshot s =
        named(scala ? std::string(kScala) + "ScalaCaseClassSerializerSnapshot" : runtime + "TupleSerializerSnapshot", c,
              SnapshotForm::kComposite);
    s.type_class = class_of(v->field("tupleClass"));
    const StreamValue* fields = v->field("fieldSerializers");
    if (!fields || fields->kind != JavaValueKind::kArray) return not_understood(c);
    for (const auto& f : fields->elements) s.nested.push_back(of(f.get(), depth + 1));
    return s;
  }
  if (is_a(*v, std::string(kScala) + "OptionSerializer"))
    return composite(*v, std::string(kScala) + "ScalaOptionSerializerSnapshot", {"elemSerializer"}, depth);
  if (is_a(*v, std::string(kScala) + "EitherSerializer"))
    return composite(*v, std::string(kScala) + "ScalaEitherSerializerSnapshot", {"leftSerializer", "rightSerializer"},
                     depth);
  if (is_a(*v, std::string(kScala) + "TrySerializer"))
    return composite(*v, std::string(kScala) + "ScalaTrySerializerSnapshot", {"elemSerializer", "throwableSerializer"},
                     depth);
  if (is_a(*v, std::string(kScala) + "TraversableSerializer"))
    return composite(*v, std::string(kScala) + "TraversableSerializerSnapshot", {"elementSerializer"}, depth);
  if (is_a(*v, std::string(kScala) + "EnumValueSerializer")) return scala_enum(*v);
  if (is_a(*v, runtime + "EitherSerializer"))
    return composite(*v, runtime + "JavaEitherSerializerSnapshot", {"leftSerializer", "rightSerializer"}, depth);
  if (is_a(*v, base + "ListSerializer"))
    return composite(*v, base + "ListSerializerSnapshot", {"elementSerializer"}, depth);
  if (is_a(*v, "org.apache.flink.runtime.state.ArrayListSerializer"))
    return composite(*v, "org.apache.flink.runtime.state.ArrayListSerializerSnapshot", {"elementSerializer"}, depth);
  if (is_a(*v, base + "MapSerializer"))
    return composite(*v, base + "MapSerializerSnapshot", {"keySerializer", "valueSerializer"}, depth);
  if (is_a(*v, base + "GenericArraySerializer")) {
    SerializerSnapshot s = composite(*v, base + "GenericArraySerializerSnapshot", {"componentSerializer"}, depth);
    s.type_class = class_of(v->field("componentClass"));
    return s;
  }
  if (is_a(*v, base + "EnumSerializer")) {
    SerializerSnapshot s = named(base + "EnumSerializer$EnumSerializerSnapshot", c, SnapshotForm::kEnum);
    s.type_class = class_of(v->field("enumClass"));
    const StreamValue* values = v->field("values");
    if (!values || values->kind != JavaValueKind::kArray) return not_understood(c);
    for (const auto& e : values->elements) {
      if (!e || e->kind != JavaValueKind::kEnum) return not_understood(c);
      s.enum_constants.push_back(e->text);
    }
    return s;
  }
  if (is_a(*v, runtime + "PojoSerializer")) return pojo(*v, depth);
  if (is_a(*v, runtime + "kryo.KryoSerializer")) {
    SerializerSnapshot s = named(runtime + "kryo.KryoSerializerSnapshot", c, SnapshotForm::kKryo);
    s.type_class = class_of(v->field("type"));
    return s;
  }
  // A serializer without configuration (LongSerializer, VoidNamespaceSerializer,
  // TimeWindow.Serializer...): the SimpleTypeSerializerSnapshot its class is named by,
  // "Outer$Inner" giving "Outer$Inner$OuterInnerSnapshot" as Flink names them.
  if (!has_fields(*v)) {
    std::string simple = c.substr(c.rfind('.') + 1);
    std::erase(simple, '$');
    return named(c + "$" + simple + "Snapshot", c, SnapshotForm::kSimple);
  }
  return not_understood(c);
}

}  // namespace

std::optional<SerializerSnapshot> snapshot_of_java_serializer(const java::Value& serializer) {
  SerializerSnapshot s = Translator().of(&serializer, 0);
  if (s.form == SnapshotForm::kUnknown) return std::nullopt;
  return s;
}

std::optional<SerializerSnapshot> legacy_equivalent(const SerializerSnapshot& legacy) {
  if (legacy.form != SnapshotForm::kLegacyConfig || legacy.legacy_java_serializer.empty()) return std::nullopt;
  ByteReader r(legacy.legacy_java_serializer, legacy.offset);
  auto object = java::read_object_stream(r);
  if (!object.ok() || !*object) return std::nullopt;
  auto s = snapshot_of_java_serializer(**object);
  if (s) s->offset = legacy.offset;
  return s;
}

void attach_legacy_nested(SerializerSnapshot& legacy) {
  auto s = legacy_equivalent(legacy);
  if (!s) return;
  legacy.nested = std::move(s->nested);
  if (legacy.type_class.empty()) legacy.type_class = s->type_class;
}

}  // namespace ckpt
