// QuerySession (ckpt/query_session.h): run_query's database kept open, its statements' rows
// pulled one at a time.
#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "ckpt/query_session.h"
#include "ops/query/query_tables.h"

namespace ckpt {
namespace {

using query_detail::Database;
using query_detail::QueryContext;
using query_detail::StatementFinalizer;
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

class SessionRows : public QueryRows {
 public:
  SessionRows(QueryContext* ctx, sqlite3* db, Statement statement, std::string sql)
      : ctx_(ctx), db_(db), statement_(std::move(statement)), sql_(std::move(sql)) {
    const int n = sqlite3_column_count(statement_.get());
    for (int i = 0; i < n; ++i) {
      columns_.emplace_back(sqlite3_column_name(statement_.get(), i));
      const char* type = sqlite3_column_decltype(statement_.get(), i);
      types_.emplace_back(type ? type : "");
    }
    row_.resize(static_cast<size_t>(n));
  }

  Result<bool> step() override {
    if (done_) return false;
    ctx_->failure.reset();
    const int rc = sqlite3_step(statement_.get());
    if (rc == SQLITE_ROW) {
      for (size_t i = 0; i < row_.size(); ++i) row_[i] = query_detail::cell_of(statement_.get(), static_cast<int>(i));
      return true;
    }
    done_ = true;
    if (rc == SQLITE_DONE) return false;
    // The reader's error names the file and offset that SQLite's message cannot carry.
    if (ctx_->failure) return std::move(*ctx_->failure);
    return query_detail::sql_error(db_, sql_);
  }

 private:
  QueryContext* ctx_;
  sqlite3* db_;
  Statement statement_;
  std::string sql_;
  bool done_ = false;
};

// The names of the modules (eponymous tables) and tables of `db`'s `main` schema.
std::set<std::string> names_in(sqlite3* db) {
  std::set<std::string> out;
  for (const char* sql : {"PRAGMA module_list", "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view')"}) {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK) continue;
    Statement s(raw);
    while (sqlite3_step(s.get()) == SQLITE_ROW)
      if (const unsigned char* name = sqlite3_column_text(s.get(), 0)) out.insert(reinterpret_cast<const char*>(name));
  }
  return out;
}

class Session : public QuerySession {
 public:
  Session(std::vector<ListedSnapshot> snapshots, const QueryOptions& options)
      : options_(options), ctx_(std::make_unique<QueryContext>(std::move(snapshots), options_)) {}

  Status open() {
    CKPT_ASSIGN_OR_RETURN(db_, query_detail::open_database(ctx_.get()));
    return Status::OK();
  }

  const std::vector<ListedSnapshot>& snapshots() const override { return ctx_->snapshots; }

  // What a plain database has (SQLite's own modules: json_each, fts5, ...) is not ours.
  std::vector<std::string> tables() const override {
    std::set<std::string> ours = names_in(db_.get());
    sqlite3* plain = nullptr;
    if (sqlite3_open_v2(":memory:", &plain, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) == SQLITE_OK)
      for (const std::string& n : names_in(plain)) ours.erase(n);
    sqlite3_close_v2(plain);
    // A module that is no table of its own (the state tables' module: each is declared by name)
    // cannot be read as one.
    std::vector<std::string> out;
    for (const std::string& n : ours) {
      sqlite3_stmt* raw = nullptr;
      const std::string probe = "SELECT * FROM " + sql_identifier(n) + " LIMIT 0";
      if (sqlite3_prepare_v2(db_.get(), probe.c_str(), -1, &raw, nullptr) == SQLITE_OK) out.push_back(n);
      sqlite3_finalize(raw);
    }
    return out;
  }

  Result<std::unique_ptr<QueryRows>> prepare_first(const std::string& sql, const std::vector<QueryCell>& params,
                                                   std::string& rest) override {
    const char* tail = nullptr;
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &raw, &tail);
    // A state's table ("<operator>.<state>") is declared when a statement first names it.
    while (rc != SQLITE_OK) {
      CKPT_ASSIGN_OR_RETURN(bool declared, query_detail::declare_missing_table(db_.get(), ctx_.get(), declared_));
      if (!declared) return query_detail::sql_error(db_.get(), sql);
      rc = sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &raw, &tail);
    }
    Statement statement(raw);
    const size_t used = tail ? static_cast<size_t>(tail - sql.data()) : sql.size();
    std::string text = sql.substr(0, used);
    rest = sql.substr(used);
    if (!statement) return std::unique_ptr<QueryRows>();
    if (static_cast<int>(params.size()) > sqlite3_bind_parameter_count(statement.get()))
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("SQL: {} parameters given, the statement has {}", params.size(),
                               sqlite3_bind_parameter_count(statement.get())))
          .with_context(fmt::format("in '{}'", text));
    for (size_t i = 0; i < params.size(); ++i)
      query_detail::bind_cell(statement.get(), static_cast<int>(i + 1), params[i]);
    return std::unique_ptr<QueryRows>(
        std::make_unique<SessionRows>(ctx_.get(), db_.get(), std::move(statement), std::move(text)));
  }

 private:
  const QueryOptions options_;
  std::unique_ptr<QueryContext> ctx_;  // refers to options_
  Database db_;                        // its tables refer to ctx_: closed first
  std::set<std::string> declared_;     // the state tables declared so far
};

std::string sql_quoted(const std::string& s, char quote) {
  std::string out(1, quote);
  for (char c : s) {
    out += c;
    if (c == quote) out += c;
  }
  return out + quote;
}

}  // namespace

namespace query_detail {

void bind_cell(sqlite3_stmt* s, int i, const QueryCell& c) {
  switch (c.type) {
    case QueryCell::Type::kNull: sqlite3_bind_null(s, i); return;
    case QueryCell::Type::kInteger: sqlite3_bind_int64(s, i, c.integer); return;
    case QueryCell::Type::kReal: sqlite3_bind_double(s, i, c.real); return;
    case QueryCell::Type::kText:
      sqlite3_bind_text64(s, i, c.text.data(), c.text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
      return;
    case QueryCell::Type::kBlob: sqlite3_bind_blob64(s, i, c.text.data(), c.text.size(), SQLITE_TRANSIENT); return;
  }
}

}  // namespace query_detail

std::string sql_identifier(const std::string& name) { return sql_quoted(name, '"'); }
std::string sql_literal(const std::string& text) { return sql_quoted(text, '\''); }

Result<std::unique_ptr<QuerySession>> QuerySession::open(const std::vector<std::string>& paths,
                                                         const QueryOptions& options) {
  CKPT_ASSIGN_OR_RETURN(std::vector<ListedSnapshot> snapshots, query_detail::list_paths(paths, options));
  auto session = std::make_unique<Session>(std::move(snapshots), options);
  CKPT_RETURN_IF_ERROR(session->open());
  return std::unique_ptr<QuerySession>(std::move(session));
}

Result<std::unique_ptr<QueryRows>> QuerySession::prepare(const std::string& sql, const std::vector<QueryCell>& params) {
  std::string rest;
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<QueryRows> rows, prepare_first(sql, params, rest));
  if (!rows) return Error(ErrorCode::kInvalidArgument, "SQL: no statement").with_context(fmt::format("in '{}'", sql));
  std::string more;
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<QueryRows> second, prepare_first(rest, {}, more));
  if (second)
    return Error(ErrorCode::kInvalidArgument, "SQL: one statement expected, found more")
        .with_context(fmt::format("in '{}'", sql));
  return rows;
}

}  // namespace ckpt
