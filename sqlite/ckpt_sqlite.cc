// libckpt_sqlite.so: the tables of `ckpt query` in any SQLite client (sqlite3's `.load`,
// Python's load_extension). Each table of a query session (ckpt/query_session.h) is a
// table-valued function `ckpt_<table>(PATH)`, and the module `ckpt` makes any of them, the
// per-state tables included, a virtual table over fixed paths:
//   CREATE VIRTUAL TABLE t USING ckpt('/flink/chk-42', table='entries')
//
// Two SQLite libraries may meet here: the client's (this file's calls all go through the
// routines SQLite hands the extension, sqlite3ext.h) and the one libckpt links. They never
// share an object: the session's database is libckpt's own, and rows cross as QueryCell values.
#include <sqlite3ext.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ckpt/query_session.h"

SQLITE_EXTENSION_INIT1

namespace {

using ckpt::QueryCell;
using ckpt::QueryRows;
using ckpt::QuerySession;

struct TableDef {
  std::string table;               // the session's table
  bool function = true;            // ckpt_<table>(PATH): the paths are the hidden column `source`
  std::vector<std::string> paths;  // CREATE VIRTUAL TABLE ... USING ckpt(PATH...)
  ckpt::QueryOptions options;      // and its plan=, uids=, uid= and jobs= arguments
};

struct ExtTable {
  sqlite3_vtab base{};
  TableDef def;
  std::vector<std::string> columns;  // the visible ones; `source` follows for a function
};

struct ExtCursor {
  sqlite3_vtab_cursor base{};
  ExtTable* table = nullptr;
  // The session of the paths last filtered on: a join or an IN list filters again and again.
  std::vector<std::string> session_paths;
  std::unique_ptr<QuerySession> session;
  std::unique_ptr<QueryRows> rows;  // before `session`, which it reads from
  bool eof = true;
  std::string source;
  sqlite3_int64 rowid = 0;
  ~ExtCursor() { rows.reset(); }
};

int set_error(sqlite3_vtab* t, const std::string& message) {
  sqlite3_free(t->zErrMsg);
  t->zErrMsg = sqlite3_mprintf("%s", message.c_str());
  return SQLITE_ERROR;
}

// The columns and their declared types of `table`, from a session over no snapshot.
ckpt::Result<std::string> schema_of(const TableDef& def, std::vector<std::string>& columns) {
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<QuerySession> session, QuerySession::open({}, {}));
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<QueryRows> rows,
                        session->prepare("SELECT * FROM " + ckpt::sql_identifier(def.table)));
  std::string schema = "CREATE TABLE x(";
  for (size_t i = 0; i < rows->columns().size(); ++i) {
    columns.push_back(rows->columns()[i]);
    schema += (i ? ", " : "") + ckpt::sql_identifier(rows->columns()[i]) + " " + rows->declared_types()[i];
  }
  if (def.function) schema += ", source HIDDEN";
  return schema + ")";
}

// A module argument as written: 'text' (quotes doubled inside) or a bare word.
std::string unquoted(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) {
    const char q = s.front();
    std::string out;
    for (size_t i = 1; i + 1 < s.size(); ++i) {
      out += s[i];
      if (s[i] == q && i + 2 < s.size() && s[i + 1] == q) ++i;
    }
    return out;
  }
  return s;
}

int ext_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out, char** err) {
  TableDef def;
  if (aux) {
    def = *static_cast<const TableDef*>(aux);
  } else {
    // USING ckpt(PATH..., table=NAME, plan=FILE, uids=FILE, uid=NAME..., jobs=N), as ckpt
    // query's flags: argv[0..2] are the module, database and table names.
    def.function = false;
    def.table = "entries";
    for (int i = 3; i < argc; ++i) {
      const std::string a = argv[i];
      const size_t eq = a.find('=');
      const std::string key = eq == std::string::npos ? "" : unquoted(a.substr(0, eq));
      const std::string value = eq == std::string::npos ? "" : unquoted(a.substr(eq + 1));
      ckpt::Status named = ckpt::Status::OK();
      if (key == "table") {
        def.table = value;
      } else if (key == "plan") {
        named = def.options.names.add_plan_file(value);
      } else if (key == "uids") {
        named = def.options.names.add_uids_file(value);
      } else if (key == "uid") {
        def.options.names.add_uid(value);
      } else if (key == "jobs") {
        def.options.jobs = std::max(1, std::atoi(value.c_str()));
      } else {
        def.paths.push_back(unquoted(a));
      }
      if (!named.ok()) {
        *err = sqlite3_mprintf("ckpt: %s", named.error().to_string().c_str());
        return SQLITE_ERROR;
      }
    }
    if (def.paths.empty()) {
      *err = sqlite3_mprintf("ckpt: no PATH given: USING ckpt('/path/to/chk-42', table='entries')");
      return SQLITE_ERROR;
    }
  }
  auto t = std::make_unique<ExtTable>();
  t->def = std::move(def);
  ckpt::Result<std::string> schema = schema_of(t->def, t->columns);
  if (!schema.ok()) {
    *err = sqlite3_mprintf("ckpt: %s", schema.error().to_string().c_str());
    return SQLITE_ERROR;
  }
  const int rc = sqlite3_declare_vtab(db, schema->c_str());
  if (rc != SQLITE_OK) return rc;
  *out = &t.release()->base;
  return SQLITE_OK;
}

