// The per-state tables of `ckpt query` ("<operator>.<state>", ckpt/query.h): one state's
// entries, streamed from EntryReader as `entries` is, with the key, user key and value split
// into the columns its serializers name (state_columns.h). A table is declared when a
// statement first names it: finding a state means reading the proxies of its operator in every
// snapshot, which a query that never names one should not pay for.
#include <algorithm>
#include <cctype>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/entries.h"
#include "ops/query/entry_scans.h"
#include "ops/query/query_tables.h"
#include "ops/query/state_columns.h"
#include "state/proxy_reader.h"

namespace ckpt::query_detail {
namespace {

// The state in one snapshot.
struct StatePart {
  size_t snapshot = 0;
  std::string operator_id;  // 32 hex digits
  std::string state;
  StateLayout layout;
  std::vector<size_t> to_table;  // layout.columns[i] is table column to_table[i]
};

struct StateTableDef {
  std::string name;
  bool keyed = false;
  std::vector<std::string> columns, types;
  std::vector<StatePart> parts;
  // How a key is put together again from the key columns' values, for a lookup (equality on
  // every key column is pushed to the reader): kNone where the parts differ or a column holds
  // structured JSON.
  enum class KeyShape : uint8_t { kNone, kWhole, kTuple, kRow } key_shape = KeyShape::kNone;
  std::vector<size_t> key_columns;  // table columns, in the key's field order
};

constexpr size_t kStateSnapshotColumn = 0, kStateSubtaskColumn = 1, kStateKeyGroupColumn = 2;

// The names `op` goes by in a table name: its uid, its V5+ name, its id.
std::vector<std::string> state_table_labels(const QueryContext& ctx, const OperatorState& op) {
  std::vector<std::string> out;
  std::string uid = ctx.options.names.uid_of(op);
  if (!uid.empty()) out.push_back(uid);
  if (!op.name.empty() && op.name != uid) out.push_back(op.name);
  out.push_back(operator_id_hex(op.id));
  return out;
}

// Calls `visit(info, keyed key serializer or null)` for each state record of `op`'s proxies, a
// subtask at a time, until it returns true; the first proxy that cannot be read is the error
// when nothing was visited.
Status visit_operator_states(const std::string& snapshot, const std::vector<PrefixRule>& remap, const OperatorState& op,
                             const std::function<bool(const StateMetaInfo&, const SerializerSnapshot*)>& visit) {
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(snapshot));
  ProxyReader reader(where, remap);
  std::optional<Error> first_error;
  bool done = false;
  for (const SubtaskState& st : op.subtasks) {
    for (const OperatorHandle& h : st.managed_operator) {
      if (h.is_null() || done) continue;
      Result<OperatorBackendMeta> meta = reader.operator_state(h);
      if (!meta.ok()) {
        if (!first_error) first_error = meta.error();
        continue;
      }
      for (const auto* states : {&meta->list_states, &meta->broadcast_states})
        for (const StateMetaInfo& info : *states)
          if (!done) done = visit(info, nullptr);
    }
    if (done) break;
    Status s = reader.keyed(st.managed_keyed, [&](const KeyedBackendMeta& meta) {
      for (const StateMetaInfo& info : meta.states)
        if (!done) done = visit(info, &meta.key_serializer);
    });
    if (!s.ok() && !first_error) first_error = s.error();
    if (done) break;
  }
  if (!done && first_error) return *first_error;
  return Status::OK();
}

void add_state_part(StateTableDef& def, StatePart part) {
  if (def.parts.empty()) {
    def.keyed = part.layout.keyed;
    def.columns = {"snapshot", "subtask"};
    def.types = {"TEXT", "INTEGER"};
    if (def.keyed) {
      def.columns.push_back("key_group");
      def.types.push_back("INTEGER");
    }
  }
  for (const StateColumn& c : part.layout.columns) {
    auto at = std::find(def.columns.begin(), def.columns.end(), c.name);
    if (at == def.columns.end()) {
      def.columns.push_back(c.name);
      def.types.push_back(c.type);
      at = def.columns.end() - 1;
    }
    part.to_table.push_back(static_cast<size_t>(at - def.columns.begin()));
  }
  def.parts.push_back(std::move(part));
}

// The key's shape in one part, and its columns; kNone unless the key is one column, or scalar
// fields of a Tuple ($[i]) or of a row ($.fields[i]) in order.
StateTableDef::KeyShape part_key_shape(const StateTableDef& def, const StatePart& p, std::vector<size_t>& columns) {
  using Shape = StateTableDef::KeyShape;
  std::optional<Shape> shape;
  for (size_t c = 0; c < p.layout.columns.size(); ++c) {
    const StateColumn& col = p.layout.columns[c];
    if (col.field != EntryField::kKey) continue;
    const size_t i = columns.size();
    Shape this_one = Shape::kNone;
    if (col.path.empty())
      this_one = Shape::kWhole;
    else if (col.path.size() == 1 && col.path[0].member.empty() && col.path[0].index == i)
      this_one = Shape::kTuple;
    else if (col.path.size() == 2 && col.path[0].member == "fields" && col.path[1].member.empty() &&
             col.path[1].index == i)
      this_one = Shape::kRow;
    if (this_one != Shape::kWhole && col.type == "JSON") this_one = Shape::kNone;
    if ((shape && *shape != this_one) || (this_one == Shape::kWhole && i > 0)) return Shape::kNone;
    shape = this_one;
    columns.push_back(p.to_table[c]);
  }
  return def.keyed && shape ? *shape : Shape::kNone;
}

void set_key_shape(StateTableDef& def) {
  for (size_t i = 0; i < def.parts.size(); ++i) {
    std::vector<size_t> columns;
    StateTableDef::KeyShape shape = part_key_shape(def, def.parts[i], columns);
    if (i > 0 && (shape != def.key_shape || columns != def.key_columns)) shape = StateTableDef::KeyShape::kNone;
    def.key_shape = shape;
    def.key_columns = std::move(columns);
    if (shape == StateTableDef::KeyShape::kNone) break;
  }
  if (def.key_shape == StateTableDef::KeyShape::kNone) def.key_columns.clear();
}

// The table `name` over every snapshot holding the state it names; nullopt when none does.
Result<std::optional<StateTableDef>> resolve_state_table(QueryContext& ctx, const std::string& name) {
  StateTableDef def;
  def.name = name;
  std::optional<Error> unreadable;
  for (size_t i = 0; i < ctx.snapshots.size(); ++i) {
    const ListedSnapshot& s = ctx.snapshots[i];
    if (!s.complete || !s.problem.empty()) continue;
    Result<const Metadata*> m = ctx.metadata(i);
    if (!m.ok()) return m.error();
    for (const OperatorState& op : (*m)->operators) {
      std::string state;
      for (const std::string& label : state_table_labels(ctx, op))
        if (name.size() > label.size() + 1 && name.compare(0, label.size(), label) == 0 && name[label.size()] == '.') {
          state = name.substr(label.size() + 1);
          break;
        }
      if (state.empty()) continue;
      const OperatorName* op_name = ctx.options.names.find(op.id);
      const std::vector<std::string>* key_names =
          op_name && !op_name->key_columns.empty() ? &op_name->key_columns : nullptr;
      std::optional<StateLayout> layout;
      Status st = visit_operator_states(s.path, ctx.options.remap, op,
                                        [&](const StateMetaInfo& info, const SerializerSnapshot* key) {
                                          if (info.name != state) return false;
                                          layout = state_layout(info, key, key_names);
                                          return true;
                                        });
      if (!st.ok() && !unreadable) unreadable = st.error();
      if (layout) add_state_part(def, StatePart{i, operator_id_hex(op.id), state, std::move(*layout), {}});
      if (layout) break;
    }
  }
  if (def.parts.empty()) {
    if (unreadable) return *unreadable;
    return std::optional<StateTableDef>();
  }
  def.columns.push_back("entry_bytes");
  def.types.push_back("INTEGER");
  set_key_shape(def);
  return std::optional<StateTableDef>(std::move(def));
}

std::string quoted_sql_name(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The definition declare_state_table() resolved, for the xCreate its CREATE VIRTUAL TABLE runs.
thread_local const StateTableDef* declaring_state_table = nullptr;

struct StateTable {
  sqlite3_vtab base{};
  QueryContext* ctx = nullptr;
  StateTableDef def;
};

struct StateCursor {
  explicit StateCursor(StateTable* t) : table(t), scans(*t->ctx) {}
  sqlite3_vtab_cursor base{};
  StateTable* table = nullptr;
  EntryScans scans;  // Scan::part: the index of the table's part
  // The rows of the current entry (a LIST entry has one per element) and the one shown.
  std::vector<std::vector<QueryCell>> rows;
  size_t row = 0;
  sqlite3_int64 rowid = 0;
};

StateCursor* state_cursor(sqlite3_vtab_cursor* c) { return reinterpret_cast<StateCursor*>(c); }

int state_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out, char** err) {
  auto* ctx = static_cast<QueryContext*>(aux);
  const std::string name = argc > 2 ? argv[2] : "";
  auto t = std::make_unique<StateTable>();
  t->ctx = ctx;
  if (declaring_state_table && declaring_state_table->name == name) {
    t->def = *declaring_state_table;
  } else {
    Result<std::optional<StateTableDef>> def = resolve_state_table(*ctx, name);
    if (!def.ok() || !*def) {
      *err = sqlite3_mprintf("%s", def.ok() ? ("no state " + name).c_str() : def.error().to_string().c_str());
      return SQLITE_ERROR;
    }
    t->def = std::move(**def);
  }
  std::string schema = "CREATE TABLE x(";
  for (size_t i = 0; i < t->def.columns.size(); ++i)
    schema += (i ? ", " : "") + quoted_sql_name(t->def.columns[i]) + " " + t->def.types[i];
  schema += ")";
  int rc = sqlite3_declare_vtab(db, schema.c_str());
  if (rc != SQLITE_OK) return rc;
  *out = &t.release()->base;
  return SQLITE_OK;
}

// Its own function: SQLite takes a module whose xCreate is its xConnect as eponymous too.
int state_create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out, char** err) {
  return state_connect(db, aux, argc, argv, out, err);
}

