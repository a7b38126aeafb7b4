// ckpt query and ckpt ls: discovery of a generated root of jobs, key lookups that read one key
// group, and the errors (bad SQL, unknown table or column, unreadable snapshot) that exit 2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "ckpt/query.h"
#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/damaged_key_group.h"
#include "testlib/job_dir.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

struct CollectedRows : QuerySink {
  std::vector<std::string> names;
  std::vector<std::vector<QueryCell>> rows;
  void columns(const std::vector<std::string>& n) override { names = n; }
  void row(const std::vector<QueryCell>& c) override { rows.push_back(c); }
};

void generate_into(const std::string& output, GenerateBackend backend, int32_t chain = 0, uint64_t keys = 200) {
  GenerateOptions g;
  g.output = output;
  g.backend = backend;
  g.chain = chain;
  g.keys = keys;
  g.value_size = 16;
  auto s = generate_snapshot(g);
  INFO((s.ok() ? "" : s.error().to_string()));
  REQUIRE(s.ok());
}

// root/job-a: chk-1..chk-3 (RocksDB chain), chk-4 in progress, one heap savepoint;
// root/nested/job-b: chk-1..chk-2 and a canonical savepoint.
void write_root(const std::string& root) {
  fs::create_directories(root + "/nested");
  test::write_job_dir(root + "/job-a");
  fs::create_directories(root + "/job-a/chk-4");
  generate_into(root + "/job-a/savepoint-0a1b2c-000000000001", GenerateBackend::kHeap);
  generate_into(root + "/nested/job-b", GenerateBackend::kRocksDb, 2);
  generate_into(root + "/nested/job-b/savepoint-9f8e7d-000000000002", GenerateBackend::kCanonical);
}

}  // namespace

TEST_CASE("ckpt ls lists exactly the snapshots of a root of jobs with one in progress", "[cli]") {
  test::ScratchDir tmp;
  const std::string root = tmp / "root";
  write_root(root);
  auto listed = list_snapshots(root);
  REQUIRE(listed.ok());
  std::vector<std::string> seen;
  for (const ListedSnapshot& s : *listed) seen.push_back(s.job + "/" + s.name + (s.complete ? "" : " (in progress)"));
  CHECK(seen == std::vector<std::string>{"job-a/chk-1", "job-a/chk-2", "job-a/chk-3", "job-a/chk-4 (in progress)",
                                         "job-a/savepoint-0a1b2c-000000000001", "job-b/chk-1", "job-b/chk-2",
                                         "job-b/savepoint-9f8e7d-000000000002"});
  const ListedSnapshot& chk3 = (*listed)[2];
  CHECK(chk3.kind == "checkpoint");
  CHECK(chk3.id == 3);
  CHECK(chk3.backend == "rocksdb");
  CHECK(chk3.state_size > 0);
  CHECK(chk3.problem.empty());
  CHECK((*listed)[3].id == 4);
  CHECK((*listed)[4].kind == "savepoint");
  CHECK((*listed)[4].backend == "heap");
  CHECK((*listed)[7].format == "savepoint-canonical");

  // A job directory alone, and one snapshot.
  auto job = list_snapshots(root + "/job-a");
  REQUIRE(job.ok());
  CHECK(job->size() == 5);
  auto one = list_snapshots(root + "/job-a/chk-2/_metadata");
  REQUIRE(one.ok());
  REQUIRE(one->size() == 1);
  CHECK((*one)[0].job == "job-a");
  CHECK((*one)[0].name == "chk-2");

  // The same through the program, and its JSON document against the schema.
  auto text = test::run_cli({"ls", root});
  CHECK(text.status == 0);
  CHECK(text.out.find("in progress (no _metadata)") != std::string::npos);
  auto json = test::run_cli({"ls", "--json", root});
  REQUIRE(json.status == 0);
  nlohmann::json doc = nlohmann::json::parse(json.out);
  CHECK(doc["schema"] == "ckpt.ls/2");
  CHECK(doc["snapshot_count"] == 8);
  CHECK(doc["incomplete_count"] == 1);
  test::ScratchDir out;
  test::write_file(out / "ls.1.json", json.out);
  auto v = test::run_program({"python3", test::source_dir() + "/tests/tools/validate_json.py",
                              test::source_dir() + "/formats/schemas", out.path()},
                             120);
  INFO(v.out << v.err);
  REQUIRE(v.status != 3);  // python3-jsonschema missing: a failure, not a pass
  CHECK(v.status == 0);

  // The snapshots table holds the same, complete or not.
  auto q = test::run_cli(
      {"query", root, "SELECT name, complete FROM snapshots WHERE job = 'job-a' ORDER BY name", "--format", "csv"});
  CHECK(q.status == 0);
  CHECK(q.out == "name,complete\r\nchk-1,1\r\nchk-2,1\r\nchk-3,1\r\nchk-4,0\r\nsavepoint-0a1b2c-000000000001,1\r\n");
  // An empty directory holds no snapshot.
  fs::create_directories(tmp / "empty");
  auto none = test::run_cli({"ls", tmp / "empty"});
  CHECK(none.status == 2);
  CHECK(none.err.find("no snapshot here") != std::string::npos);
}

