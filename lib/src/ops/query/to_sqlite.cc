// export_to_sqlite (ckpt/query_session.h): a session's tables, or a result, copied row by row
// into a new SQLite file, published as every output is (support/io_internal.h).
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "ckpt/query_session.h"
#include "ops/query/query_tables.h"
#include "support/io_internal.h"

namespace ckpt {
namespace {

struct OutputCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct InsertFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

// One copy: the rows of `rows` into table `name`.
struct Copy {
  std::string name;
  std::unique_ptr<QueryRows> rows;
};

// The file being written: removed unless published.
class TempOutput {
 public:
  explicit TempOutput(std::string path) : path_(std::move(path)) {}
  ~TempOutput() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }
  void published() { path_.clear(); }

 private:
  std::string path_;
};

class SqliteWriter {
 public:
  SqliteWriter(sqlite3* db, const std::string& file) : db_(db), file_(file) {}

  Status exec(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return Status::OK();
    std::string why = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    return Error(ErrorCode::kIOError, "cannot write the SQLite file: " + why).with_file(file_);
  }

  // The table, its columns as the rows name them (a repeated name gets a suffix) and typed as
  // they are declared; then every row.
  Result<uint64_t> copy(Copy& c) {
    const std::vector<std::string>& names = c.rows->columns();
    const std::vector<std::string>& types = c.rows->declared_types();
    std::set<std::string> used;
    std::string columns;
    for (size_t i = 0; i < names.size(); ++i) {
      std::string name = names[i];
      for (int n = 2; !used.insert(name).second; ++n) name = fmt::format("{}_{}", names[i], n);
      columns += fmt::format("{}{} {}", i ? ", " : "", sql_identifier(name), types[i]);
    }
    CKPT_RETURN_IF_ERROR(exec(fmt::format("CREATE TABLE {}({})", sql_identifier(c.name), columns)));
    std::string marks;
    for (size_t i = 0; i < names.size(); ++i) marks += i ? ",?" : "?";
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db_, fmt::format("INSERT INTO {} VALUES({})", sql_identifier(c.name), marks).c_str(), -1,
                           &raw, nullptr) != SQLITE_OK)
      return Error(ErrorCode::kIOError, std::string("cannot write the SQLite file: ") + sqlite3_errmsg(db_))
          .with_file(file_);
    std::unique_ptr<sqlite3_stmt, InsertFinalizer> insert(raw);
    uint64_t count = 0;
    while (true) {
      CKPT_ASSIGN_OR_RETURN(bool more, c.rows->step());
      if (!more) break;
      const std::vector<QueryCell>& row = c.rows->row();
      for (size_t i = 0; i < row.size(); ++i) query_detail::bind_cell(insert.get(), static_cast<int>(i + 1), row[i]);
      if (sqlite3_step(insert.get()) != SQLITE_DONE)
        return Error(ErrorCode::kIOError, std::string("cannot write the SQLite file: ") + sqlite3_errmsg(db_))
            .with_file(file_);
      sqlite3_reset(insert.get());
      ++count;
    }
    return count;
  }

 private:
  sqlite3* db_;
  const std::string& file_;
};

// What `what` asks for, prepared in `session`.
Result<std::vector<Copy>> copies_of(QuerySession& session, const SqliteExport& what) {
  std::vector<Copy> out;
  if (!what.sql.empty()) {
    std::string sql = what.sql;
    while (true) {
      std::string rest;
      CKPT_ASSIGN_OR_RETURN(std::unique_ptr<QueryRows> rows, session.prepare_first(sql, {}, rest));
      if (!rows && rest.empty()) break;
      if (rows && !rows->columns().empty()) {
        std::string name = out.empty() ? "result" : fmt::format("result_{}", out.size() + 1);
        out.push_back({std::move(name), std::move(rows)});
      } else if (rows) {
        // A statement without rows (a temporary table for the next ones) runs now.
        while (true) {
          CKPT_ASSIGN_OR_RETURN(bool more, rows->step());
          if (!more) break;
        }
      }
      sql = std::move(rest);
    }
    if (out.empty()) return Error(ErrorCode::kInvalidArgument, "SQL: no statement returns rows to write");
    return out;
  }
  const std::vector<std::string> known = session.tables();
  std::vector<std::string> names = what.tables.empty() ? known : what.tables;
  for (const std::string& name : names) {
    if (std::find(known.begin(), known.end(), name) == known.end())
      return Error(ErrorCode::kNotFound,
                   fmt::format("no such table: {} (the tables: {})", name, fmt::join(known, ", ")));
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<QueryRows> rows, session.prepare("SELECT * FROM " + sql_identifier(name)));
    out.push_back({name, std::move(rows)});
  }
  return out;
}

}  // namespace

Result<SqliteExportSummary> export_to_sqlite(const std::vector<std::string>& paths, const QueryOptions& options,
                                             const SqliteExport& what) {
  if (what.output.empty()) return Error(ErrorCode::kInvalidArgument, "no output file named");
  struct stat st;
  if (!what.replace && ::lstat(what.output.c_str(), &st) == 0)
    return Error(ErrorCode::kInvalidArgument, "output exists (--force replaces it)").with_file(what.output);
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<QuerySession> session, QuerySession::open(paths, options));
  CKPT_ASSIGN_OR_RETURN(std::vector<Copy> copies, copies_of(*session, what));

  std::string tmpl = what.output + ".ckpt-tmp-XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return io_error(what.output, "cannot create temporary file", errno);
  ::fchmod(fd, file_mode());
  ::close(fd);
  TempOutput temp(tmpl);
  SqliteExportSummary summary;
  {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(temp.path().c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
    std::unique_ptr<sqlite3, OutputCloser> db(raw);
    if (rc != SQLITE_OK)
      return Error(ErrorCode::kIOError, fmt::format("cannot open SQLite: {}", sqlite3_errstr(rc)))
          .with_file(temp.path());
    SqliteWriter writer(db.get(), temp.path());
    // No journal: a failed run's file is removed, never recovered; the file is synced once, whole.
    CKPT_RETURN_IF_ERROR(writer.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN"));
    for (Copy& c : copies) {
      CKPT_ASSIGN_OR_RETURN(uint64_t n, writer.copy(c));
      summary.tables.push_back(c.name);
      summary.rows += n;
    }
    CKPT_RETURN_IF_ERROR(writer.exec("COMMIT"));
    if (sqlite3_close_v2(db.release()) != SQLITE_OK)
      return Error(ErrorCode::kIOError, "cannot close the SQLite file").with_file(temp.path());
  }
  CKPT_RETURN_IF_ERROR(sync_path(temp.path()));
  Status published = publish_synced_temp(temp.path(), what.output, what.replace);
  temp.published();  // renamed, or removed by publish_synced_temp
  CKPT_RETURN_IF_ERROR(published);
  return summary;
}

}  // namespace ckpt