int state_disconnect(sqlite3_vtab* t) {
  delete reinterpret_cast<StateTable*>(t);
  return SQLITE_OK;
}

// Bits of idxNum, in the order xFilter receives their values.
enum StatePushedBit { kSnapshotBit = 1, kSubtaskBit = 2, kKeyGroupBit = 4, kKeyBit = 8 };
// idxNum's bit kKeyListShift + k: key column k's constraint is `IN (...)`, its values all handed
// to one xFilter (sqlite3_vtab_in) and looked up in one scan, rather than one scan per value.
constexpr int kKeyListShift = 8;
constexpr size_t kKeyListColumns = 16;
// A lookup of more keys than this (the product of the key columns' lists) reads everything.
constexpr size_t kMaxLookupKeys = size_t{1} << 20;

// As `entries`: constraints narrow what is read, SQLite still checks every row (omit stays 0).
int state_best_index(sqlite3_vtab* base, sqlite3_index_info* info) {
  const StateTableDef& def = reinterpret_cast<StateTable*>(base)->def;
  auto equality_on = [&](size_t column) {
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      if (c.usable && c.op == SQLITE_INDEX_CONSTRAINT_EQ && c.iColumn == static_cast<int>(column)) return i;
    }
    return -1;
  };
  int mask = 0, argv = 0;
  double rows = 1e8;
  const std::pair<int, size_t> single[] = {
      {kSnapshotBit, kStateSnapshotColumn}, {kSubtaskBit, kStateSubtaskColumn}, {kKeyGroupBit, kStateKeyGroupColumn}};
  for (const auto& [bit, column] : single) {
    if (bit == kKeyGroupBit && !def.keyed) continue;
    int i = equality_on(column);
    if (i < 0) continue;
    info->aConstraintUsage[i].argvIndex = ++argv;
    mask |= bit;
    rows /= bit == kKeyGroupBit ? 1e3 : bit == kSubtaskBit ? 8 : 4;
  }
  // A key reads one key group, and only when every field of it is given.
  std::vector<int> key;
  for (size_t column : def.key_columns)
    if (int i = equality_on(column); i >= 0) key.push_back(i);
  if (!key.empty() && key.size() == def.key_columns.size()) {
    for (size_t k = 0; k < key.size(); ++k) {
      info->aConstraintUsage[key[k]].argvIndex = ++argv;
      if (k < kKeyListColumns && sqlite3_vtab_in(info, key[k], 1)) mask |= 1 << (kKeyListShift + k);
    }
    mask |= kKeyBit;
    rows /= 1e6;
  }
  info->idxNum = mask;
  info->estimatedCost = rows;
  info->estimatedRows = static_cast<sqlite3_int64>(std::max(rows, 1.0));
  return SQLITE_OK;
}