int ext_disconnect(sqlite3_vtab* t) {
  delete reinterpret_cast<ExtTable*>(t);
  return SQLITE_OK;
}

// idxStr lists, in argument order, the columns whose equality the session's statement repeats
// (its own tables push them into the reader; -1 is the hidden `source`). SQLite still checks
// every row, so nothing but `source` is omitted.
int ext_best_index(sqlite3_vtab* base, sqlite3_index_info* info) {
  const ExtTable* t = reinterpret_cast<const ExtTable*>(base);
  const int hidden = static_cast<int>(t->columns.size());
  int argv = 0;
  std::string pushed;
  if (t->def.function) {
    for (int i = 0; i < info->nConstraint && argv == 0; ++i) {
      const auto& c = info->aConstraint[i];
      if (c.iColumn != hidden || !c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
      info->aConstraintUsage[i].argvIndex = ++argv;
      info->aConstraintUsage[i].omit = 1;
      pushed = "-1";
    }
  }
  // Without its PATH, ckpt_entries() is planned at a cost no other plan exceeds, and fails in
  // xFilter naming what is missing (SQLITE_CONSTRAINT would say only "no query solution").
  double cost = t->def.function && argv == 0 ? 1e300 : 1e6;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ || c.iColumn < 0 || c.iColumn >= hidden) continue;
    info->aConstraintUsage[i].argvIndex = ++argv;
    pushed += (pushed.empty() ? "" : ",") + std::to_string(c.iColumn);
    cost /= 10;
  }
  info->idxStr = sqlite3_mprintf("%s", pushed.c_str());
  info->needToFreeIdxStr = 1;
  info->estimatedCost = cost;
  info->estimatedRows = static_cast<sqlite3_int64>(std::min(cost, 1e18));  // 1e300 is no int64
  return SQLITE_OK;
}

int ext_open(sqlite3_vtab* t, sqlite3_vtab_cursor** out) {
  auto* c = new ExtCursor;
  c->table = reinterpret_cast<ExtTable*>(t);
  *out = &c->base;
  return SQLITE_OK;
}

int ext_close(sqlite3_vtab_cursor* c) {
  delete reinterpret_cast<ExtCursor*>(c);
  return SQLITE_OK;
}

QueryCell cell_of_value(sqlite3_value* v) {
  QueryCell c;
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
      c.type = QueryCell::Type::kInteger;
      c.integer = sqlite3_value_int64(v);
      break;
    case SQLITE_FLOAT:
      c.type = QueryCell::Type::kReal;
      c.real = sqlite3_value_double(v);
      break;
    case SQLITE_TEXT:
      c.type = QueryCell::Type::kText;
      c.text.assign(reinterpret_cast<const char*>(sqlite3_value_text(v)), sqlite3_value_bytes(v));
      break;
    case SQLITE_BLOB:
      c.type = QueryCell::Type::kBlob;
      if (const void* b = sqlite3_value_blob(v)) c.text.assign(static_cast<const char*>(b), sqlite3_value_bytes(v));
      break;
    default: break;
  }
  return c;
}

int ext_step(ExtCursor* c) {
  ckpt::Result<bool> more = c->rows->step();
  if (!more.ok()) {
    c->eof = true;
    return set_error(&c->table->base, more.error().to_string());
  }
  c->eof = !*more;
  return SQLITE_OK;
}