TEST_CASE("WHERE key = reads only the key group Flink assigns the key", "[ops]") {
  // A heap savepoint whose key group 5 of subtask 0 is overwritten: a full scan fails there; a
  // lookup of a key of another key group never reads those bytes, and reads a fraction of the
  // bytes the full scan reads (the reader's progress counters).
  test::ScratchDir tmp;
  const std::string sp = tmp / "sp";
  test::write_heap_savepoint_of_16_key_groups(sp);

  Progress whole;
  QueryOptions all_options;
  all_options.progress = &whole;
  CollectedRows all;
  REQUIRE(run_query({sp}, "SELECT key_group, key FROM entries", all_options, all).ok());
  std::string inside, elsewhere;
  for (const auto& r : all.rows) {
    if (r[0].integer == 5 && inside.empty()) inside = r[1].text;
    if (r[0].integer == 9 && elsewhere.empty()) elsewhere = r[1].text;
  }
  REQUIRE(!inside.empty());
  REQUIRE(!elsewhere.empty());
  const std::string lookup = "SELECT key_group, key FROM entries WHERE key = '" + elsewhere + "'";
  Progress point;
  QueryOptions point_options;
  point_options.progress = &point;
  CollectedRows before;
  REQUIRE(run_query({sp}, lookup, point_options, before).ok());
  REQUIRE(!before.rows.empty());
  for (const auto& r : before.rows) CHECK(r[1].text == elsewhere);
  CHECK(point.bytes_done.load() * 8 < whole.bytes_done.load());

  const std::string damaged = test::overwrite_key_group(sp, 5);

  CollectedRows broken;
  CHECK(!run_query({sp}, "SELECT count(*) FROM entries", {}, broken).ok());
  CHECK(!run_query({sp}, "SELECT * FROM entries WHERE key = '" + inside + "'", {}, broken).ok());
  CollectedRows after;
  auto found = run_query({sp}, lookup, {}, after);
  INFO((found.ok() ? "" : found.error().to_string()));
  REQUIRE(found.ok());
  CHECK(after.rows.size() == before.rows.size());
  // The damage is an error naming the file, exit 2.
  auto cli = test::run_cli({"query", sp, "SELECT count(*) FROM entries"});
  CHECK(cli.status == 2);
  CHECK(cli.err.find(damaged) != std::string::npos);
}