int state_open(sqlite3_vtab* t, sqlite3_vtab_cursor** out) {
  auto* c = new StateCursor(reinterpret_cast<StateTable*>(t));
  *out = &c->base;
  return SQLITE_OK;
}

int state_close(sqlite3_vtab_cursor* base) {
  delete state_cursor(base);
  return SQLITE_OK;
}

// The rows of the iterator's entry.
void state_make_rows(StateCursor* c) {
  const StateTableDef& def = c->table->def;
  const StatePart& part = def.parts[c->scans.scan().part];
  const Entry& e = c->scans.entry();
  std::vector<QueryCell> row(def.columns.size());
  row[kStateSnapshotColumn] = text_cell(c->table->ctx->snapshots[part.snapshot].path);
  row[kStateSubtaskColumn] = integer_cell(e.subtask);
  if (def.keyed && e.key_group) row[kStateKeyGroupColumn] = integer_cell(*e.key_group);
  // A LIST entry's bytes are the whole list's: on its first row, so that sums count them once.
  row.back() = integer_cell(static_cast<int64_t>(entry_bytes(e)));
  auto fill = [&](const Value* element, std::optional<size_t> index) {
    for (size_t i = 0; i < part.layout.columns.size(); ++i) {
      const StateColumn& col = part.layout.columns[i];
      QueryCell& cell = row[part.to_table[i]];
      switch (col.field) {
        case EntryField::kKey: cell = e.key ? value_cell(value_at(*e.key, col.path)) : null_cell(); break;
        case EntryField::kNamespace: cell = e.ns ? value_cell(value_at(*e.ns, col.path)) : null_cell(); break;
        case EntryField::kUserKey: cell = e.user_key ? value_cell(value_at(*e.user_key, col.path)) : null_cell(); break;
        case EntryField::kValue: cell = element ? value_cell(value_at(*element, col.path)) : null_cell(); break;
        case EntryField::kListIndex: cell = index ? integer_cell(static_cast<int64_t>(*index)) : null_cell(); break;
      }
    }
    c->rows.push_back(row);
  };
  // A list whose elements cannot be told apart (opaque) is one row, shown whole.
  if (part.layout.list && e.value.kind() == Value::Kind::kArray && e.value.size() > 0) {
    for (size_t i = 0; i < e.value.size(); ++i) {
      fill(&e.value.elements()[i], i);
      row.back() = integer_cell(0);
    }
  } else if (part.layout.list && e.value.kind() == Value::Kind::kArray) {
    fill(nullptr, std::nullopt);
  } else {
    fill(&e.value, std::nullopt);
  }
}

