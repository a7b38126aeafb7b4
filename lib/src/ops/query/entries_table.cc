// The `entries` virtual table (ckpt/query.h): one row per entry, as `ckpt dump` prints it,
// streamed from EntryReader; equality constraints become the reader's selection.
#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "ckpt/entries.h"
#include "ops/engine/key_names.h"
#include "ops/query/entry_scans.h"
#include "ops/query/query_tables.h"

namespace ckpt::query_detail {
namespace {

enum EntryColumn {
  kSnapshotColumn,
  kOperatorColumn,
  kUidColumn,
  kSubtaskColumn,
  kStateColumn,
  kKindColumn,
  kKeyGroupColumn,
  kKeyColumn,
  kNamespaceColumn,
  kUserKeyColumn,
  kValueColumn,
  kEntryBytesColumn,
};

constexpr const char* kEntriesSchema =
    "CREATE TABLE x(snapshot TEXT, operator TEXT, uid TEXT, subtask INTEGER, state TEXT, kind TEXT, "
    "key_group INTEGER, key TEXT, namespace TEXT, user_key TEXT, value TEXT, entry_bytes INTEGER)";

// The columns whose equality the reader takes, in the order xFilter receives their values (bit
// i of idxNum: kPushed[i] has one).
constexpr int kPushed[] = {kSnapshotColumn, kOperatorColumn, kSubtaskColumn, kStateColumn, kKeyGroupColumn, kKeyColumn};
constexpr size_t kPushedCount = std::size(kPushed);
// idxNum's bits from here on: the decoded columns the query reads (colUsed's bits from
// kKeyColumn to kEntryBytesColumn), so that the reader decodes no others (count(*): none).
constexpr int kUsedShift = 16;
// idxNum's bit: the key's constraint is `key IN (...)`, its values all handed to one xFilter
// (sqlite3_vtab_in) and looked up in one scan, rather than one scan per value.
constexpr int kKeyListBit = 1 << 14;
constexpr int kDecodedColumns = kEntryBytesColumn - kKeyColumn + 1;

struct EntriesTable {
  sqlite3_vtab base{};
  QueryContext* ctx = nullptr;
};

struct OperatorLabel {
  std::string uid;
  const std::vector<std::string>* key_columns = nullptr;  // the plan's names of the key row's fields
};

struct EntriesCursor {
  explicit EntriesCursor(QueryContext* c) : ctx(c), scans(*c) {}
  sqlite3_vtab_cursor base{};
  QueryContext* ctx = nullptr;
  EntryScans scans;
  std::vector<EntryScans::Scan> planned;        // filled by plan_scans(), then handed to `scans`
  std::map<std::string, OperatorLabel> labels;  // the open reader's operators, by id
  const OperatorLabel* label = nullptr;         // the current entry's operator
  sqlite3_int64 rowid = 0;
};

EntriesCursor* cursor_of(sqlite3_vtab_cursor* c) { return reinterpret_cast<EntriesCursor*>(c); }

int entries_connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  int rc = sqlite3_declare_vtab(db, kEntriesSchema);
  if (rc != SQLITE_OK) return rc;
  auto* t = new EntriesTable;
  t->ctx = static_cast<QueryContext*>(aux);
  *out = &t->base;
  return SQLITE_OK;
}

int entries_disconnect(sqlite3_vtab* t) {
  delete reinterpret_cast<EntriesTable*>(t);
  return SQLITE_OK;
}

// The constraints are only narrowed to, never trusted (omit stays 0): SQLite checks every row
// it gets, so a selection need only hold every row that can match.
int entries_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  int chosen[kPushedCount];
  std::fill(std::begin(chosen), std::end(chosen), -1);
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    for (size_t p = 0; p < kPushedCount; ++p)
      if (kPushed[p] == c.iColumn && chosen[p] < 0) chosen[p] = i;
  }
  int mask = 0, argv = 0;
  double rows = 1e9;
  for (size_t p = 0; p < kPushedCount; ++p) {
    if (chosen[p] < 0) continue;
    info->aConstraintUsage[chosen[p]].argvIndex = ++argv;
    mask |= 1 << p;
    if (kPushed[p] == kKeyColumn && sqlite3_vtab_in(info, chosen[p], 1)) mask |= kKeyListBit;
    // A key reads one key group; a key group a sliver; the others a share of the state.
    switch (kPushed[p]) {
      case kKeyColumn: rows /= 1e6; break;
      case kKeyGroupColumn: rows /= 1e3; break;
      case kSnapshotColumn: rows /= 4; break;
      default: rows /= 8; break;
    }
  }
  const auto used = static_cast<int>((info->colUsed >> kKeyColumn) & ((1u << kDecodedColumns) - 1));
  info->idxNum = mask | used << kUsedShift;
  info->estimatedCost = rows;
  info->estimatedRows = static_cast<sqlite3_int64>(std::max(rows, 1.0));
  return SQLITE_OK;
}