namespace {

// `lookup` (a `key IN (...)` query) finds the rows of `scan` (the same rows by a condition no
// reader takes), in the same order, reading at most the snapshot once more than the scan
// (its subquery reads it whole once): one lookup pass, not a key group read per key. The rows.
CollectedRows check_lookup_in_one_scan(const std::string& sp, const std::string& scan, const std::string& lookup) {
  INFO(sp);
  Progress whole;
  QueryOptions scan_options;
  scan_options.progress = &whole;
  CollectedRows expected;
  REQUIRE(run_query({sp}, scan, scan_options, expected).ok());
  REQUIRE(expected.rows.size() > 900);
  Progress point;
  QueryOptions lookup_options;
  lookup_options.progress = &point;
  CollectedRows found;
  auto r = run_query({sp}, lookup, lookup_options, found);
  INFO((r.ok() ? "" : r.error().to_string()));
  REQUIRE(r.ok());
  REQUIRE(found.rows.size() == expected.rows.size());
  for (size_t i = 0; i < found.rows.size(); ++i) {
    CHECK(found.rows[i][0].integer == expected.rows[i][0].integer);
    CHECK(found.rows[i][1].text == expected.rows[i][1].text);
    CHECK(found.rows[i][2].text == expected.rows[i][2].text);
  }
  WARN(sp << " whole " << whole.bytes_done.load() << " lookups " << point.bytes_done.load());
  CHECK(point.bytes_done.load() <= 2 * whole.bytes_done.load() + (64 << 10));
  return expected;
}

}  // namespace

TEST_CASE("WHERE key IN a subquery looks each key up in its own key group in one scan", "[ops]") {
  // 2,000 keys (RocksDB and heap), about half of them looked up by `key IN (SELECT ...)`:
  // the rows are the keys' entries, and the bytes read are a lookup's, not a scan of every
  // key group per key (as each key was sought in every looked-up key group before).
  test::ScratchDir tmp;
  for (GenerateBackend backend : {GenerateBackend::kRocksDb, GenerateBackend::kHeap}) {
    const std::string sp = tmp / (backend == GenerateBackend::kHeap ? "heap" : "rocks");
    generate_into(sp, backend, 0, 2000);
    check_lookup_in_one_scan(sp,
                             "SELECT key_group, key, value FROM entries WHERE key_group % 2 = 0 AND kind = 'keyed' "
                             "ORDER BY 2, 3",
                             "SELECT key_group, key, value FROM entries WHERE key IN (SELECT key FROM entries "
                             "WHERE key_group % 2 = 0) ORDER BY 2, 3");
  }
}

TEST_CASE("WHERE key IN a subquery on a state table looks each key up in its own key group in one scan", "[ops]") {
  // As on `entries`: the `"<operator>.<state>"` table's key column takes an IN list whole, so
  // about 1,000 keys cost one lookup pass, not one read of a key group per key.
  test::ScratchDir tmp;
  for (GenerateBackend backend : {GenerateBackend::kRocksDb, GenerateBackend::kHeap}) {
    const std::string sp = tmp / (backend == GenerateBackend::kHeap ? "heap" : "rocks");
    generate_into(sp, backend, 0, 2000);
    INFO(sp);
    CollectedRows tables;
    REQUIRE(run_query({sp}, "SELECT DISTINCT table_name FROM state_columns WHERE state = 'value-state'", {}, tables)
                .ok());
    REQUIRE(tables.rows.size() == 1);
    const std::string table = "\"" + tables.rows[0][0].text + "\"";
    // A NULL and a key no subtask holds in the list change nothing.
    const CollectedRows expected = check_lookup_in_one_scan(
        sp, "SELECT key_group, key, value FROM " + table + " WHERE key_group % 2 = 0 ORDER BY 2, 3",
        "SELECT key_group, key, value FROM " + table + " WHERE key IN (SELECT key FROM " + table +
            " WHERE key_group % 2 = 0 UNION ALL SELECT NULL UNION ALL SELECT 'no such key') ORDER BY 2, 3");
    // A list of two keys finds their two rows; a list of NULLs none.
    CollectedRows two;
    REQUIRE(run_query({sp}, "SELECT key FROM " + table + " WHERE key IN ('" + expected.rows[0][1].text + "', '" +
                                 expected.rows[1][1].text + "', NULL) ORDER BY 1",
                      {}, two).ok());
    REQUIRE(two.rows.size() == 2);
    CHECK(two.rows[0][0].text == expected.rows[0][1].text);
    CHECK(two.rows[1][0].text == expected.rows[1][1].text);
    CollectedRows none;
    REQUIRE(run_query({sp}, "SELECT count(*) FROM " + table + " WHERE key IN (NULL, NULL)", {}, none).ok());
    CHECK(none.rows.at(0).at(0).integer == 0);
  }
}

