// The tables of `ckpt query` outside it: libckpt_sqlite.so loaded by the sqlite3 shell and by
// Python's sqlite3 module, `--to-sqlite` (a SQLite file of the tables or of a result) and
// `--shell` (the sqlite3 shell with the tables made in it).
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/generate.h"
#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/damaged_key_group.h"
#include "testlib/scoped_settings.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Built with AddressSanitizer (.ci/sanitize), the extension needs ASan's runtime loaded first
// in the uninstrumented sqlite3 and python3 that load it, and their own leaks are not ours.
struct SanitizerRuntime {
  std::vector<std::unique_ptr<test::ScopedEnv>> vars;
  SanitizerRuntime() {
#if defined(CKPT_SANITIZED)
    vars.push_back(std::make_unique<test::ScopedEnv>("LD_PRELOAD", std::string(CKPT_ASAN_RUNTIME)));
    vars.push_back(std::make_unique<test::ScopedEnv>("ASAN_OPTIONS", std::string("detect_leaks=0")));
#endif
  }
};

// The extension as built (`.load` adds the ".so").
std::string built_extension() { return test::build_dir() + "/lib/libckpt_sqlite"; }

// `sqlite3 :memory:` with the extension loaded, running `statements` (one argument each).
test::CliResult in_sqlite3(const std::vector<std::string>& statements) {
  std::vector<std::string> argv = {"sqlite3", ":memory:", ".load " + built_extension()};
  argv.insert(argv.end(), statements.begin(), statements.end());
  return test::run_program(argv, 60);
}

// A small savepoint of value, list and map state (1216 entries).
std::string small_savepoint(const test::ScratchDir& tmp) {
  const std::string sp = tmp / "sp";
  test::run_cli_ok({"generate", "-q", "--output", sp, "--keys", "300", "--states", "value,list,map"});
  return sp;
}

// One text cell that differs when any column of any row of the entries `table` does.
std::string fingerprint(const std::string& table) {
  return "SELECT count(*) || '|' || total(entry_bytes) || '|' || total(length(key)) || '|' || total(length(value)) || "
         "'|' || total(length(user_key)) || '|' || total(length(namespace)) || '|' || total(key_group) || '|' || "
         "total(subtask) || '|' || replace(group_concat(DISTINCT state || kind || operator || snapshot), ',', ';') "
         "FROM " +
         table;
}

std::string query_csv(const std::vector<std::string>& paths, const std::string& sql) {
  std::vector<std::string> args = {"query", "--format", "csv"};
  args.insert(args.end(), paths.begin(), paths.end());
  args.push_back(sql);
  test::CliResult r = test::run_cli(args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r.out;
}

// The one cell of `sql` as ckpt query prints it, with a line break.
std::string query_value(const std::vector<std::string>& paths, const std::string& sql) {
  std::string out = query_csv(paths, sql);
  out = out.substr(out.find('\n') + 1);
  std::erase(out, '\r');
  return out;
}

}  // namespace