int entries_open(sqlite3_vtab* t, sqlite3_vtab_cursor** out) {
  auto* c = new EntriesCursor(reinterpret_cast<EntriesTable*>(t)->ctx);
  *out = &c->base;
  return SQLITE_OK;
}

int entries_close(sqlite3_vtab_cursor* base) {
  delete cursor_of(base);
  return SQLITE_OK;
}

// Until the cursor is on an entry or past the last scan.
int advance(EntriesCursor* c) {
  int rc = c->scans.advance(c->base.pVtab, [c](const EntryReader& reader) {
    c->labels.clear();
    for (const OperatorState& op : reader.metadata().operators) {
      OperatorLabel& l = c->labels[operator_id_hex(op.id)];
      l.uid = c->ctx->options.names.uid_of(op);
      const OperatorName* name = c->ctx->options.names.find(op.id);
      if (name && !name->key_columns.empty()) l.key_columns = &name->key_columns;
    }
  });
  c->label = nullptr;
  if (rc != SQLITE_OK || !c->scans.on_entry()) return rc;
  auto l = c->labels.find(c->scans.entry().operator_id);
  c->label = l == c->labels.end() ? nullptr : &l->second;
  return SQLITE_OK;
}

// A constraint's value as the text it compares equal to, or nullopt when it cannot be pushed.
std::optional<std::string> text_of(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_TEXT: return std::string(reinterpret_cast<const char*>(sqlite3_value_text(v)), sqlite3_value_bytes(v));
    case SQLITE_INTEGER: return std::to_string(sqlite3_value_int64(v));
    default: return std::nullopt;
  }
}

// A constraint's value as an integer column compares it (numeric affinity), or nullopt.
std::optional<int64_t> integer_of(sqlite3_value* v) {
  if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER) return std::nullopt;
  return sqlite3_value_int64(v);
}