int ext_filter(sqlite3_vtab_cursor* base, int, const char* idx, int argc, sqlite3_value** argv) {
  ExtCursor* c = reinterpret_cast<ExtCursor*>(base);
  ExtTable* t = c->table;
  c->rows.reset();
  c->eof = true;
  c->rowid = 0;
  std::vector<int> columns;
  for (const char* p = idx ? idx : ""; *p;) {
    char* end = nullptr;
    columns.push_back(static_cast<int>(std::strtol(p, &end, 10)));
    p = *end == ',' ? end + 1 : end;
  }
  std::vector<std::string> paths = t->def.paths;
  std::string sql = "SELECT * FROM " + ckpt::sql_identifier(t->def.table);
  std::vector<QueryCell> params;
  for (int i = 0; i < argc && i < static_cast<int>(columns.size()); ++i) {
    if (columns[i] < 0) {
      if (sqlite3_value_type(argv[i]) != SQLITE_TEXT) return set_error(&t->base, "ckpt: the PATH must be text");
      c->source = reinterpret_cast<const char*>(sqlite3_value_text(argv[i]));
      paths = {c->source};
      continue;
    }
    sql += (params.empty() ? " WHERE " : " AND ") + ckpt::sql_identifier(t->columns[static_cast<size_t>(columns[i])]) +
           " = ?" + std::to_string(params.size() + 1);
    params.push_back(cell_of_value(argv[i]));
  }
  if (paths.empty())
    return set_error(&t->base, "ckpt: ckpt_" + t->def.table + "() needs a PATH: SELECT * FROM ckpt_" + t->def.table +
                                   "('/path/to/chk-42')");
  if (!c->session || paths != c->session_paths) {
    c->session.reset();
    auto session = QuerySession::open(paths, t->def.options);
    if (!session.ok()) return set_error(&t->base, session.error().to_string());
    c->session = std::move(*session);
    c->session_paths = paths;
  }
  auto rows = c->session->prepare(sql, params);
  if (!rows.ok()) return set_error(&t->base, rows.error().to_string());
  c->rows = std::move(*rows);
  return ext_step(c);
}

int ext_next(sqlite3_vtab_cursor* base) {
  ExtCursor* c = reinterpret_cast<ExtCursor*>(base);
  ++c->rowid;
  return ext_step(c);
}

int ext_eof(sqlite3_vtab_cursor* base) { return reinterpret_cast<ExtCursor*>(base)->eof; }

int ext_column(sqlite3_vtab_cursor* base, sqlite3_context* ctx, int column) {
  ExtCursor* c = reinterpret_cast<ExtCursor*>(base);
  const std::vector<QueryCell>& row = c->rows->row();
  if (column < 0 || static_cast<size_t>(column) >= row.size()) {
    sqlite3_result_text(ctx, c->source.c_str(), -1, SQLITE_TRANSIENT);
    return SQLITE_OK;
  }
  const QueryCell& cell = row[static_cast<size_t>(column)];
  switch (cell.type) {
    case QueryCell::Type::kNull: sqlite3_result_null(ctx); break;
    case QueryCell::Type::kInteger: sqlite3_result_int64(ctx, cell.integer); break;
    case QueryCell::Type::kReal: sqlite3_result_double(ctx, cell.real); break;
    case QueryCell::Type::kText:
      sqlite3_result_text64(ctx, cell.text.data(), cell.text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    case QueryCell::Type::kBlob:
      sqlite3_result_blob64(ctx, cell.text.data(), cell.text.size(), SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

int ext_rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  *rowid = reinterpret_cast<ExtCursor*>(base)->rowid;
  return SQLITE_OK;
}

sqlite3_module make_module(bool eponymous) {
  sqlite3_module m{};
  // Without xCreate a module is eponymous only (the functions); with it, CREATE VIRTUAL TABLE.
  m.xCreate = eponymous ? nullptr : ext_connect;
  m.xConnect = ext_connect;
  m.xBestIndex = ext_best_index;
  m.xDisconnect = ext_disconnect;
  m.xDestroy = ext_disconnect;
  m.xOpen = ext_open;
  m.xClose = ext_close;
  m.xFilter = ext_filter;
  m.xNext = ext_next;
  m.xEof = ext_eof;
  m.xColumn = ext_column;
  m.xRowid = ext_rowid;
  return m;
}

bool is_identifier(const std::string& s) {
  for (char ch : s)
    if (!(ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))) return false;
  return !s.empty();
}

}  // namespace

// SQLite's entry point for a file named libckpt_sqlite.so (`lib` dropped, letters kept).
extern "C" __attribute__((visibility("default"))) int sqlite3_ckptsqlite_init(sqlite3* db, char** err,
                                                                              const sqlite3_api_routines* api) {
  SQLITE_EXTENSION_INIT2(api);
  static const sqlite3_module functions = make_module(true);
  static const sqlite3_module tables = make_module(false);
  auto session = QuerySession::open({}, {});
  if (!session.ok()) {
    *err = sqlite3_mprintf("ckpt: %s", session.error().to_string().c_str());
    return SQLITE_ERROR;
  }
  // The per-state tables' names hold a dot: those are reached through the `ckpt` module.
  for (const std::string& name : (*session)->tables()) {
    if (!is_identifier(name)) continue;
    auto* def = new TableDef{name, true, {}, {}};
    const int rc = sqlite3_create_module_v2(db, ("ckpt_" + name).c_str(), &functions, def,
                                            [](void* p) { delete static_cast<TableDef*>(p); });
    if (rc != SQLITE_OK) return rc;
  }
  return sqlite3_create_module_v2(db, "ckpt", &tables, nullptr, nullptr);
}