// Until the cursor is on a row or past the last scan.
int state_advance(StateCursor* c) {
  if (c->row < c->rows.size()) return SQLITE_OK;
  c->rows.clear();
  c->row = 0;
  int rc = c->scans.advance(c->base.pVtab);
  if (rc == SQLITE_OK && c->scans.on_entry()) state_make_rows(c);
  return rc;
}

// A whole key's equality as the keys a lookup takes: a text cell is a string key or, when it is
// one, a structured key's JSON as `ckpt dump` prints keys; an integer a number.
std::optional<std::vector<Value>> whole_lookup_keys(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return std::vector<Value>{Value::integer(sqlite3_value_int64(v))};
    case SQLITE_TEXT: {
      std::string text(reinterpret_cast<const char*>(sqlite3_value_text(v)), sqlite3_value_bytes(v));
      std::vector<Value> keys = {Value::string(text)};
      if (!text.empty() && (text[0] == '{' || text[0] == '['))
        if (Result<Value> structured = parse_value(text); structured.ok()) keys.push_back(std::move(*structured));
      return keys;
    }
    default: return std::nullopt;  // a real or a blob: read everything, SQLite compares
  }
}

// A Tuple's or a row's key from its fields' equalities, or nullopt where a value is not of its
// column's type (SQLite still compares; the lookup would miss).
std::optional<Value> field_lookup_key(const StateTableDef& def, sqlite3_value** values) {
  std::vector<Value> fields;
  for (size_t i = 0; i < def.key_columns.size(); ++i) {
    sqlite3_value* v = values[i];
    const std::string& type = def.types[def.key_columns[i]];
    if (type == "INTEGER" && sqlite3_value_numeric_type(v) == SQLITE_INTEGER)
      fields.push_back(Value::integer(sqlite3_value_int64(v)));
    else if (type == "REAL" && sqlite3_value_numeric_type(v) != SQLITE_TEXT &&
             sqlite3_value_numeric_type(v) != SQLITE_BLOB)
      fields.push_back(Value::number(sqlite3_value_double(v)));
    else if (type == "TEXT" && sqlite3_value_type(v) == SQLITE_TEXT)
      fields.push_back(Value::string(std::string(reinterpret_cast<const char*>(sqlite3_value_text(v)), sqlite3_value_bytes(v))));
    else
      return std::nullopt;
  }
  Value key = Value::array(std::move(fields));
  if (def.key_shape == StateTableDef::KeyShape::kRow) key = Value::object({"kind", "fields"}, {Value::string("+I"), std::move(key)});
  return key;
}