bool is_operator_hex(const std::string& s) {
  return s.size() == 32 &&
         std::all_of(s.begin(), s.end(), [](char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'); });
}

// What the pushed constraints ask for; `none` when no row can match them.
struct Pushed {
  bool none = false;
  EntryFields decode;
  bool entry_bytes = true;
  std::optional<std::string> snapshot, op, state;
  std::optional<std::vector<std::string>> keys;  // each JSON text, given once
  std::optional<int64_t> subtask, key_group;
};

Pushed pushed_of(int mask, sqlite3_value** argv) {
  Pushed p;
  auto used = [mask](int column) { return (mask >> (kUsedShift + column - kKeyColumn)) & 1; };
  p.decode.key = used(kKeyColumn);
  p.decode.ns = used(kNamespaceColumn);
  p.decode.user_key = used(kUserKeyColumn);
  p.decode.value = used(kValueColumn);
  p.entry_bytes = used(kEntryBytesColumn);
  int a = 0;
  for (size_t i = 0; i < kPushedCount; ++i) {
    if (!(mask & (1 << i))) continue;
    sqlite3_value* v = argv[a++];
    const bool list = kPushed[i] == kKeyColumn && (mask & kKeyListBit);  // a handle, not a value
    if (!list && sqlite3_value_type(v) == SQLITE_NULL) {  // `= NULL` is never true
      p.none = true;
      continue;
    }
    switch (kPushed[i]) {
      case kSnapshotColumn: p.snapshot = text_of(v); break;
      case kOperatorColumn:
        p.op = text_of(v);
        if (p.op && !is_operator_hex(*p.op)) p.none = true;
        break;
      case kStateColumn: p.state = text_of(v); break;
      case kKeyColumn: {
        // Every key cell is JSON text: anything else equals none of them.
        std::vector<std::string> keys;
        std::unordered_set<std::string> seen;
        auto take = [&](sqlite3_value* k) {
          std::optional<std::string> text = text_of(k);
          if (!text) return false;  // compared by SQLite, row by row
          if (nlohmann::json::accept(*text) && seen.insert(*text).second) keys.push_back(std::move(*text));
          return true;
        };
        bool pushed = true;
        if (mask & kKeyListBit) {
          sqlite3_value* k = nullptr;
          int rc = sqlite3_vtab_in_first(v, &k);
          for (; pushed && rc == SQLITE_OK && k; rc = sqlite3_vtab_in_next(v, &k))
            if (sqlite3_value_type(k) != SQLITE_NULL) pushed = take(k);
          // A list not read to its end (out of memory) narrows nothing: a missing key would be rows lost.
          if (pushed && rc != SQLITE_OK && rc != SQLITE_DONE) pushed = false;
        } else {
          pushed = take(v);
        }
        if (!pushed) break;
        if (keys.empty()) p.none = true;
        p.keys = std::move(keys);
        break;
      }
      case kSubtaskColumn:
        p.subtask = integer_of(v);
        if (p.subtask && (*p.subtask < 0 || *p.subtask > INT32_MAX)) p.none = true;
        break;
      case kKeyGroupColumn:
        p.key_group = integer_of(v);
        if (p.key_group && (*p.key_group < 0 || *p.key_group > INT32_MAX)) p.none = true;
        break;
    }
  }
  return p;
}

bool has_broadcast_state(const Metadata& m, const std::optional<std::string>& op) {
  for (const OperatorState& o : m.operators) {
    if (op && operator_id_hex(o.id) != *op) continue;
    for (const SubtaskState& st : o.subtasks)
      for (const OperatorHandle& h : st.managed_operator)
        for (const OperatorStateEntry& e : h.states)
          if (e.mode == DistributionMode::kBroadcast) return true;
  }
  return false;
}

// The reads of snapshot i that hold every row the constraints can match; false on an error
// (recorded in the context).
bool plan_scans(EntriesCursor* c, size_t i, const Pushed& p) {
  QueryContext& ctx = *c->ctx;
  const ListedSnapshot& s = ctx.snapshots[i];
  if (!s.complete || (p.snapshot && *p.snapshot != s.path)) return true;
  EntryReaderOptions o = entry_reader_options(ctx);
  o.decode = p.decode;
  // entry_bytes counts raw bytes, which every layout that steps over fields keeps.
  o.raw_bytes = p.entry_bytes;
  if (p.state) o.state = *p.state;
  if (p.subtask) o.subtask = static_cast<int32_t>(*p.subtask);
  if (p.key_group)
    o.key_groups = std::make_pair(static_cast<int32_t>(*p.key_group), static_cast<int32_t>(*p.key_group));
  const Metadata* m = nullptr;
  if (p.op || p.keys) {
    Result<const Metadata*> r = ctx.metadata(i);
    if (!r.ok()) {
      ctx.fail(c->base.pVtab, r.error());
      return false;
    }
    m = *r;
  }
  if (p.op) {
    bool present = std::any_of(m->operators.begin(), m->operators.end(),
                               [&](const OperatorState& op) { return operator_id_hex(op.id) == *p.op; });
    if (!present) return true;
    o.operator_filter = *p.op;
  }
  if (p.keys) {
    // A lookup reads keyed state and timers only; broadcast entries have keys too (and no key
    // group, so a key-group constraint leaves them out anyway).
    if (!p.key_group && has_broadcast_state(*m, p.op)) {
      EntryReaderOptions broadcast = o;
      broadcast.operator_state_only = true;
      c->planned.push_back({i, std::move(broadcast)});
    }
    // Valid JSON (checked as the constraint was taken), so parsed here.
    std::unordered_set<std::string> added;
    auto add = [&](const std::string& json) {
      Result<Value> key = parse_value(json);
      if (key.ok() && added.insert(key->json()).second) o.keys.push_back(std::move(*key));
    };
    for (const std::string& key : *p.keys) {
      add(key);
      // A SQL key shows its fields named after the plan's columns; the reader looks up the row.
      for (const OperatorState& op : m->operators) {
        const OperatorName* name = ctx.options.names.find(op.id);
        if (!name || name->key_columns.empty()) continue;
        if (std::optional<std::string> row = unname_row_fields(key, name->key_columns)) add(*row);
      }
    }
  }
  c->planned.push_back({i, std::move(o)});
  return true;
}

int entries_filter(sqlite3_vtab_cursor* base, int mask, const char*, int, sqlite3_value** argv) {
  EntriesCursor* c = cursor_of(base);
  c->scans.reset();
  c->planned.clear();
  c->rowid = 0;
  Pushed p = pushed_of(mask, argv);
  if (p.none) return SQLITE_OK;
  for (size_t i = 0; i < c->ctx->snapshots.size(); ++i)
    if (!plan_scans(c, i, p)) return SQLITE_ERROR;
  c->scans.reset(std::move(c->planned));
  c->planned.clear();
  return advance(c);
}

int entries_next(sqlite3_vtab_cursor* base) {
  EntriesCursor* c = cursor_of(base);
  c->scans.next();
  ++c->rowid;
  return advance(c);
}

int entries_eof(sqlite3_vtab_cursor* base) { return !cursor_of(base)->scans.on_entry(); }

void result_text(sqlite3_context* ctx, const std::string& s) {
  sqlite3_result_text64(ctx, s.data(), s.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

void result_json(sqlite3_context* ctx, const std::optional<Value>& v) {
  if (!v)
    sqlite3_result_null(ctx);
  else
    result_text(ctx, v->json());
}

int entries_column(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int column) {
  EntriesCursor* c = cursor_of(base);
  const Entry& e = c->scans.entry();
  switch (column) {
    case kSnapshotColumn: result_text(ctx, c->ctx->snapshots[c->scans.scan().snapshot].path); break;
    case kOperatorColumn: result_text(ctx, e.operator_id); break;
    case kUidColumn:
      if (c->label && !c->label->uid.empty())
        result_text(ctx, c->label->uid);
      else
        sqlite3_result_null(ctx);
      break;
    case kSubtaskColumn: sqlite3_result_int64(ctx, e.subtask); break;
    case kStateColumn: result_text(ctx, e.state); break;
    case kKindColumn: sqlite3_result_text(ctx, entry_kind_name(e.kind), -1, SQLITE_STATIC); break;
    case kKeyGroupColumn:
      if (e.key_group)
        sqlite3_result_int64(ctx, *e.key_group);
      else
        sqlite3_result_null(ctx);
      break;
    case kKeyColumn:
      if (e.key && c->label && c->label->key_columns)
        result_text(ctx, name_row_fields(e.key->json(), *c->label->key_columns));
      else
        result_json(ctx, e.key);
      break;
    case kNamespaceColumn: result_json(ctx, e.ns); break;
    case kUserKeyColumn: result_json(ctx, e.user_key); break;
    case kValueColumn: result_text(ctx, e.value.json()); break;
    case kEntryBytesColumn: sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(entry_bytes(e))); break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

int entries_rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  *rowid = cursor_of(base)->rowid;
  return SQLITE_OK;
}

}  // namespace

Status register_entries_table(sqlite3* db, QueryContext* ctx) {
  static const sqlite3_module module =
      eponymous_module(entries_connect, entries_best_index, entries_disconnect, entries_open, entries_close,
                       entries_filter, entries_next, entries_eof, entries_column, entries_rowid);
  if (sqlite3_create_module_v2(db, "entries", &module, ctx, nullptr) != SQLITE_OK)
    return Error(ErrorCode::kInvalidArgument, std::string("cannot register the entries table: ") + sqlite3_errmsg(db));
  return Status::OK();
}

}  // namespace ckpt::query_detail
