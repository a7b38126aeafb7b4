// ops/query/query_tables.h - the virtual tables of one `ckpt query` run (ckpt/query.h) and what
// they share: the snapshots found, the options, what was read of each snapshot once.
#pragma once

#include <sqlite3.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/inspect.h"
#include "ckpt/metadata.h"
#include "ckpt/query.h"

namespace ckpt::query_detail {

class QueryContext {
 public:
  QueryContext(std::vector<ListedSnapshot> snapshots, const QueryOptions& options)
      : snapshots(std::move(snapshots)),
        options(options),
        metadata_(this->snapshots.size()),
        reports_(this->snapshots.size()) {}

  const std::vector<ListedSnapshot> snapshots;
  const QueryOptions& options;
  // The library's error behind a table's SQLITE_ERROR: what the query fails with, as it names
  // the file and offset that SQLite's message cannot carry.
  std::optional<Error> failure;
  // With QueryOptions::keep_going: the damaged parts the readers stepped over, in order.
  std::vector<Error> problems;

  // Snapshot i's `_metadata`, decoded on first use.
  const Result<Metadata>& metadata(size_t i);
  // Snapshot i inspected with its states (ckpt/inspect.h), on first use.
  const Result<InspectReport>& report(size_t i);
  // Records `e` as the failure and gives SQLite its text; returns SQLITE_ERROR.
  int fail(sqlite3_vtab* table, Error e);

 private:
  std::vector<std::unique_ptr<Result<Metadata>>> metadata_;
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
// The rows of `state_columns` (an info table) for snapshot i: each state table's columns, where
// in the entry each comes from.
Status state_column_rows(QueryContext& ctx, size_t i, std::vector<std::vector<QueryCell>>& out);

}  // namespace ckpt::query_detail