struct ValueFree {
  void operator()(sqlite3_value* v) const { sqlite3_value_free(v); }
};
using OwnedValue = std::unique_ptr<sqlite3_value, ValueFree>;
using KeyColumnValues = std::vector<std::vector<OwnedValue>>;

// Each key column's values, from its `=` or all of its `IN (...)` list (NULLs dropped: they equal
// nothing), copied (a list's value lives until the next one is asked for); nullopt where a list
// cannot be read to its end or copied (narrowing on part of it would lose rows).
std::optional<KeyColumnValues> key_column_values(const StateTableDef& def, int mask, sqlite3_value** argv) {
  KeyColumnValues out(def.key_columns.size());
  auto take = [](std::vector<OwnedValue>& to, sqlite3_value* v) {
    if (sqlite3_value_type(v) == SQLITE_NULL) return true;
    to.emplace_back(sqlite3_value_dup(v));
    return to.back() != nullptr;
  };
  for (size_t k = 0; k < def.key_columns.size(); ++k) {
    if (!(mask & (1 << (kKeyListShift + k)))) {
      if (!take(out[k], argv[k])) return std::nullopt;
      continue;
    }
    sqlite3_value* v = nullptr;
    int rc = sqlite3_vtab_in_first(argv[k], &v);
    for (; rc == SQLITE_OK && v; rc = sqlite3_vtab_in_next(argv[k], &v))
      if (!take(out[k], v)) return std::nullopt;
    if (rc != SQLITE_OK && rc != SQLITE_DONE) return std::nullopt;
  }
  return out;
}

