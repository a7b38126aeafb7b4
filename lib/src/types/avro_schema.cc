// Avro writer schemas from serializer snapshots, parsed defensively.
#include "types/avro_schema.h"

#include <string_view>

#include <fmt/format.h>

#include "support/json_input.h"

namespace ckpt {
namespace {

// More types than any real schema has (each is a node, and a union of unions multiplies them).
constexpr size_t kMaxNodes = 10000;

Error bad(std::string message) { return Error(ErrorCode::kCorruption, std::move(message)); }

// The string member `key` of a named type or field, `fallback` if absent (or, for the namespace,
// null: Avro's own parser reads a null namespace as none). `owner` names the type for messages.
Result<std::string> text_member(const nlohmann::json& j, const char* key, const std::string& fallback,
                                const std::string& owner) {
  const nlohmann::json* m = json_member(j, key);
  if (!m || (m->is_null() && std::string_view(key) == "namespace")) return fallback;
  if (!m->is_string())
    return bad(fmt::format("'{}' of {} must be a string, found {}", key, owner, m->type_name()));
  return m->get_ref<const std::string&>();
}

// An array member (symbols, fields): empty if absent.
Result<const nlohmann::json*> array_member(const nlohmann::json& j, const char* key, const std::string& owner) {
  static const nlohmann::json kEmpty = nlohmann::json::array();
  const nlohmann::json* m = json_member(j, key);
  if (!m) return &kEmpty;
  if (!m->is_array()) return bad(fmt::format("'{}' of {} must be an array, found {}", key, owner, m->type_name()));
  return m;
}

}  // namespace

Status AvroSchema::parse(const std::string& text) {
  CKPT_ASSIGN_OR_RETURN(nlohmann::json j, parse_json_input(text));
  CKPT_ASSIGN_OR_RETURN(root_, node(j, "", 0));
  return Status::OK();
}

// The recursion follows the JSON, whose nesting parse_json_input() bounded; `depth` guards the
// recursion on its own all the same.
Result<size_t> AvroSchema::node(const nlohmann::json& j, const std::string& ns, int depth) {
  if (nodes_.size() > kMaxNodes) return bad(fmt::format("more than {} types", kMaxNodes));
  if (depth > kMaxJsonInputNesting) return bad(fmt::format("types nested deeper than {}", kMaxJsonInputNesting));
  if (j.is_array()) {
    size_t id = add(AvroKind::kUnion);
    for (const auto& b : j) {
      CKPT_ASSIGN_OR_RETURN(size_t c, node(b, ns, depth + 1));
      nodes_[id].children.push_back(c);
    }
    return id;
  }
  if (j.is_string()) return primitive_or_named(j.get_ref<const std::string&>(), ns);
  const nlohmann::json* type = json_member(j, "type");
  if (!type) return bad(fmt::format("a type must be a string, an array or an object with a type, found {}",
                                    j.is_object() ? "an object without one" : j.type_name()));
  if (!type->is_string()) return node(*type, ns, depth + 1);
  const std::string& t = type->get_ref<const std::string&>();
  if (t == "record" || t == "error" || t == "enum" || t == "fixed") return named(j, t, ns, depth);
  if (t == "array" || t == "map") {
    size_t id = add(t == "array" ? AvroKind::kArray : AvroKind::kMap);
    const char* key = t == "array" ? "items" : "values";
    const nlohmann::json* inner = json_member(j, key);
    if (!inner) return bad(fmt::format("{} without {}", t, key));
    CKPT_ASSIGN_OR_RETURN(size_t c, node(*inner, ns, depth + 1));
    nodes_[id].children.push_back(c);
    return id;
  }
  return primitive_or_named(t, ns);
}

Result<size_t> AvroSchema::named(const nlohmann::json& j, const std::string& t, const std::string& ns, int depth) {
  CKPT_ASSIGN_OR_RETURN(std::string name, text_member(j, "name", "", "a " + t));
  CKPT_ASSIGN_OR_RETURN(std::string space, text_member(j, "namespace", ns, t + " " + name));
  std::string full = name.find('.') != std::string::npos || space.empty() ? name : space + "." + name;
  std::string inner_ns = full.substr(0, full.rfind('.') == std::string::npos ? 0 : full.rfind('.'));
  const std::string owner = t + " " + full;
  size_t id = add(t == "enum" ? AvroKind::kEnum : t == "fixed" ? AvroKind::kFixed : AvroKind::kRecord);
  nodes_[id].name = full;
  named_[full] = id;
  if (t == "enum") {
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* symbols, array_member(j, "symbols", owner));
    for (const auto& sym : *symbols) {
      if (!sym.is_string()) return bad(fmt::format("a symbol of {} must be a string, found {}", owner, sym.type_name()));
      nodes_[id].field_names.push_back(sym.get_ref<const std::string&>());
    }
  } else if (t == "fixed") {
    const nlohmann::json* size = json_member(j, "size");
    if (size && !(size->is_number_unsigned() || (size->is_number_integer() && size->get<int64_t>() >= 0)))
      return bad(fmt::format("'size' of {} must be a non-negative integer, found {}", owner,
                             size->is_number() ? size->dump() : std::string(size->type_name())));
    nodes_[id].fixed_size = size ? size->get<size_t>() : 0;
  } else {
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* fields, array_member(j, "fields", owner));
    for (const auto& f : *fields) {
      const nlohmann::json* type = json_member(f, "type");
      if (!type) return bad(fmt::format("a field of {} without a type", owner));
      CKPT_ASSIGN_OR_RETURN(std::string field_name, text_member(f, "name", "", "a field of " + owner));
      CKPT_ASSIGN_OR_RETURN(size_t c, node(*type, inner_ns, depth + 2));
      nodes_[id].field_names.push_back(std::move(field_name));
      nodes_[id].children.push_back(c);
    }
  }
  return id;
}

Result<size_t> AvroSchema::primitive_or_named(const std::string& t, const std::string& ns) {
  static const std::map<std::string, AvroKind> kPrimitives = {
      {"null", AvroKind::kNull},   {"boolean", AvroKind::kBoolean}, {"int", AvroKind::kInt},
      {"long", AvroKind::kLong},   {"float", AvroKind::kFloat},     {"double", AvroKind::kDouble},
      {"bytes", AvroKind::kBytes}, {"string", AvroKind::kString}};
  if (auto p = kPrimitives.find(t); p != kPrimitives.end()) return add(p->second);
  if (auto n = named_.find(t); n != named_.end()) return n->second;
  if (auto n = named_.find(ns + "." + t); n != named_.end()) return n->second;
  return Error(ErrorCode::kNotSupported, fmt::format("avro type {} is not defined in the schema", t));
}

size_t AvroSchema::add(AvroKind k) {
  nodes_.emplace_back();
  nodes_.back().kind = k;
  return nodes_.size() - 1;
}

Result<AvroSchema> parse_avro_schema(const SerializerSnapshot& s) {
  AvroSchema schema;
  Status st = schema.parse(s.avro_schema);
  if (st.ok()) return schema;
  Error e = std::move(st).error();
  if (e.code != ErrorCode::kCorruption) return e;
  return Error(ErrorCode::kCorruption,
               fmt::format("avro schema{}: {}", s.type_class.empty() ? "" : " of " + s.type_class, e.message),
               s.avro_schema_offset);
}

}  // namespace ckpt
