// ops/query/query_tables.h - the virtual tables of one `ckpt query` run (ckpt/query.h) and what
// they share: the snapshots found, the options, what was read of each snapshot once.
#pragma once

#include <sqlite3.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/inspect.h"
#include "ckpt/metadata.h"
#include "ckpt/query.h"
#include "ops/entries/entry_engine.h"

namespace ckpt::query_detail {

class QueryContext {
 public:
  QueryContext(std::vector<ListedSnapshot> snapshots, const QueryOptions& options)
      : snapshots(std::move(snapshots)),
        options(options),
        opened_(this->snapshots.size()),
        reports_(this->snapshots.size()) {}

  const std::vector<ListedSnapshot> snapshots;
  const QueryOptions& options;
  // The library's error behind a table's SQLITE_ERROR: what the query fails with, as it names
  // the file and offset that SQLite's message cannot carry.
  std::optional<Error> failure;
  // With QueryOptions::keep_going: the damaged parts the readers stepped over, in order.
  std::vector<Error> problems;

  // Snapshot i opened (its `_metadata` decoded) on first use, for every table and scan of it.
  const Result<std::shared_ptr<OpenedSnapshot>>& opened(size_t i);
  // Its `_metadata`, or the error opening it.
  Result<const Metadata*> metadata(size_t i);
  // Snapshot i inspected with its states (ckpt/inspect.h), on first use.
  const Result<InspectReport>& report(size_t i);
  // Records `e` as the failure and gives SQLite its text; returns SQLITE_ERROR.
  int fail(sqlite3_vtab* table, Error e);

 private:
  std::vector<std::unique_ptr<Result<std::shared_ptr<OpenedSnapshot>>>> opened_;
  std::vector<std::unique_ptr<Result<InspectReport>>> reports_;
};

// A cell handed to SQLite.
void result_cell(sqlite3_context* ctx, const QueryCell& cell);
QueryCell text_cell(std::string s);
QueryCell integer_cell(int64_t i);
QueryCell null_cell();

// A read-only module without xCreate, so its table exists by its name alone (eponymous)
// without a CREATE VIRTUAL TABLE; disconnecting is destroying.
using Cursor = sqlite3_vtab_cursor;
sqlite3_module eponymous_module(int (*connect)(sqlite3*, void*, int, const char* const*, sqlite3_vtab**, char**),
                                int (*best_index)(sqlite3_vtab*, sqlite3_index_info*), int (*disconnect)(sqlite3_vtab*),
                                int (*open)(sqlite3_vtab*, Cursor**), int (*close)(Cursor*),
                                int (*filter)(Cursor*, int, const char*, int, sqlite3_value**), int (*next)(Cursor*),
                                int (*eof)(Cursor*), int (*column)(Cursor*, sqlite3_context*, int),
                                int (*rowid)(Cursor*, sqlite3_int64*));

struct DatabaseCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StatementFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Database = std::unique_ptr<sqlite3, DatabaseCloser>;

// The snapshots under each of `paths`, in turn.
Result<std::vector<ListedSnapshot>> list_paths(const std::vector<std::string>& paths, const QueryOptions& options);
// An in-memory database holding every table over `ctx`'s snapshots (`ctx` outlives it), and
// nothing else: ATTACH is refused, as the inputs are read-only and a query writes nothing.
Result<Database> open_database(QueryContext* ctx);
// SQLite's error on `db` as the query's, quoting the statement.
Error sql_error(sqlite3* db, std::string_view statement);
// Column i of the current row of `s`.
QueryCell cell_of(sqlite3_stmt* s, int i);
// `c` as parameter i of `s`.
void bind_cell(sqlite3_stmt* s, int i, const QueryCell& c);

// Registers `entries` (entries_table.cc) and `snapshots`, `operators`, `states`, `files`,
// `state_columns` (info_tables.cc) as eponymous virtual tables of `db`; `ctx` outlives `db`.
Status register_entries_table(sqlite3* db, QueryContext* ctx);
Status register_info_tables(sqlite3* db, QueryContext* ctx);

// The tables of one state each, "<operator>.<state>" (state_tables.cc): registered as a module,
// each declared (in `temp`) when a statement first names it; declare_state_table() returns
// false when no snapshot has a state of that name. `SELECT DISTINCT table_name FROM
// state_columns` lists them all (an operator by its uid where known, else its id).
Status register_state_tables(sqlite3* db, QueryContext* ctx);
Result<bool> declare_state_table(sqlite3* db, QueryContext* ctx, const std::string& name);
// After a statement failed to prepare on `db`: declares the state table SQLite says is missing,
// once per name in `declared`; true when the statement is worth preparing again.
Result<bool> declare_missing_table(sqlite3* db, QueryContext* ctx, std::set<std::string>& declared);
// The rows of `state_columns` (an info table) for snapshot i: each state table's columns, where
// in the entry each comes from.
Status state_column_rows(QueryContext& ctx, size_t i, std::vector<std::vector<QueryCell>>& out);

}  // namespace ckpt::query_detail