// The keys a lookup takes for every combination of the key columns' values; nullopt where one
// cannot be made (a value not of its column's type) or there are too many: read everything.
std::optional<std::vector<Value>> lookup_keys(const StateTableDef& def, const KeyColumnValues& given) {
  size_t combinations = 1;
  for (const auto& values : given) {
    if (values.size() > kMaxLookupKeys / combinations) return std::nullopt;
    combinations *= values.size();
  }
  std::vector<Value> keys;
  if (def.key_shape == StateTableDef::KeyShape::kWhole) {
    for (const OwnedValue& v : given[0]) {
      std::optional<std::vector<Value>> spellings = whole_lookup_keys(v.get());
      if (!spellings) return std::nullopt;
      for (Value& key : *spellings) keys.push_back(std::move(key));
    }
    return keys;
  }
  std::vector<size_t> at(given.size(), 0);  // the combination's value of each column
  std::vector<sqlite3_value*> fields(given.size());
  for (size_t n = 0; n < combinations; ++n) {
    for (size_t k = 0; k < given.size(); ++k) fields[k] = given[k][at[k]].get();
    std::optional<Value> key = field_lookup_key(def, fields.data());
    if (!key) return std::nullopt;
    keys.push_back(std::move(*key));
    for (size_t k = given.size(); k-- > 0;) {
      if (++at[k] < given[k].size()) break;
      at[k] = 0;
    }
  }
  return keys;
}

int state_filter(sqlite3_vtab_cursor* base, int mask, const char*, int, sqlite3_value** argv) {
  StateCursor* c = state_cursor(base);
  QueryContext& ctx = *c->table->ctx;
  c->scans.reset();
  c->rows.clear();
  c->row = 0;
  c->rowid = 0;
  int a = 0;
  std::optional<std::string> snapshot;
  EntryReaderOptions o = entry_reader_options(ctx);
  for (int bit : {kSnapshotBit, kSubtaskBit, kKeyGroupBit}) {
    if (!(mask & bit)) continue;
    sqlite3_value* v = argv[a++];
    if (sqlite3_value_type(v) == SQLITE_NULL) return SQLITE_OK;  // `= NULL` is never true
    if (bit == kSnapshotBit) {
      if (sqlite3_value_type(v) != SQLITE_TEXT) return SQLITE_OK;  // every snapshot cell is text
      snapshot = std::string(reinterpret_cast<const char*>(sqlite3_value_text(v)), sqlite3_value_bytes(v));
    } else if (sqlite3_value_numeric_type(v) == SQLITE_INTEGER) {
      int64_t n = sqlite3_value_int64(v);
      if (n < 0 || n > INT32_MAX) return SQLITE_OK;
      if (bit == kSubtaskBit) o.subtask = static_cast<int32_t>(n);
      if (bit == kKeyGroupBit) o.key_groups = std::make_pair(static_cast<int32_t>(n), static_cast<int32_t>(n));
    }
  }
  if (mask & kKeyBit) {
    std::optional<KeyColumnValues> given = key_column_values(c->table->def, mask, argv + a);
    if (!given) {
      // Narrows nothing: SQLite compares every row.
    } else if (std::any_of(given->begin(), given->end(), [](const auto& v) { return v.empty(); })) {
      return SQLITE_OK;  // a column equal to nothing (NULL, or a list of NULLs): no row
    } else if (std::optional<std::vector<Value>> keys = lookup_keys(c->table->def, *given)) {
      o.keys = std::move(*keys);
    }
  }
  std::vector<EntryScans::Scan> scans;
  const std::vector<StatePart>& parts = c->table->def.parts;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (snapshot && *snapshot != ctx.snapshots[parts[i].snapshot].path) continue;
    EntryScans::Scan scan{parts[i].snapshot, o, i};
    scan.options.operator_filter = parts[i].operator_id;
    scan.options.state = parts[i].state;
    scans.push_back(std::move(scan));
  }
  c->scans.reset(std::move(scans));
  return state_advance(c);
}

int state_next(sqlite3_vtab_cursor* base) {
  StateCursor* c = state_cursor(base);
  ++c->rowid;
  if (++c->row < c->rows.size()) return SQLITE_OK;
  c->scans.next();
  return state_advance(c);
}

int state_eof(sqlite3_vtab_cursor* base) {
  StateCursor* c = state_cursor(base);
  return c->row >= c->rows.size();
}

int state_column(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int column) {
  StateCursor* c = state_cursor(base);
  const std::vector<QueryCell>& r = c->rows[c->row];
  if (column < 0 || static_cast<size_t>(column) >= r.size())
    sqlite3_result_null(ctx);
  else
    result_cell(ctx, r[static_cast<size_t>(column)]);
  return SQLITE_OK;
}

int state_rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  *rowid = state_cursor(base)->rowid;
  return SQLITE_OK;
}