TEST_CASE("ckpt query: bad SQL - an unknown table or column - an unreadable snapshot exit 2 naming the problem",
          "[cli]") {
  const std::string sample = test::sample_savepoint_dir();
  auto ok = test::run_cli({"query", sample, "SELECT count(*) AS n FROM entries", "--format", "json"});
  INFO(ok.err);
  REQUIRE(ok.status == 0);
  auto dumped = test::run_cli_ok({"dump", sample});
  const auto lines = std::count(dumped.out.begin(), dumped.out.end(), '\n');
  CHECK(nlohmann::json::parse(ok.out) == nlohmann::json::parse("[{\"n\":" + std::to_string(lines) + "}]"));

  auto syntax = test::run_cli({"query", sample, "SELEC key FROM entries"});
  CHECK(syntax.status == 2);
  CHECK(syntax.err.find("syntax error") != std::string::npos);
  auto table = test::run_cli({"query", sample, "SELECT * FROM entrys"});
  CHECK(table.status == 2);
  CHECK(table.err.find("no such table: entrys") != std::string::npos);
  auto column = test::run_cli({"query", sample, "SELECT valu FROM entries"});
  CHECK(column.status == 2);
  CHECK(column.err.find("no such column: valu") != std::string::npos);
  auto attach = test::run_cli({"query", sample, "ATTACH DATABASE '/tmp/ckpt-query-attach.db' AS x"});
  CHECK(attach.status == 2);
  CHECK(!fs::exists("/tmp/ckpt-query-attach.db"));

  test::ScratchDir tmp;
  fs::create_directories(tmp / "chk-3");
  test::write_file(tmp / "chk-3/_metadata", std::string("\x00\x00\x00\x01", 4));
  auto unreadable = test::run_cli({"query", tmp.path(), "SELECT * FROM entries"});
  CHECK(unreadable.status == 2);
  CHECK(unreadable.err.find(tmp / "chk-3/_metadata") != std::string::npos);
  // ls lists it with its problem and exits 1.
  auto ls = test::run_cli({"ls", tmp.path()});
  CHECK(ls.status == 1);
  CHECK(ls.out.find("unreadable") != std::string::npos);
}

