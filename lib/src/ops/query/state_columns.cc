// The columns of a state's table (state_columns.h), from its serializer snapshots.
#include "ops/query/state_columns.h"

#include "ops/query/query_tables.h"

#include <set>
#include <string_view>

#include "types/avro_schema.h"
#include "types/value_decoder.h"

namespace ckpt::query_detail {
namespace {

bool class_ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view class_simple_name(std::string_view class_name) {
  size_t dot = class_name.rfind('.');
  return dot == std::string_view::npos ? class_name : class_name.substr(dot + 1);
}

// The SQL type of the values a serializer prints as one scalar; JSON for the others.
std::string scalar_sql_type(const SerializerSnapshot& s) {
  static const std::set<std::string_view> kIntegers = {
      "LongSerializer",      "IntSerializer",          "ShortSerializer",    "ByteSerializer",
      "BooleanSerializer",   "LongValueSerializer",    "IntValueSerializer", "ShortValueSerializer",
      "ByteValueSerializer", "BooleanValueSerializer", "DateSerializer",     "SqlDateSerializer",
      "SqlTimeSerializer"};
  static const std::set<std::string_view> kReals = {"FloatSerializer", "DoubleSerializer", "FloatValueSerializer",
                                                    "DoubleValueSerializer"};
  static const std::set<std::string_view> kTexts = {"StringSerializer",    "StringValueSerializer", "CharSerializer",
                                                    "CharValueSerializer", "StringDataSerializer",  "EnumSerializer"};
  std::string_view name = class_simple_name(s.serializer_class);
  if (kIntegers.count(name)) return "INTEGER";
  if (kReals.count(name)) return "REAL";
  if (kTexts.count(name)) return "TEXT";
  return "JSON";
}

std::string logical_type_sql(const LogicalType& t) {
  static const std::set<std::string_view> kIntegers = {"BOOLEAN",
                                                       "TINYINT",
                                                       "SMALLINT",
                                                       "INTEGER",
                                                       "BIGINT",
                                                       "DATE",
                                                       "TIME_WITHOUT_TIME_ZONE",
                                                       "INTERVAL_YEAR_MONTH",
                                                       "INTERVAL_DAY_TIME"};
  if (kIntegers.count(t.root)) return "INTEGER";
  if (t.root == "FLOAT" || t.root == "DOUBLE") return "REAL";
  if (t.root == "CHAR" || t.root == "VARCHAR") return "TEXT";
  return "JSON";
}

std::string avro_sql_type(const AvroSchema& schema, size_t node) {
  const AvroNode& n = schema.at(node);
  switch (n.kind) {
    case AvroKind::kBoolean:
    case AvroKind::kInt:
    case AvroKind::kLong: return "INTEGER";
    case AvroKind::kFloat:
    case AvroKind::kDouble: return "REAL";
    case AvroKind::kString:
    case AvroKind::kEnum: return "TEXT";
    case AvroKind::kUnion: {
      // A nullable field (a union of null and one type) has that type's values or NULL.
      std::string type;
      for (size_t c : n.children) {
        if (schema.at(c).kind == AvroKind::kNull) continue;
        if (!type.empty()) return "JSON";
        type = avro_sql_type(schema, c);
      }
      return type.empty() ? "JSON" : type;
    }
    default: return "JSON";
  }
}

// Values of `s` can be taken apart only when ckpt decodes them; an opaque one prints whole.
bool splittable_values(const SerializerSnapshot& s) {
  Result<std::unique_ptr<ValueDecoder>> d = make_decoder(s);
  return d.ok() && (*d)->decodable();
}

std::vector<PathStep> path_with(std::vector<PathStep> path, PathStep step) {
  path.push_back(std::move(step));
  return path;
}

PathStep member_step(std::string name) { return PathStep{std::move(name), 0}; }
PathStep element_step(size_t i) { return PathStep{std::string(), i}; }

// The columns of one field (key, user key or value) whose serializer is `s`, below `prefix`
// inside the field; `whole` names the column of a field that is not split.
void split_columns(const SerializerSnapshot* s, EntryField field, const std::string& whole,
                   const std::vector<PathStep>& prefix, const std::vector<std::string>* row_names,
                   std::vector<StateColumn>& out) {
  auto add = [&](std::string name, std::vector<PathStep> path, std::string type) {
    out.push_back(StateColumn{std::move(name), field, std::move(path), std::move(type)});
  };
  if (!s || !splittable_values(*s)) return add(whole, prefix, "JSON");
  const std::string& c = s->snapshot_class;
  if (s->form == SnapshotForm::kPojo && s->pojo_registered_subclasses.empty() &&
      s->pojo_nonregistered_subclasses.empty() && !s->field_names.empty()) {
    for (size_t i = 0; i < s->field_names.size(); ++i) {
      if (s->field_names[i].empty()) continue;  // a removed field: always null
      const SerializerSnapshot* f = i < s->nested.size() ? &s->nested[i] : nullptr;
      add(s->field_names[i], path_with(path_with(prefix, member_step("fields")), member_step(s->field_names[i])),
          f ? scalar_sql_type(*f) : "JSON");
    }
    return;
  }
  if (class_ends_with(c, ".TupleSerializerSnapshot") || class_ends_with(c, ".ScalaCaseClassSerializerSnapshot") ||
      class_ends_with(c, ".Tuple2CaseClassSerializerSnapshot")) {
    const bool scala = c.find("scala") != std::string::npos;
    for (size_t i = 0; i < s->nested.size(); ++i)
      add(scala ? "_" + std::to_string(i + 1) : "f" + std::to_string(i), path_with(prefix, element_step(i)),
          scalar_sql_type(s->nested[i]));
    if (!s->nested.empty()) return;
  }
  if (class_ends_with(c, "$RowSerializerSnapshot") && !s->nested.empty()) {
    for (size_t i = 0; i < s->nested.size(); ++i)
      add("f" + std::to_string(i), path_with(path_with(prefix, member_step("fields")), element_step(i)),
          scalar_sql_type(s->nested[i]));
    return;
  }
  if (s->form == SnapshotForm::kRowData && s->logical_types_decoded && !s->logical_types.empty()) {
    const bool named = row_names && row_names->size() == s->logical_types.size();
    for (size_t i = 0; i < s->logical_types.size(); ++i)
      add(named ? (*row_names)[i] : "f" + std::to_string(i),
          path_with(path_with(prefix, member_step("fields")), element_step(i)), logical_type_sql(s->logical_types[i]));
    return;
  }
  if (class_ends_with(c, "$ExternalSerializerSnapshot") && s->logical_types_decoded && s->logical_types.size() == 1) {
    const LogicalType& t = s->logical_types[0];
    if ((t.root == "STRUCTURED_TYPE" || t.root == "ROW") && !t.children.empty() &&
        t.field_names.size() == t.children.size()) {
      for (size_t i = 0; i < t.children.size(); ++i)
        add(t.field_names[i],
            path_with(path_with(prefix, member_step("fields")),
                      t.root == "ROW" ? element_step(i) : member_step(t.field_names[i])),
            logical_type_sql(t.children[i]));
      return;
    }
  }
  if (!s->avro_schema.empty()) {
    Result<AvroSchema> schema = parse_avro_schema(*s);
    if (schema.ok() && schema->at(schema->root()).kind == AvroKind::kRecord) {
      const AvroNode& record = schema->at(schema->root());
      for (size_t i = 0; i < record.field_names.size() && i < record.children.size(); ++i)
        add(record.field_names[i],
            path_with(path_with(prefix, member_step("fields")), member_step(record.field_names[i])),
            avro_sql_type(*schema, record.children[i]));
      return;
    }
  }
  if (class_ends_with(c, "$TtlSerializerSnapshot") && s->nested.size() == 2) {
    add("ttl_ts", path_with(prefix, member_step("ttl_ts")), "INTEGER");
    return split_columns(&s->nested[1], field, whole, path_with(prefix, member_step("value")), row_names, out);
  }
  if (class_ends_with(c, ".TtlAwareSerializerSnapshot") && s->nested.size() == 1)
    return split_columns(&s->nested[0], field, whole, prefix, row_names, out);
  add(whole, prefix, scalar_sql_type(*s));
}

// A LIST or MAP state's element, user key or value serializer (with TTL, its elements and
// values are what the TtlSerializer wraps).
const SerializerSnapshot* collection_part(const SerializerSnapshot* s, size_t i) {
  return s && i < s->nested.size() ? &s->nested[i] : nullptr;
}

// Names are unique and leave the table's own columns alone: a clash takes the field's name
// as a prefix, then a number.
void unique_column_names(std::vector<StateColumn>& columns) {
  std::set<std::string> taken = {"snapshot", "subtask", "key_group", "entry_bytes"};
  for (StateColumn& c : columns) {
    if (taken.count(c.name)) {
      const char* field = c.field == EntryField::kKey       ? "key_"
                          : c.field == EntryField::kUserKey ? "user_key_"
                                                            : "value_";
      std::string base = c.name.rfind(field, 0) == 0 ? c.name : field + c.name;
      std::string name = base;
      for (int n = 2; taken.count(name); ++n) name = base + "_" + std::to_string(n);
      c.name = name;
    }
    taken.insert(c.name);
  }
}

}  // namespace

StateLayout state_layout(const StateMetaInfo& info, const SerializerSnapshot* keyed_key,
                         const std::vector<std::string>* key_names) {
  StateLayout l;
  l.kind = info.kind();
  l.keyed = keyed_key != nullptr;
  const SerializerSnapshot* value = info.value_serializer();
  std::vector<StateColumn>& out = l.columns;
  if (l.keyed) {
    split_columns(keyed_key, EntryField::kKey, "key", {}, key_names, out);
    out.push_back(StateColumn{"namespace", EntryField::kNamespace, {}, "JSON"});
  }
  switch (l.kind) {
    case StateKind::kList:
      l.list = true;
      out.push_back(StateColumn{"list_index", EntryField::kListIndex, {}, "INTEGER"});
      split_columns(collection_part(value, 0), EntryField::kValue, "value", {}, nullptr, out);
      break;
    case StateKind::kMap:
      split_columns(collection_part(value, 0), EntryField::kUserKey, "user_key", {}, nullptr, out);
      split_columns(collection_part(value, 1), EntryField::kValue, "value", {}, nullptr, out);
      break;
    case StateKind::kPriorityQueue: out.push_back(StateColumn{"timestamp", EntryField::kValue, {}, "INTEGER"}); break;
    case StateKind::kBroadcast:
      split_columns(info.key_serializer(), EntryField::kKey, "key", {}, nullptr, out);
      split_columns(value, EntryField::kValue, "value", {}, nullptr, out);
      break;
    default: split_columns(value, EntryField::kValue, "value", {}, nullptr, out); break;
  }
  unique_column_names(out);
  return l;
}

const Value* value_at(const Value& v, const std::vector<PathStep>& path) {
  const Value* at = &v;
  for (const PathStep& step : path) {
    if (!step.member.empty()) {
      if (at->kind() != Value::Kind::kObject) return nullptr;
      at = at->find(step.member);
    } else {
      if (at->kind() != Value::Kind::kArray || step.index >= at->size()) return nullptr;
      at = &at->elements()[step.index];
    }
    if (!at) return nullptr;
  }
  return at;
}

QueryCell value_cell(const Value* v) {
  if (!v) return null_cell();
  switch (v->kind()) {
    case Value::Kind::kNull: return null_cell();
    case Value::Kind::kBool: return integer_cell(v->as_bool() ? 1 : 0);
    case Value::Kind::kInt: return integer_cell(v->as_int());
    case Value::Kind::kUnsigned:
      if (v->as_unsigned() <= static_cast<uint64_t>(INT64_MAX))
        return integer_cell(static_cast<int64_t>(v->as_unsigned()));
      return text_cell(v->json());
    case Value::Kind::kDouble: {
      QueryCell c;
      c.type = QueryCell::Type::kReal;
      c.real = v->as_double();
      return c;
    }
    case Value::Kind::kString: return text_cell(v->as_string());
    default: return text_cell(v->json());
  }
}

}  // namespace ckpt::query_detail
