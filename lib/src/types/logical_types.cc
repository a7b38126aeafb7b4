// SQL LogicalTypes from Java-serialized org.apache.flink.table.types.logical objects.
#include "types/logical_types.h"

#include <fmt/format.h>

#include "format/java/java_object_stream.h"

namespace ckpt {
namespace {

// The objects a writeObject-serialized collection (ArrayList and its unmodifiable wrappers) holds.
const java::Value* unwrap_list(const java::Value* v) {
  for (int i = 0; v && i < 4; ++i) {
    if ((v->class_name == "java.util.ArrayList" || v->class_name == "java.util.LinkedList") && !v->classes.empty())
      return v;
    const java::Value* inner = v->field("list");
    if (!inner) inner = v->field("c");
    v = inner;
  }
  return nullptr;
}

Result<LogicalType> convert(const java::Value& v, uint64_t at, int depth);

// RowType's RowFields and StructuredType's StructuredAttributes: a name and a type each.
Status named_children(const java::Value& list_field, const char* what, LogicalType& t, uint64_t at, int depth) {
  const java::Value* list = unwrap_list(&list_field);
  if (!list) return Error(ErrorCode::kCorruption, fmt::format("{} type without its {} list", t.root, what), at);
  for (const auto& f : list->classes.back().annotations) {
    if (f->kind != java::Value::Kind::kObject) continue;  // the ArrayList's capacity block
    const java::Value* name = f->field("name");
    const java::Value* type = f->field("type");
    if (!name || !type) return Error(ErrorCode::kCorruption, fmt::format("{} {} without name or type", t.root, what), at);
    CKPT_ASSIGN_OR_RETURN(auto ft, convert(*type, at, depth + 1));
    t.field_names.push_back(name->text);
    t.children.push_back(std::move(ft));
  }
  return Status::OK();
}

// What names a structured type: its implementation class, else its catalog identifier.
std::string structured_name(const java::Value& v) {
  const java::Value* impl = v.field("implementationClass");
  if (impl && impl->kind == java::Value::Kind::kClass) return impl->class_name;
  if (const java::Value* id = v.field("objectIdentifier"); id && id->kind == java::Value::Kind::kObject) {
    std::string name;
    for (const char* part : {"catalogName", "databaseName", "objectName"}) {
      const java::Value* p = id->field(part);
      if (!p || p->kind != java::Value::Kind::kString) continue;
      if (!name.empty()) name += '.';
      name += p->text;
    }
    return name;
  }
  return {};
}

// A structured type's attributes, its supertypes' first (StructuredType#getChildren).
Status structured_attributes(const java::Value& v, LogicalType& t, uint64_t at, int depth) {
  if (depth > 32) return Error(ErrorCode::kCorruption, "structured types nested deeper than 32", at);
  if (const java::Value* super = v.field("superType"); super && super->kind == java::Value::Kind::kObject)
    CKPT_RETURN_IF_ERROR(structured_attributes(*super, t, at, depth + 1));
  const java::Value* attributes = v.field("attributes");
  if (!attributes) return Error(ErrorCode::kCorruption, "STRUCTURED_TYPE without its attributes", at);
  return named_children(*attributes, "attribute", t, at, depth);
}

Result<LogicalType> convert(const java::Value& v, uint64_t at, int depth) {
  if (depth > 32) return Error(ErrorCode::kCorruption, "logical types nested deeper than 32", at);
  if (v.kind != java::Value::Kind::kObject)
    return Error(ErrorCode::kCorruption, "expected a serialized LogicalType object", at);
  LogicalType t;
  t.java_class = v.class_name;
  const java::Value* root = v.field("typeRoot");
  if (!root || root->kind != java::Value::Kind::kEnum)
    return Error(ErrorCode::kNotSupported, fmt::format("{} has no LogicalTypeRoot", v.class_name), at);
  t.root = root->text;
  if (const java::Value* n = v.field("isNullable")) t.nullable = n->number != 0;
  if (const java::Value* l = v.field("length")) t.length = static_cast<int32_t>(l->number);
  if (const java::Value* p = v.field("precision")) t.precision = static_cast<int32_t>(p->number);
  if (const java::Value* s = v.field("scale")) t.scale = static_cast<int32_t>(s->number);
  if (const java::Value* k = v.field("kind"); k && k->kind == java::Value::Kind::kEnum) t.timestamp_kind = k->text;
  auto child = [&](const char* name) -> Status {
    const java::Value* c = v.field(name);
    if (!c) return Error(ErrorCode::kCorruption, fmt::format("{} without its {}", v.class_name, name), at);
    CKPT_ASSIGN_OR_RETURN(auto ct, convert(*c, at, depth + 1));
    t.children.push_back(std::move(ct));
    return Status::OK();
  };
  if (t.root == "ARRAY" || t.root == "MULTISET") {
    CKPT_RETURN_IF_ERROR(child("elementType"));
  } else if (t.root == "MAP") {
    CKPT_RETURN_IF_ERROR(child("keyType"));
    CKPT_RETURN_IF_ERROR(child("valueType"));
  } else if (t.root == "ROW") {
    const java::Value* fields = v.field("fields");
    if (!fields) return Error(ErrorCode::kCorruption, "ROW type without its field list", at);
    CKPT_RETURN_IF_ERROR(named_children(*fields, "field", t, at, depth));
  } else if (t.root == "STRUCTURED_TYPE") {
    t.class_name = structured_name(v);
    CKPT_RETURN_IF_ERROR(structured_attributes(v, t, at, depth));
  } else if (t.root == "DISTINCT_TYPE") {
    CKPT_RETURN_IF_ERROR(child("sourceType"));
  } else if (t.root == "RAW") {
    // RawType names the value class and carries its serializer; TypeInformationRawType has
    // neither (only a TypeInformation).
    if (const java::Value* c = v.field("clazz"); c && c->kind == java::Value::Kind::kClass) t.class_name = c->class_name;
    if (const java::Value* s = v.field("serializer"); s && s->kind == java::Value::Kind::kObject) t.serializer = s->class_name;
  }
  return t;
}

// `n` LogicalTypes, one object stream each.
Result<std::vector<LogicalType>> read_types(ByteReader& r, int32_t n) {
  std::vector<LogicalType> out;
  for (int32_t i = 0; i < n; ++i) {
    uint64_t at = r.offset();
    CKPT_ASSIGN_OR_RETURN(auto v, java::read_object_stream(r));
    CKPT_ASSIGN_OR_RETURN(auto t, convert(*v, at, 0));
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

Result<std::vector<LogicalType>> read_logical_types(std::string_view bytes, uint64_t base, int32_t n) {
  ByteReader r(bytes, base);
  CKPT_ASSIGN_OR_RETURN(auto out, read_types(r, n));
  if (!r.at_end())
    return Error(ErrorCode::kCorruption, fmt::format("{} unexpected bytes after the logical types", r.remaining()),
                 r.offset());
  return out;
}

Result<std::vector<LogicalType>> read_java_type_config(ByteReader& r, int types) {
  CKPT_ASSIGN_OR_RETURN(auto out, read_types(r, types));
  for (int i = 0; i < types; ++i) CKPT_RETURN_IF_ERROR(skip_java_object(r));
  return out;
}

Result<LogicalType> read_data_type(ByteReader& r) {
  uint64_t at = r.offset();
  CKPT_ASSIGN_OR_RETURN(auto v, java::read_object_stream(r));
  const java::Value* logical = v->field("logicalType");
  if (!logical) return Error(ErrorCode::kCorruption, fmt::format("{} without a logicalType", v->class_name), at);
  return convert(*logical, at, 0);
}

Result<LogicalType> read_java_table_serializer(ByteReader& r) {
  constexpr std::string_view kTable = "org.apache.flink.table.runtime.typeutils.";
  uint64_t at = r.offset();
  CKPT_ASSIGN_OR_RETURN(auto v, java::read_object_stream(r));
  std::string_view c = v->class_name;
  if (c.substr(0, kTable.size()) != kTable)
    return Error(ErrorCode::kNotSupported, fmt::format("{} is not a table runtime serializer", c), at);
  c = c.substr(kTable.size());
  LogicalType t;
  t.java_class = v->class_name;
  auto child = [&](const char* name) -> Status {
    const java::Value* f = v->field(name);
    if (!f) return Error(ErrorCode::kCorruption, fmt::format("{} without its {}", v->class_name, name), at);
    CKPT_ASSIGN_OR_RETURN(auto ct, convert(*f, at, 1));
    t.children.push_back(std::move(ct));
    return Status::OK();
  };
  auto number = [&](const char* name) {
    const java::Value* f = v->field(name);
    return f ? static_cast<int32_t>(f->number) : -1;
  };
  if (c == "RowDataSerializer") {
    t.root = "ROW";
    const java::Value* types = v->field("types");
    if (!types || types->kind != java::Value::Kind::kArray)
      return Error(ErrorCode::kCorruption, "RowDataSerializer without its field types", at);
    for (const auto& e : types->elements) {
      CKPT_ASSIGN_OR_RETURN(auto ft, convert(*e, at, 1));
      t.children.push_back(std::move(ft));
    }
  } else if (c == "ArrayDataSerializer") {
    t.root = "ARRAY";
    CKPT_RETURN_IF_ERROR(child("eleType"));
  } else if (c == "MapDataSerializer") {
    t.root = "MAP";
    CKPT_RETURN_IF_ERROR(child("keyType"));
    CKPT_RETURN_IF_ERROR(child("valueType"));
  } else if (c == "StringDataSerializer") {
    t.root = "VARCHAR";
  } else if (c == "DecimalDataSerializer") {
    t.root = "DECIMAL";
    t.precision = number("precision");
    t.scale = number("scale");
  } else if (c == "TimestampDataSerializer") {
    t.root = "TIMESTAMP_WITHOUT_TIME_ZONE";
    t.precision = number("precision");
  } else {
    return Error(ErrorCode::kNotSupported, fmt::format("{} values are not decoded from its Java form", v->class_name), at);
  }
  return t;
}

Status skip_java_object(ByteReader& r) {
  CKPT_ASSIGN_OR_RETURN(auto v, java::read_object_stream(r));
  (void)v;
  return Status::OK();
}

}  // namespace ckpt
