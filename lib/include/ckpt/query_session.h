// ckpt/query_session.h - the tables of `ckpt query` (ckpt/query.h) kept open: statements
// prepared one at a time and their rows pulled, for what run_query's one pass does not serve:
// the SQLite extension (its tables read the session's rows as SQLite asks for them), and a
// copy of the tables or of a result into a SQLite file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/query.h"

namespace ckpt {

// The rows of one prepared statement, pulled one at a time; the session outlives them.
class CKPT_API QueryRows {
 public:
  virtual ~QueryRows() = default;
  const std::vector<std::string>& columns() const { return columns_; }
  // Each column's declared type ("TEXT", "INTEGER"), "" for an expression.
  const std::vector<std::string>& declared_types() const { return types_; }
  // Moves to the next row: true with a row in row(), false after the last. Errors: the
  // reader's (file, offset, operator and subtask) or SQLite's.
  virtual Result<bool> step() = 0;
  const std::vector<QueryCell>& row() const { return row_; }

 protected:
  std::vector<std::string> columns_, types_;
  std::vector<QueryCell> row_;
};

class CKPT_API QuerySession {
 public:
  // The snapshots under `paths` (none: the tables exist and are empty, for their columns), as
  // run_query finds them.
  static Result<std::unique_ptr<QuerySession>> open(const std::vector<std::string>& paths, const QueryOptions& options);
  virtual ~QuerySession() = default;
  virtual const std::vector<ListedSnapshot>& snapshots() const = 0;
  // The tables a statement can name (`entries`, `snapshots`, ...), sorted.
  virtual std::vector<std::string> tables() const = 0;
  // The first statement of `sql`, `?N` bound to params[N-1]; `rest` gets the text after it.
  // nullptr when `sql` holds no statement (white space, comments). Errors: it does not parse
  // or names an unknown table or column (kInvalidArgument, SQLite's message).
  virtual Result<std::unique_ptr<QueryRows>> prepare_first(const std::string& sql, const std::vector<QueryCell>& params,
                                                           std::string& rest) = 0;
  // Exactly one statement (more is kInvalidArgument).
  Result<std::unique_ptr<QueryRows>> prepare(const std::string& sql, const std::vector<QueryCell>& params = {});
};

// `name` as a SQL identifier (`op.state` -> `"op.state"`), `text` as a SQL string literal.
CKPT_API std::string sql_identifier(const std::string& name);
CKPT_API std::string sql_literal(const std::string& text);

struct CKPT_API SqliteExport {
  std::string output;    // the SQLite file written
  bool replace = false;  // an existing `output` is replaced (else kInvalidArgument)
  // What goes in: these tables under their own names (empty and no `sql`: every table), or the
  // rows of each statement of `sql` that returns rows, as table `result` (then `result_2`, ...).
  std::vector<std::string> tables;
  std::string sql;
};

struct CKPT_API SqliteExportSummary {
  std::vector<std::string> tables;  // as written
  uint64_t rows = 0;
};

// Copies the tables (or the result) of a session over `paths` into a new SQLite file: written
// under a temporary name beside it, synced, then renamed into place, so a failed run leaves
// nothing. Errors: as run_query's, an unknown table, the output exists (without `replace`).
CKPT_API Result<SqliteExportSummary> export_to_sqlite(const std::vector<std::string>& paths,
                                                      const QueryOptions& options, const SqliteExport& what);

}  // namespace ckpt
