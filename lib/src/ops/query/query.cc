// run_query (ckpt/query.h): the snapshots found under the paths, an in-memory SQLite database
// with the virtual tables over them, and each statement's rows handed to the sink.
#include <set>

#include <fmt/format.h>

#include "ckpt/query.h"
#include "ops/query/query_tables.h"

namespace ckpt {
namespace query_detail {

const Result<std::shared_ptr<OpenedSnapshot>>& QueryContext::opened(size_t i) {
  if (!opened_[i])
    opened_[i] = std::make_unique<Result<std::shared_ptr<OpenedSnapshot>>>(
        OpenedSnapshot::open(snapshots[i].path, options.remap));
  return *opened_[i];
}

Result<const Metadata*> QueryContext::metadata(size_t i) {
  const Result<std::shared_ptr<OpenedSnapshot>>& o = opened(i);
  if (!o.ok()) return o.error();
  return &(*o)->metadata();
}

const Result<InspectReport>& QueryContext::report(size_t i) {
  if (!reports_[i]) {
    InspectOptions o;
    o.remap = options.remap;
    o.names = options.names;
    o.states = true;
    reports_[i] = std::make_unique<Result<InspectReport>>(inspect_snapshot(snapshots[i].path, o));
  }
  return *reports_[i];
}

int QueryContext::fail(sqlite3_vtab* table, Error e) {
  sqlite3_free(table->zErrMsg);
  table->zErrMsg = sqlite3_mprintf("%s", e.to_string().c_str());
  failure = std::move(e);
  return SQLITE_ERROR;
}

void result_cell(sqlite3_context* ctx, const QueryCell& cell) {
  switch (cell.type) {
    case QueryCell::Type::kNull: sqlite3_result_null(ctx); return;
    case QueryCell::Type::kInteger: sqlite3_result_int64(ctx, cell.integer); return;
    case QueryCell::Type::kReal: sqlite3_result_double(ctx, cell.real); return;
    case QueryCell::Type::kText:
      sqlite3_result_text64(ctx, cell.text.data(), cell.text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
      return;
    case QueryCell::Type::kBlob:
      sqlite3_result_blob64(ctx, cell.text.data(), cell.text.size(), SQLITE_TRANSIENT);
      return;
  }
}

QueryCell text_cell(std::string s) {
  QueryCell c;
  c.type = QueryCell::Type::kText;
  c.text = std::move(s);
  return c;
}

QueryCell integer_cell(int64_t i) {
  QueryCell c;
  c.type = QueryCell::Type::kInteger;
  c.integer = i;
  return c;
}

QueryCell null_cell() { return QueryCell(); }

sqlite3_module eponymous_module(int (*connect)(sqlite3*, void*, int, const char* const*, sqlite3_vtab**, char**),
                                int (*best_index)(sqlite3_vtab*, sqlite3_index_info*), int (*disconnect)(sqlite3_vtab*),
                                int (*open)(sqlite3_vtab*, Cursor**), int (*close)(Cursor*),
                                int (*filter)(Cursor*, int, const char*, int, sqlite3_value**), int (*next)(Cursor*),
                                int (*eof)(Cursor*), int (*column)(Cursor*, sqlite3_context*, int),
                                int (*rowid)(Cursor*, sqlite3_int64*)) {
  sqlite3_module m{};
  m.xConnect = connect;
  m.xBestIndex = best_index;
  m.xDisconnect = disconnect;
  m.xDestroy = disconnect;
  m.xOpen = open;
  m.xClose = close;
  m.xFilter = filter;
  m.xNext = next;
  m.xEof = eof;
  m.xColumn = column;
  m.xRowid = rowid;
  return m;
}

namespace {

// The inputs are read-only and a query writes nothing: no other database is attached (which
// would create or change a file).
int deny_attach(void*, int action, const char*, const char*, const char*, const char*) {
  return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

}  // namespace

Result<std::vector<ListedSnapshot>> list_paths(const std::vector<std::string>& paths, const QueryOptions& options) {
  std::vector<ListedSnapshot> out;
  ListOptions lo;
  lo.remap = options.remap;
  for (const std::string& path : paths) {
    CKPT_ASSIGN_OR_RETURN(std::vector<ListedSnapshot> found, list_snapshots(path, lo));
    for (ListedSnapshot& s : found) out.push_back(std::move(s));
  }
  return out;
}

Result<Database> open_database(QueryContext* ctx) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  Database db(raw);
  if (rc != SQLITE_OK) return Error(ErrorCode::kIOError, fmt::format("cannot open SQLite: {}", sqlite3_errstr(rc)));
  sqlite3_set_authorizer(db.get(), deny_attach, nullptr);
  CKPT_RETURN_IF_ERROR(register_entries_table(db.get(), ctx));
  CKPT_RETURN_IF_ERROR(register_info_tables(db.get(), ctx));
  CKPT_RETURN_IF_ERROR(register_state_tables(db.get(), ctx));
  return db;
}

Error sql_error(sqlite3* db, std::string_view statement) {
  std::string text(statement.substr(0, statement.find_first_of('\0')));
  if (text.size() > 200) text = text.substr(0, 197) + "...";
  return Error(ErrorCode::kInvalidArgument, fmt::format("SQL: {}", sqlite3_errmsg(db)))
      .with_context(fmt::format("in '{}'", text));
}

// After a statement failed to prepare: declares the state table whose absence it names, once
// (a name still missing after that is not the table's: `op.state` unquoted names a schema).
Result<bool> declare_missing_table(sqlite3* db, QueryContext* ctx, std::set<std::string>& declared) {
  constexpr std::string_view kNoSuchTable = "no such table: ";
  std::string_view message = sqlite3_errmsg(db);
  if (message.substr(0, kNoSuchTable.size()) != kNoSuchTable) return false;
  std::string name(message.substr(kNoSuchTable.size()));
  if (!declared.insert(name).second) return false;
  return query_detail::declare_state_table(db, ctx, name);
}

QueryCell cell_of(sqlite3_stmt* s, int i) {
  QueryCell c;
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_INTEGER:
      c.type = QueryCell::Type::kInteger;
      c.integer = sqlite3_column_int64(s, i);
      break;
    case SQLITE_FLOAT:
      c.type = QueryCell::Type::kReal;
      c.real = sqlite3_column_double(s, i);
      break;
    case SQLITE_TEXT:
      c.type = QueryCell::Type::kText;
      c.text.assign(reinterpret_cast<const char*>(sqlite3_column_text(s, i)), sqlite3_column_bytes(s, i));
      break;
    case SQLITE_BLOB:
      c.type = QueryCell::Type::kBlob;
      if (const void* b = sqlite3_column_blob(s, i))
        c.text.assign(static_cast<const char*>(b), sqlite3_column_bytes(s, i));
      break;
    default: break;
  }
  return c;
}

}  // namespace query_detail

Result<QuerySummary> run_query(const std::vector<std::string>& paths, const std::string& sql,
                               const QueryOptions& options, QuerySink& sink) {
  using query_detail::StatementFinalizer;
  QuerySummary summary;
  CKPT_ASSIGN_OR_RETURN(summary.snapshots, query_detail::list_paths(paths, options));
  query_detail::QueryContext ctx(summary.snapshots, options);
  CKPT_ASSIGN_OR_RETURN(query_detail::Database db, query_detail::open_database(&ctx));
  int rc = SQLITE_OK;

  std::set<std::string> declared;
  const char* next = sql.c_str();
  const char* const end = sql.c_str() + sql.size();
  while (next < end) {
    const char* tail = nullptr;
    sqlite3_stmt* raw_statement = nullptr;
    rc = sqlite3_prepare_v2(db.get(), next, static_cast<int>(end - next), &raw_statement, &tail);
    std::unique_ptr<sqlite3_stmt, StatementFinalizer> statement(raw_statement);
    if (rc != SQLITE_OK) {
      // A state's table is declared when a statement first names it; then the statement is
      // prepared again.
      CKPT_ASSIGN_OR_RETURN(bool now_declared, query_detail::declare_missing_table(db.get(), &ctx, declared));
      if (now_declared) continue;
      return query_detail::sql_error(db.get(), std::string_view(next, end - next));
    }
    const std::string_view text(next, (tail ? tail : end) - next);
    next = tail ? tail : end;
    if (!statement) continue;  // only white space or a comment
    const int n = sqlite3_column_count(statement.get());
    if (n > 0) {
      std::vector<std::string> names;
      for (int i = 0; i < n; ++i) names.emplace_back(sqlite3_column_name(statement.get(), i));
      sink.columns(names);
    }
    std::vector<QueryCell> row(static_cast<size_t>(n));
    while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
      for (int i = 0; i < n; ++i) row[static_cast<size_t>(i)] = query_detail::cell_of(statement.get(), i);
      sink.row(row);
      ++summary.rows;
    }
    if (rc != SQLITE_DONE) {
      if (ctx.failure) return std::move(*ctx.failure);
      return query_detail::sql_error(db.get(), text);
    }
  }
  summary.problems = std::move(ctx.problems);
  return summary;
}

}  // namespace ckpt
