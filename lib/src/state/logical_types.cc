// SQL LogicalTypes from Java-serialized org.apache.flink.table.types.logical objects.
#include "state/logical_types.h"

#include <fmt/format.h>

#include "state/java_object_stream.h"

namespace ckpt {
namespace {

// The objects a writeObject-serialized collection (ArrayList and its unmodifiable wrappers) holds.
const java::Value* unwrap_list(const java::Value* v) {
  for (int i = 0; v && i < 4; ++i) {
    if (v->class_name == "java.util.ArrayList" || v->class_name == "java.util.LinkedList") return v;
    const java::Value* inner = v->field("list");
    if (!inner) inner = v->field("c");
    v = inner;
  }
  return nullptr;
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
    const java::Value* list = unwrap_list(v.field("fields"));
    if (!list) return Error(ErrorCode::kCorruption, "ROW type without its field list", at);
    for (const auto& f : list->annotations) {
      if (f->kind != java::Value::Kind::kObject) continue;  // the ArrayList's capacity block
      const java::Value* name = f->field("name");
      const java::Value* type = f->field("type");
      if (!name || !type) return Error(ErrorCode::kCorruption, "ROW field without name or type", at);
      CKPT_ASSIGN_OR_RETURN(auto ft, convert(*type, at, depth + 1));
      t.field_names.push_back(name->text);
      t.children.push_back(std::move(ft));
    }
  }
  return t;
}

}  // namespace

Result<std::vector<LogicalType>> read_logical_types(std::string_view bytes, uint64_t base, int32_t n) {
  ByteReader r(bytes, base);
  std::vector<LogicalType> out;
  for (int32_t i = 0; i < n; ++i) {
    uint64_t at = r.offset();
    CKPT_ASSIGN_OR_RETURN(auto v, java::read_object_stream(r));
    CKPT_ASSIGN_OR_RETURN(auto t, convert(*v, at, 0));
    out.push_back(std::move(t));
  }
  if (!r.at_end())
    return Error(ErrorCode::kCorruption, fmt::format("{} unexpected bytes after the logical types", r.remaining()),
                 r.offset());
  return out;
}

}  // namespace ckpt
