// ckpt query: SQL over the state of the snapshots under some paths (man/ckpt-query.1.md).
#include <cmath>
#include <filesystem>
#include <memory>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "choices.h"
#include "ckpt/query.h"
#include "ckpt/query_session.h"
#include "command.h"
#include "jobs_arg.h"
#include "naming_arg.h"
#include "progress_meter.h"
#include "query_shell.h"
#include "remap_arg.h"

namespace ckpt::cli {

namespace {

struct QueryArgs {
  std::vector<std::string> paths;
  std::string sql;
  std::string format;
  int jobs = 1;
  bool keep_going = false;
  std::vector<std::string> remap;
  NamingArgs naming;
  ProgressMode progress = ProgressMode::kAuto;
  std::string to_sqlite;
  std::vector<std::string> tables;
  bool force = false;
  bool shell = false;
};

std::string hex_of(const std::string& bytes) {
  std::string out;
  for (unsigned char b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

// A cell as text (table and CSV): NULL empty, a blob in hex.
std::string cell_text(const QueryCell& c) {
  switch (c.type) {
    case QueryCell::Type::kNull: return "";
    case QueryCell::Type::kInteger: return std::to_string(c.integer);
    case QueryCell::Type::kReal: return fmt::format("{}", c.real);
    case QueryCell::Type::kText: return c.text;
    case QueryCell::Type::kBlob: return hex_of(c.text);
  }
  return "";
}

// A cell as JSON: text stays a string (a JSON column is JSON text in a string), a blob hex.
nlohmann::ordered_json cell_json(const QueryCell& c) {
  switch (c.type) {
    case QueryCell::Type::kNull: return nullptr;
    case QueryCell::Type::kInteger: return c.integer;
    case QueryCell::Type::kReal: return std::isfinite(c.real) ? nlohmann::ordered_json(c.real) : nullptr;
    case QueryCell::Type::kText: return c.text;
    case QueryCell::Type::kBlob: return hex_of(c.text);
  }
  return nullptr;
}

std::string dump_json(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

class FormattedSink : public QuerySink {
 public:
  // After the last statement.
  virtual void finish() {}
};

// One object per row and line.
class NdjsonRows : public FormattedSink {
 public:
  explicit NdjsonRows(Io& io) : io_(io) {}
  void columns(const std::vector<std::string>& names) override { names_ = names; }
  void row(const std::vector<QueryCell>& cells) override {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (size_t i = 0; i < cells.size(); ++i) o[names_[i]] = cell_json(cells[i]);
    io_.out << dump_json(o) << '\n';
  }

 private:
  Io& io_;
  std::vector<std::string> names_;
};

// An array of row objects per statement.
class JsonRows : public FormattedSink {
 public:
  explicit JsonRows(Io& io) : io_(io) {}
  void columns(const std::vector<std::string>& names) override {
    close();
    names_ = names;
    io_.out << '[';
    open_ = true;
    first_ = true;
  }
  void row(const std::vector<QueryCell>& cells) override {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (size_t i = 0; i < cells.size(); ++i) o[names_[i]] = cell_json(cells[i]);
    io_.out << (first_ ? "\n" : ",\n") << dump_json(o);
    first_ = false;
  }
  void finish() override { close(); }

 private:
  void close() {
    if (open_) io_.out << (first_ ? "]\n" : "\n]\n");
    open_ = false;
  }
  Io& io_;
  std::vector<std::string> names_;
  bool open_ = false, first_ = true;
};

// RFC 4180: a header line, fields quoted where they hold a comma, a quote or a line break.
class CsvRows : public FormattedSink {
 public:
  explicit CsvRows(Io& io) : io_(io) {}
  void columns(const std::vector<std::string>& names) override {
    for (size_t i = 0; i < names.size(); ++i) io_.out << (i ? "," : "") << quoted(names[i]);
    io_.out << "\r\n";
  }
  void row(const std::vector<QueryCell>& cells) override {
    for (size_t i = 0; i < cells.size(); ++i) io_.out << (i ? "," : "") << quoted(cell_text(cells[i]));
    io_.out << "\r\n";
  }

 private:
  static std::string quoted(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
      if (c == '"') out += '"';
      out += c;
    }
    return out + "\"";
  }
  Io& io_;
};

// Columns as wide as their widest cell among the first rows (kept back until then), each cut
// at kMaxWidth; memory stays bounded however many rows follow.
class TableRows : public FormattedSink {
 public:
  explicit TableRows(Io& io) : io_(io) {}
  void columns(const std::vector<std::string>& names) override {
    finish();
    names_ = names;
    widths_.clear();
    for (const std::string& n : names) widths_.push_back(std::min(n.size(), kMaxWidth));
    held_.clear();
    printing_ = false;
  }
  void row(const std::vector<QueryCell>& cells) override {
    std::vector<std::string> texts;
    for (size_t i = 0; i < cells.size(); ++i) {
      texts.push_back(cell_text(cells[i]));
      if (!printing_) widths_[i] = std::max(widths_[i], std::min(texts.back().size(), kMaxWidth));
    }
    if (printing_) return print(texts);
    held_.push_back(std::move(texts));
    if (held_.size() >= kHeldRows) start();
  }
  void finish() override {
    if (!names_.empty() && !printing_) start();
  }

 private:
  static constexpr size_t kMaxWidth = 60;
  static constexpr size_t kHeldRows = 1000;

  void start() {
    printing_ = true;
    print(names_);
    std::vector<std::string> rules;
    for (size_t w : widths_) rules.push_back(std::string(w, '-'));
    print(rules);
    for (const auto& r : held_) print(r);
    held_.clear();
  }
  void print(const std::vector<std::string>& texts) {
    std::string line;
    for (size_t i = 0; i < texts.size(); ++i) {
      std::string t = texts[i].size() > kMaxWidth ? texts[i].substr(0, kMaxWidth - 3) + "..." : texts[i];
      for (char& c : t)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
      if (i) line += "  ";
      line += i + 1 < texts.size() ? fmt::format("{:<{}}", t, widths_[i]) : t;
    }
    io_.out << line << '\n';
  }

  Io& io_;
  std::vector<std::string> names_;
  std::vector<size_t> widths_;
  std::vector<std::vector<std::string>> held_;
  bool printing_ = false;
};

}  // namespace

Runner setup_query(CLI::App& sub) {
  auto a = std::make_shared<QueryArgs>();
  // PATH... takes the arguments up to the SQL: a statement has spaces, a path rarely does, and
  // one that has is taken as a PATH when it exists.
  sub.validate_positionals();
  sub.add_option("PATH...", a->paths,
                 "Snapshots, job checkpoint directories or directories of jobs or snapshots whose snapshots the tables hold")
      ->required()
      ->check(CLI::Validator(
          [](std::string& arg) {
            std::error_code ec;
            if (arg.find_first_of(" \t\r\n") == std::string::npos || std::filesystem::exists(arg, ec))
              return std::string();
            return std::string("SQL, not a PATH");
          },
          "", "PATH"));
  sub.add_option("SQL", a->sql,
                 "SQL (SQLite's dialect) over the tables entries, snapshots, operators, states, files and "
                 "\"<operator>.<state>\" (optional with --to-sqlite and --shell)");
  sub.add_option("--format", a->format,
                 "table (default when stdout is a terminal), csv, ndjson (default otherwise) or json")
      ->type_name("table|csv|ndjson|json")
      ->check(CLI::IsMember(option_choices("query", "--format")).description(""));
  auto* to_sqlite = sub.add_option("--to-sqlite", a->to_sqlite,
                                   "Write the tables (or SQL's result, as table `result`) into a new SQLite file")
                        ->type_name("FILE");
  sub.add_option("--table", a->tables, "With --to-sqlite: write this table (repeatable; default: every table)")
      ->type_name("NAME")
      ->needs(to_sqlite);
  sub.add_flag("--force", a->force, "With --to-sqlite: replace an existing FILE")->needs(to_sqlite);
  sub.add_flag("--shell", a->shell, "Open the sqlite3 shell over the tables (SQLite's extension libckpt_sqlite)")
      ->excludes(to_sqlite);
  add_naming_options(sub, &a->naming);
  add_jobs_option(sub, &a->jobs, "Decode N subtasks at once");
  sub.add_flag("--keep-going", a->keep_going, "Report damaged parts, give the rows of the rest and exit 1");
  add_remap_option(sub, &a->remap);
  add_progress_options(sub, &a->progress);
  return [a](Io& io) {
    if (a->shell) {
      if (!a->sql.empty()) {
        print_error(io, "--shell reads SQL from the terminal: give only PATHs");
        return kExitError;
      }
      // The naming flags and -j, as the `ckpt` module takes them; files by absolute path.
      std::vector<std::string> module_args = {"jobs=" + std::to_string(a->jobs)};
      std::error_code ec;
      if (!a->naming.plan.empty())
        module_args.push_back("plan=" + sql_literal(std::filesystem::absolute(a->naming.plan, ec).string()));
      if (!a->naming.uids_file.empty())
        module_args.push_back("uids=" + sql_literal(std::filesystem::absolute(a->naming.uids_file, ec).string()));
      for (const std::string& uid : a->naming.uids) module_args.push_back("uid=" + sql_literal(uid));
      if (!a->remap.empty()) {
        print_error(io, "--remap is not taken with --shell");
        return kExitError;
      }
      return run_query_shell(io, a->paths, module_args);
    }
    if (a->sql.empty() && a->to_sqlite.empty()) {
      print_error(io, "SQL is required (it may be left out only with --to-sqlite or --shell)");
      return kExitError;
    }
    if (!a->sql.empty() && !a->tables.empty()) {
      print_error(io, "--table names tables to write as they are: not with SQL, whose result is written");
      return kExitError;
    }
    QueryOptions options;
    std::optional<OperatorNames> names = names_or_report(io, a->naming);
    if (!names) return kExitError;
    options.names = std::move(*names);
    options.jobs = a->jobs;
    options.keep_going = a->keep_going;
    std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a->remap);
    if (!remap) return kExitError;
    options.remap = std::move(*remap);
    if (!a->to_sqlite.empty()) {
      ProgressMeter meter(io, "query", a->progress);
      options.progress = meter.counters();
      SqliteExport what;
      what.output = a->to_sqlite;
      what.replace = a->force;
      what.tables = a->tables;
      what.sql = a->sql;
      Result<SqliteExportSummary> written = export_to_sqlite(a->paths, options, what);
      meter.finish();
      if (!written.ok()) return report_error(io, written.error());
      io.out << fmt::format("wrote {} rows in {} table{} ({}) to {}\n", written->rows, written->tables.size(),
                            written->tables.size() == 1 ? "" : "s", fmt::join(written->tables, ", "), a->to_sqlite);
      return kExitOk;
    }
    std::string format = a->format.empty() ? (io.out_is_terminal ? "table" : "ndjson") : a->format;
    std::unique_ptr<FormattedSink> sink;
    if (format == "table")
      sink = std::make_unique<TableRows>(io);
    else if (format == "csv")
      sink = std::make_unique<CsvRows>(io);
    else if (format == "json")
      sink = std::make_unique<JsonRows>(io);
    else
      sink = std::make_unique<NdjsonRows>(io);
    ProgressMeter meter(io, "query",
                        io.out_is_terminal && a->progress == ProgressMode::kAuto ? ProgressMode::kOff : a->progress);
    options.progress = meter.counters();
    Result<QuerySummary> summary = run_query(a->paths, a->sql, options, *sink);
    meter.finish();
    sink->finish();
    if (!summary.ok()) return report_error(io, summary.error());
    for (const Error& e : summary->problems) print_error(io, e.to_string());
    return summary->problems.empty() ? kExitOk : kExitProblems;
  };
}

}  // namespace ckpt::cli