TEST_CASE("libckpt_sqlite loads in the sqlite3 shell and gives the tables of ckpt query as functions", "[cli]") {
  SanitizerRuntime sanitizer;
  REQUIRE(test::program_available("/usr/bin/sqlite3"));  // .ci/install-deps installs it
  test::ScratchDir tmp;
  const std::string sp = small_savepoint(tmp);
  auto r = in_sqlite3({"SELECT count(*), sum(entry_bytes) FROM ckpt_entries('" + sp + "')",
                       "SELECT name, kind FROM ckpt_states('" + sp + "') ORDER BY name",
                       "SELECT count(*) FROM ckpt_snapshots('" + sp + "') WHERE complete AND gc = 'retained'"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::string count = query_value({sp}, "SELECT count(*) || '|' || sum(entry_bytes) FROM entries");
  CHECK(r.out == count + "list-state|LIST\nmap-state|MAP\nvalue-state|VALUE\n1\n");
  // Every column as ckpt query gives it.
  auto rows = in_sqlite3({fingerprint("ckpt_entries('" + sp + "')")});
  REQUIRE(rows.status == 0);
  CHECK(rows.out == query_value({sp}, fingerprint("entries")));

  // A virtual table over fixed paths, and a key's lookup through it.
  auto fixed =
      in_sqlite3({"CREATE VIRTUAL TABLE t USING ckpt('" + sp + "', table='entries')",
                  "SELECT state, key FROM t WHERE key = json_quote('user-0000000007') ORDER BY state LIMIT 1"});
  INFO(fixed.err);
  CHECK(fixed.status == 0);
  CHECK(fixed.out == "list-state|\"user-0000000007\"\n");

  // ckpt query's naming flags as the module's arguments: a plan that is not there is named.
  auto plan =
      in_sqlite3({"CREATE VIRTUAL TABLE p USING ckpt('" + sp + "', plan='" + tmp / "no-plan.json" + "', jobs=2)"});
  CHECK(plan.status != 0);
  CHECK(test::contains(plan.err, tmp / "no-plan.json"));
  auto uid = in_sqlite3({"CREATE VIRTUAL TABLE u USING ckpt('" + sp + "', uid='orders', jobs=2)",
                         "SELECT count(*) FROM u WHERE state = 'value-state'"});
  CHECK(uid.out == "300\n");

  // Without a PATH, or with one that holds no snapshot: an error that says so.
  auto no_path = in_sqlite3({"SELECT count(*) FROM ckpt_entries"});
  CHECK(no_path.status != 0);
  CHECK(test::contains(no_path.err, "ckpt_entries() needs a PATH"));
  auto missing = in_sqlite3({"SELECT count(*) FROM ckpt_entries('" + tmp / "nowhere" + "')"});
  CHECK(missing.status != 0);
  CHECK(test::contains(missing.err, tmp / "nowhere"));
}

TEST_CASE("libckpt_sqlite reads one key group for WHERE key = and names a damaged file in its error", "[cli]") {
  SanitizerRuntime sanitizer;
  REQUIRE(test::program_available("/usr/bin/sqlite3"));
  test::ScratchDir tmp;
  const std::string sp = tmp / "sp";
  test::write_heap_savepoint_of_16_key_groups(sp);
  auto keys = in_sqlite3(
      {"SELECT key_group, key FROM ckpt_entries('" + sp + "') WHERE key_group IN (5, 9) GROUP BY key_group"});
  REQUIRE(keys.status == 0);
  const std::string inside = keys.out.substr(2, keys.out.find('\n') - 2);
  const std::string elsewhere =
      keys.out.substr(keys.out.find('\n') + 3, keys.out.rfind('\n') - keys.out.find('\n') - 3);
  REQUIRE(!inside.empty());
  REQUIRE(!elsewhere.empty());
  const std::string damaged = test::overwrite_key_group(sp, 5);
  // The lookup of a key of key group 9 never reads key group 5's bytes.
  auto lookup = in_sqlite3({"SELECT count(*) > 0 FROM ckpt_entries('" + sp + "') WHERE key = '" + elsewhere + "'"});
  INFO(lookup.err);
  CHECK(lookup.status == 0);
  CHECK(lookup.out == "1\n");
  auto whole = in_sqlite3({"SELECT count(*) FROM ckpt_entries('" + sp + "')"});
  CHECK(whole.status != 0);
  CHECK(test::contains(whole.err, damaged));
  CHECK(test::contains(whole.err, "offset"));
}

TEST_CASE("libckpt_sqlite loads in Python's sqlite3 module", "[cli]") {
  SanitizerRuntime sanitizer;
  // Debian's Python: its sqlite3 module can load extensions (some others are built without).
  REQUIRE(test::program_available("/usr/bin/python3"));
  test::ScratchDir tmp;
  const std::string sp = small_savepoint(tmp);
  const std::string script =
      "import sqlite3, sys\n"
      "c = sqlite3.connect(':memory:')\n"
      "c.enable_load_extension(True)\n"
      "c.load_extension(sys.argv[1])\n"
      "print(c.execute('SELECT count(*) FROM ckpt_entries(?)', (sys.argv[2],)).fetchone()[0])\n"
      "print(c.execute(\"SELECT kind FROM ckpt_snapshots(?)\", (sys.argv[2],)).fetchone()[0])\n"
      "import json\n"
      "cur = c.execute('SELECT * FROM ckpt_entries(?)', (sys.argv[2],))\n"
      "names = [d[0] for d in cur.description]\n"
      "rows = [dict(zip(names, r)) for r in cur]\n"
      "expected = [json.loads(l) for l in open(sys.argv[3])]\n"
      "print('same rows' if rows == expected else 'different rows')\n"
      "try:\n"
      "    c.execute(\"SELECT * FROM ckpt_entries('/nonexistent/chk-1')\").fetchall()\n"
      "except sqlite3.Error as e:\n"
      "    print('error:', e)\n";
  test::write_file(tmp / "load.py", script);
  auto ndjson = test::run_cli({"query", sp, "SELECT * FROM entries", "--format", "ndjson"});
  REQUIRE(ndjson.status == 0);
  test::write_file(tmp / "entries.ndjson", ndjson.out);
  auto r = test::run_program({"/usr/bin/python3", tmp / "load.py", built_extension(), sp, tmp / "entries.ndjson"}, 60);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.rfind("1216\nsavepoint\nsame rows\nerror: ", 0) == 0);
  CHECK(test::contains(r.out, "/nonexistent/chk-1"));
}

TEST_CASE("ckpt query --to-sqlite writes the tables or the result into a new SQLite file", "[cli]") {
  SanitizerRuntime sanitizer;
  REQUIRE(test::program_available("/usr/bin/sqlite3"));
  test::ScratchDir tmp;
  const std::string sp = small_savepoint(tmp);
  const std::string db = tmp / "state.db";
  auto all = test::run_cli({"query", sp, "--to-sqlite", db});
  INFO(all.err);
  REQUIRE(all.status == 0);
  // The rows as ckpt query gives them, typed as its columns are.
  auto tables = test::run_program({"sqlite3", db, "SELECT name FROM sqlite_schema ORDER BY name",
                                   fingerprint("entries"), "SELECT typeof(key_group) FROM entries LIMIT 1",
                                   "SELECT group_concat(name || kind || value_serializer, ';') FROM states"});
  REQUIRE(tables.status == 0);
  CHECK(tables.out == "entries\nfiles\noperators\nsnapshots\nstate_columns\nstates\n" + query_value({sp}, fingerprint("entries")) +
                          "integer\n" +
                          query_value({sp}, "SELECT group_concat(name || kind || value_serializer, ';') FROM states"));

  // An existing file stays as it is without --force; nothing is left beside it.
  auto again = test::run_cli({"query", sp, "--to-sqlite", db, "SELECT 1"});
  CHECK(again.status == 2);
  CHECK(test::contains(again.err, "output exists"));
  // The result of SQL, one table per statement with rows; chosen tables.
  auto result = test::run_cli({"query", sp, "--to-sqlite", db, "--force",
                               "SELECT state, count(*) AS n FROM entries GROUP BY state; SELECT 42 AS answer"});
  REQUIRE(result.status == 0);
  auto read = test::run_program({"sqlite3", db, "SELECT name FROM sqlite_schema ORDER BY name",
                                 "SELECT * FROM result ORDER BY state", "SELECT * FROM result_2"});
  CHECK(read.out == "result\nresult_2\nlist-state|300\nmap-state|616\nvalue-state|300\n42\n");
  const std::string chosen = tmp / "chosen.db";
  REQUIRE(test::run_cli({"query", sp, "--to-sqlite", chosen, "--table", "snapshots"}).status == 0);
  CHECK(test::run_program({"sqlite3", chosen, "SELECT name, gc FROM snapshots"}).out == "sp|retained\n");
  // Errors: an unknown table, bad SQL, a damaged snapshot: exit 2 and no file.
  auto unknown = test::run_cli({"query", sp, "--to-sqlite", tmp / "x.db", "--table", "entrys"});
  CHECK(unknown.status == 2);
  CHECK(test::contains(unknown.err, "no such table: entrys"));
  auto bad = test::run_cli({"query", sp, "--to-sqlite", tmp / "x.db", "SELEC 1"});
  CHECK(bad.status == 2);
  CHECK(test::contains(bad.err, "syntax error"));
  const std::string heap = tmp / "heap";
  test::write_heap_savepoint_of_16_key_groups(heap);
  const std::string damaged = test::overwrite_key_group(heap, 5);
  auto broken = test::run_cli({"query", heap, "--to-sqlite", tmp / "x.db"});
  CHECK(broken.status == 2);
  CHECK(test::contains(broken.err, damaged));
  for (const auto& e : fs::directory_iterator(tmp.path())) {
    INFO(e.path());
    CHECK(e.path().filename().string().find("ckpt-tmp") == std::string::npos);
    CHECK(e.path().filename() != "x.db");
  }
}

TEST_CASE("ckpt query --shell runs the sqlite3 shell over the tables", "[cli]") {
  SanitizerRuntime sanitizer;
  REQUIRE(test::program_available("/usr/bin/sqlite3"));
  test::ScratchDir tmp;
  const std::string sp = small_savepoint(tmp);
  const std::string ckpt = shell_quoted(test::build_dir() + "/tools/ckpt");
  auto r = test::run_shell("printf '.mode csv\\nSELECT count(*) AS n FROM entries;\\nSELECT gc FROM snapshots;\\n' | " +
                               ckpt + " query --shell " + shell_quoted(sp),
                           60);
  INFO(r.err);
  CHECK(r.status == 0);
  std::string n = query_csv({sp}, "SELECT count(*) AS n FROM entries");
  std::erase(n, '\r');
  std::erase(r.out, '\r');  // sqlite3's CSV lines end in CRLF too
  CHECK(r.out == n + "gc\nretained\n");
  // A PATH without a snapshot is this command's error, before any shell.
  auto missing = test::run_shell(ckpt + " query --shell " + shell_quoted(tmp / "nowhere") + " < /dev/null", 60);
  CHECK(missing.status == 2);
  CHECK(test::contains(missing.err, "nowhere"));
  auto with_sql = test::run_cli({"query", "--shell", sp, "SELECT 1 FROM entries"});
  CHECK(with_sql.status == 2);
}
