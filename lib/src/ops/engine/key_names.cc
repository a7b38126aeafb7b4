// Naming a key row's fields after the plan's columns.
#include "ops/engine/key_names.h"

#include "support/json_input.h"
#include "support/json_text.h"

namespace ckpt {

std::string name_row_fields(const std::string& row_json, const std::vector<std::string>& names) {
  auto row = parse_json_input(row_json);
  if (!row.ok() || !row->is_object() || row->size() != 2) return row_json;
  const nlohmann::json* fields = json_member(*row, "fields");
  const nlohmann::json* kind = json_member(*row, "kind");
  if (!fields || !kind || !fields->is_array() || !kind->is_string() || fields->size() != names.size()) return row_json;
  // Written by hand so that the fields keep the key's column order (a tree would sort them).
  std::string out = "{\"fields\":{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, names[i]);
    out += ':';
    append_json_text(out, (*fields)[i]);
  }
  out += "},\"kind\":";
  append_json_text(out, *kind);
  out += '}';
  return out;
}

Value name_row_fields(const Value& row, const std::vector<std::string>& names) {
  if (row.kind() != Value::Kind::kObject || row.size() != 2) return row;
  const Value* fields = row.find("fields");
  const Value* kind = row.find("kind");
  if (!fields || !kind || fields->kind() != Value::Kind::kArray || kind->kind() != Value::Kind::kString ||
      fields->size() != names.size())
    return row;
  return Value::object({"fields", "kind"}, {Value::object(names, fields->elements()), *kind});
}

std::optional<std::string> unname_row_fields(const std::string& named_json, const std::vector<std::string>& names) {
  auto row = parse_json_input(named_json);
  if (!row.ok() || !row->is_object() || row->size() != 2) return std::nullopt;
  const nlohmann::json* fields = json_member(*row, "fields");
  const nlohmann::json* kind = json_member(*row, "kind");
  if (!fields || !kind || !fields->is_object() || !kind->is_string() || fields->size() != names.size())
    return std::nullopt;
  nlohmann::json positional = nlohmann::json::array();
  for (const std::string& name : names) {
    const nlohmann::json* field = json_member(*fields, name);
    if (!field) return std::nullopt;
    positional.push_back(*field);
  }
  std::string out = "{\"fields\":";
  append_json_text(out, positional);
  out += ",\"kind\":";
  append_json_text(out, *kind);
  out += '}';
  return out;
}

}  // namespace ckpt