TEST_CASE("ckpt query --keep-going gives the rows of the undamaged key groups and lists the damaged one",
          "[cli][corrupt]") {
  test::ScratchDir tmp;
  const std::string sp = tmp / "sp";
  test::write_heap_savepoint_of_16_key_groups(sp);
  const std::string per_group = "SELECT key_group, count(*) FROM entries GROUP BY key_group ORDER BY key_group";
  CollectedRows whole;
  REQUIRE(run_query({sp}, per_group, {}, whole).ok());
  CollectedRows tables;
  REQUIRE(run_query({sp}, "SELECT DISTINCT table_name FROM state_columns", {}, tables).ok());
  REQUIRE(tables.rows.size() == 1);
  const std::string state_count = "SELECT count(*) FROM \"" + tables.rows[0][0].text + "\"";
  std::vector<std::pair<int64_t, int64_t>> expected;
  int64_t expected_total = 0;
  for (const auto& r : whole.rows)
    if (r[0].integer != 5) {
      expected.emplace_back(r[0].integer, r[1].integer);
      expected_total += r[1].integer;
    }
  REQUIRE(expected.size() + 1 == whole.rows.size());

  const std::string damaged = test::overwrite_key_group(sp, 5);

  QueryOptions keep_going;
  keep_going.keep_going = true;
  CollectedRows kept;
  auto r = run_query({sp}, per_group, keep_going, kept);
  INFO((r.ok() ? "" : r.error().to_string()));
  REQUIRE(r.ok());
  REQUIRE(r->problems.size() == 1);
  CHECK(r->problems[0].to_string().find(damaged) != std::string::npos);
  std::vector<std::pair<int64_t, int64_t>> got;
  for (const auto& row : kept.rows) got.emplace_back(row[0].integer, row[1].integer);
  CHECK(got == expected);
  // The state's own table steps over the same part.
  CollectedRows state_rows;
  auto s = run_query({sp}, state_count, keep_going, state_rows);
  REQUIRE(s.ok());
  CHECK(s->problems.size() == 1);
  CHECK(state_rows.rows.at(0)[0].integer == expected_total);
  CHECK(!run_query({sp}, state_count, {}, state_rows).ok());

  // The program: the rows and the problem, exit 1; without --keep-going the error, exit 2.
  auto cli = test::run_cli({"query", sp, "SELECT count(*) AS n FROM entries", "--keep-going", "--format", "csv"});
  CHECK(cli.status == 1);
  CHECK(cli.out == "n\r\n" + std::to_string(expected_total) + "\r\n");
  CHECK(cli.err.find(damaged) != std::string::npos);
  auto strict = test::run_cli({"query", sp, "SELECT count(*) AS n FROM entries", "--format", "csv"});
  CHECK(strict.status == 2);
  CHECK(strict.err.find(damaged) != std::string::npos);
  CHECK(strict.err.find("offset") != std::string::npos);
}

TEST_CASE("Key equality on a state table reads only the key group Flink assigns the key", "[ops][corrupt]") {
  // As for `entries`: with key group 5 overwritten, a lookup of a key of key group 9 in the
  // state's own table still answers, as it never reads key group 5; a scan fails.
  test::ScratchDir tmp;
  const std::string sp = tmp / "sp";
  test::write_heap_savepoint_of_16_key_groups(sp);
  CollectedRows described;
  REQUIRE(run_query({sp}, "SELECT table_name, column_name FROM state_columns WHERE field = 'key'", {}, described).ok());
  REQUIRE(!described.rows.empty());
  const std::string table = "\"" + described.rows[0][0].text + "\"";
  std::string columns;
  for (const auto& r : described.rows) columns += (columns.empty() ? "" : ", ") + ("\"" + r[1].text + "\"");
  CollectedRows in_group_9;
  REQUIRE(
      run_query({sp}, "SELECT " + columns + " FROM " + table + " WHERE key_group = 9 LIMIT 1", {}, in_group_9).ok());
  REQUIRE(in_group_9.rows.size() == 1);
  std::string where;
  for (size_t i = 0; i < described.rows.size(); ++i) {
    const QueryCell& v = in_group_9.rows[0][i];
    REQUIRE((v.type == QueryCell::Type::kInteger || v.type == QueryCell::Type::kText));
    where += (i ? " AND \"" : "\"") + described.rows[i][1].text +
             "\" = " + (v.type == QueryCell::Type::kInteger ? std::to_string(v.integer) : "'" + v.text + "'");
  }
  const std::string lookup = "SELECT key_group FROM " + table + " WHERE " + where;
  CollectedRows before;
  REQUIRE(run_query({sp}, lookup, {}, before).ok());
  REQUIRE(!before.rows.empty());

  test::overwrite_key_group(sp, 5);
  CollectedRows scan;
  CHECK(!run_query({sp}, "SELECT count(*) FROM " + table, {}, scan).ok());
  CollectedRows after;
  auto found = run_query({sp}, lookup, {}, after);
  INFO((found.ok() ? "" : found.error().to_string()));
  REQUIRE(found.ok());
  CHECK(after.rows.size() == before.rows.size());
  for (const auto& r : after.rows) CHECK(r[0].integer == 9);
}