constexpr const char* kStateModule = "ckpt_state";

const char* column_field_name(EntryField f) {
  switch (f) {
    case EntryField::kKey: return "key";
    case EntryField::kNamespace: return "namespace";
    case EntryField::kUserKey: return "user_key";
    case EntryField::kValue: return "value";
    case EntryField::kListIndex: return "list_index";
  }
  return "";
}

// As `json_extract` takes it, so that `entries` can be taken apart the same way.
std::string column_json_path(const std::vector<PathStep>& path) {
  std::string out = "$";
  for (const PathStep& step : path) {
    if (step.member.empty()) {
      out += "[" + std::to_string(step.index) + "]";
    } else if (std::all_of(step.member.begin(), step.member.end(),
                           [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; })) {
      out += "." + step.member;
    } else {
      out += ".\"";
      for (char c : step.member) out += c == '"' ? std::string("\\\"") : std::string(1, c);
      out += "\"";
    }
  }
  return out;
}

}  // namespace

Status register_state_tables(sqlite3* db, QueryContext* ctx) {
  static const sqlite3_module module = [] {
    sqlite3_module m = eponymous_module(state_connect, state_best_index, state_disconnect, state_open, state_close,
                                        state_filter, state_next, state_eof, state_column, state_rowid);
    m.xCreate = state_create;  // declared by name (CREATE VIRTUAL TABLE)
    return m;
  }();
  if (sqlite3_create_module_v2(db, kStateModule, &module, ctx, nullptr) != SQLITE_OK)
    return Error(ErrorCode::kInvalidArgument, std::string("cannot register the state tables: ") + sqlite3_errmsg(db));
  return Status::OK();
}

Result<bool> declare_state_table(sqlite3* db, QueryContext* ctx, const std::string& name) {
  CKPT_ASSIGN_OR_RETURN(std::optional<StateTableDef> def, resolve_state_table(*ctx, name));
  if (!def) return false;
  declaring_state_table = &*def;
  const std::string sql = fmt::format("CREATE VIRTUAL TABLE temp.{} USING {}", quoted_sql_name(name), kStateModule);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  declaring_state_table = nullptr;
  if (rc != SQLITE_OK) {
    Error e(ErrorCode::kInvalidArgument, fmt::format("cannot declare the table {}: {}", name, err ? err : "?"));
    sqlite3_free(err);
    return e;
  }
  return true;
}

Status state_column_rows(QueryContext& ctx, size_t i, std::vector<std::vector<QueryCell>>& out) {
  const ListedSnapshot& s = ctx.snapshots[i];
  if (!s.complete || !s.problem.empty()) return Status::OK();
  Result<const Metadata*> m = ctx.metadata(i);
  if (!m.ok()) return m.error();
  for (const OperatorState& op : (*m)->operators) {
    const std::string label = state_table_labels(ctx, op).front();
    const OperatorName* op_name = ctx.options.names.find(op.id);
    const std::vector<std::string>* key_names =
        op_name && !op_name->key_columns.empty() ? &op_name->key_columns : nullptr;
    // Each state as the first proxy that names it describes it, as its table takes it.
    std::map<std::string, StateLayout> layouts;
    CKPT_RETURN_IF_ERROR(visit_operator_states(s.path, ctx.options.remap, op,
                                               [&](const StateMetaInfo& info, const SerializerSnapshot* key) {
                                                 if (!layouts.count(info.name))
                                                   layouts.emplace(info.name, state_layout(info, key, key_names));
                                                 return false;
                                               }));
    for (const auto& [state, layout] : layouts)
      for (const StateColumn& col : layout.columns)
        out.push_back({text_cell(s.path), text_cell(label + "." + state), text_cell(operator_id_hex(op.id)),
                       text_cell(state), text_cell(state_kind_name(layout.kind)), text_cell(col.name),
                       text_cell(column_field_name(col.field)),
                       col.field == EntryField::kListIndex ? null_cell() : text_cell(column_json_path(col.path)),
                       text_cell(col.type)});
  }
  return Status::OK();
}

}  // namespace ckpt::query_detail
