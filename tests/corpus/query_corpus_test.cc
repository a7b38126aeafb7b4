// ckpt query's entries table against ckpt dump: on Flink's own snapshots (heap, RocksDB,
// canonical and native savepoints, broadcast state, SQL operators named from their plans) every
// row of SELECT * FROM entries is, field for field, the line dump prints, in the same order.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "ckpt/diff.h"
#include "ckpt/dump.h"
#include "ckpt/query.h"
#include "testlib/test_support.h"
#include "testlib/dump_lines.h"

using namespace ckpt;

namespace {

// Each row of `SELECT * FROM entries` printed as dump prints an entry (formats/json.md): the
// cells' JSON text in dump's field order.
struct RowsAsDumpLines : QuerySink {
  std::vector<std::string> names;
  std::vector<std::string> lines;
  void columns(const std::vector<std::string>& n) override { names = n; }
  void row(const std::vector<QueryCell>& cells) override {
    auto text = [&](const char* column) -> std::optional<std::string> {
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == column && cells[i].type == QueryCell::Type::kText) return cells[i].text;
      return std::nullopt;
    };
    auto integer = [&](const char* column) -> std::optional<int64_t> {
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == column && cells[i].type == QueryCell::Type::kInteger) return cells[i].integer;
      return std::nullopt;
    };
    auto quoted = [](const std::optional<std::string>& s) { return nlohmann::json(s.value_or("?")).dump(); };
    std::string line = "{\"operator\":" + quoted(text("operator"));
    if (auto uid = text("uid")) line += ",\"uid\":" + quoted(uid);
    line += ",\"subtask\":" + std::to_string(integer("subtask").value_or(-1));
    line += ",\"state\":" + quoted(text("state"));
    line += ",\"kind\":" + quoted(text("kind"));
    if (auto kg = integer("key_group")) line += ",\"key_group\":" + std::to_string(*kg);
    for (const char* field : {"key", "namespace", "user_key"})
      if (auto json = text(field)) line += ",\"" + std::string(field) + "\":" + *json;
    line += ",\"value\":" + text("value").value_or("?") + "}";
    lines.push_back(line);
  }
};

void check_same_as_dump(const std::string& snapshot, const std::string& plan = "") {
  INFO(snapshot);
  DumpOptions d;
  QueryOptions q;
  if (!plan.empty()) {
    REQUIRE(d.names.add_plan_file(plan).ok());
    REQUIRE(q.names.add_plan_file(plan).ok());
  }
  d.jobs = q.jobs = 2;
  const std::vector<std::string> dumped = test::dump_lines(snapshot, d);
  RowsAsDumpLines rows;
  auto qs = run_query({snapshot}, "SELECT * FROM entries", q, rows);
  INFO((qs.ok() ? std::string() : qs.error().to_string()));
  REQUIRE(qs.ok());
  CHECK(rows.names == std::vector<std::string>{"snapshot", "operator", "uid", "subtask", "state", "kind", "key_group",
                                               "key", "namespace", "user_key", "value", "entry_bytes"});
  REQUIRE(rows.lines.size() == dumped.size());
  for (size_t i = 0; i < rows.lines.size(); ++i) {
    INFO("entry " << i);
    REQUIRE(rows.lines[i] == dumped[i]);
  }
}

// The SQL of ckpt-query(1)'s example of two checkpoints side by side, over snapshots `a` and `b`.
std::string side_by_side_sql(const std::string& a, const std::string& b) {
  const std::string page = test::read_file(test::source_dir() + "/man/ckpt-query.1.md");
  const std::string opening = "    ckpt query chk-41 chk-42 \"";
  const size_t start = page.find(opening);
  REQUIRE(start != std::string::npos);
  const size_t end = page.find("\"\n", start + opening.size());
  REQUIRE(end != std::string::npos);
  std::string sql, text = page.substr(start + opening.size(), end - start - opening.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "\\\n") == 0) {  // a continuation: the next line's indent goes too
      i = text.find_first_not_of(' ', i + 2) - 1;
      sql += ' ';
    } else {
      sql += text[i];
    }
  }
  for (const auto& [name, path] : {std::pair{"'%chk-41'", a}, std::pair{"'%chk-42'", b}}) {
    const size_t at = sql.find(name);
    REQUIRE(at != std::string::npos);
    sql.replace(at, std::string(name).size(), "'%" + path + "'");
  }
  return sql;
}

// (operator, state, change) -> rows of a query's result grouped so.
struct ChangeCounts : QuerySink {
  std::map<std::tuple<std::string, std::string, std::string>, int64_t> counts;
  void columns(const std::vector<std::string>&) override {}
  void row(const std::vector<QueryCell>& c) override { counts[{c[0].text, c[1].text, c[2].text}] += c[3].integer; }
};

}  // namespace

TEST_CASE("Two checkpoints side by side in SQL count the changes diff --keys counts", "[corpus][ops]") {
  // ckpt-query(1)'s FULL JOIN of each side MATERIALIZED, and a plain join that reads the other
  // snapshot once per row (one scan per key, the snapshot opened and checked once for all).
  CKPT_REQUIRE_SHARED();
  const std::string dir = test::corpus_dir() + "/";
  const std::string a = dir + "new-stateful-udf-migration-itcase-flink1.17-hashmap-checkpoint";
  for (const std::string& b : {dir + "new-stateful-udf-migration-itcase-flink1.18-rocksdb-checkpoint",
                              dir + "new-stateful-udf-migration-itcase-flink1.17-rocksdb-savepoint-native"}) {
    INFO(b);
    DiffOptions d;
    d.keys = true;
    Result<DiffReport> diff = diff_snapshots(a, b, d);
    REQUIRE(diff.ok());
    std::map<std::tuple<std::string, std::string, std::string>, int64_t> expected, changed_only;
    for (const KeyDiffCounts& k : diff->keys) {
      if (k.added) expected[{k.operator_id, k.state, "added"}] = static_cast<int64_t>(k.added);
      if (k.removed) expected[{k.operator_id, k.state, "removed"}] = static_cast<int64_t>(k.removed);
      if (k.changed) changed_only[{k.operator_id, k.state, "changed"}] = static_cast<int64_t>(k.changed);
    }
    expected.insert(changed_only.begin(), changed_only.end());

    ChangeCounts side_by_side;
    const std::string grouped = "SELECT operator, state, change, count(*) FROM (" + side_by_side_sql(a, b) + ") GROUP BY 1, 2, 3";
    Result<QuerySummary> r = run_query({a, b}, grouped, QueryOptions{}, side_by_side);
    INFO((r.ok() ? std::string() : r.error().to_string()));
    REQUIRE(r.ok());
    CHECK(side_by_side.counts == expected);

    ChangeCounts joined;
    r = run_query({a, b},
                  "SELECT x.operator, x.state, 'changed', count(*) FROM entries x JOIN entries y ON x.operator = "
                  "y.operator AND x.state = y.state AND x.key = y.key AND x.namespace IS y.namespace AND x.user_key "
                  "IS y.user_key WHERE x.snapshot LIKE '%" + a + "' AND y.snapshot LIKE '%" + b +
                      "' AND x.value IS NOT y.value GROUP BY 1, 2",
                  QueryOptions{}, joined);
    REQUIRE(r.ok());
    CHECK(joined.counts == changed_only);
  }
}

TEST_CASE("SELECT * FROM entries equals ckpt dump line for line on flink corpus snapshots", "[corpus][ops]") {
  CKPT_REQUIRE_SHARED();
  const std::string dir = test::corpus_dir() + "/";
  for (const char* name : {
           "new-stateful-udf-migration-itcase-flink1.20-hashmap-checkpoint",            // heap
           "new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint",            // RocksDB, incremental
           "new-stateful-udf-migration-itcase-flink1.20-rocksdb-savepoint",             // canonical
           "new-stateful-udf-migration-itcase-flink1.20-hashmap-savepoint-native",      // native heap savepoint
           "new-stateful-broadcast-udf-migration-itcase-flink1.17-rocksdb-checkpoint",  // broadcast state
           test::kUdfMigrationChangelog,                                                // changelog
       })
    check_same_as_dump(dir + name);
}

TEST_CASE("SELECT * FROM entries equals ckpt dump line for line on flink-sql savepoints with their plans",
          "[corpus][ops]") {
  CKPT_REQUIRE_SHARED();
  const std::string dir = test::sql_corpus_dir() + "/";
  for (const char* name : {"stream-exec-group-aggregate_1/group-aggregate-simple/savepoint",
                           "stream-exec-join_1/join-inner-join-with-pk/savepoint",
                           "stream-exec-rank_1/rank-test-update-fast-strategy/savepoint"}) {
    const std::string sp = dir + name;
    if (!std::filesystem::exists(sp)) {
      WARN("not in the corpus: " << sp);
      continue;
    }
    check_same_as_dump(sp, test::sql_plan_of(sp));
  }
}

TEST_CASE("WHERE key = on a SQL savepoint finds the key as printed with the plan's field names", "[corpus][ops]") {
  // The key cell names the row's fields after the plan; the reader looks the row up unnamed.
  CKPT_REQUIRE_SHARED();
  const std::string sp = test::sql_corpus_dir() + "/stream-exec-group-aggregate_1/group-aggregate-simple/savepoint";
  QueryOptions q;
  REQUIRE(q.names.add_plan_file(test::sql_plan_of(sp)).ok());
  RowsAsDumpLines all;
  REQUIRE(run_query({sp}, "SELECT * FROM entries WHERE kind = 'keyed'", q, all).ok());
  REQUIRE(!all.lines.empty());
  struct Keys : QuerySink {
    std::vector<std::string> keys;
    void columns(const std::vector<std::string>&) override {}
    void row(const std::vector<QueryCell>& c) override { keys.push_back(c[0].text); }
  } keys;
  REQUIRE(run_query({sp}, "SELECT key FROM entries WHERE kind = 'keyed' LIMIT 1", q, keys).ok());
  REQUIRE(keys.keys.size() == 1);
  CHECK(keys.keys[0].find("{\"fields\":{") == 0);
  RowsAsDumpLines one;
  std::string sql = "SELECT * FROM entries WHERE key = '" + keys.keys[0] + "'";
  auto r = run_query({sp}, sql, q, one);
  REQUIRE(r.ok());
  std::vector<std::string> expected;
  for (const std::string& line : all.lines)
    if (line.find("\"key\":" + keys.keys[0] + ",") != std::string::npos) expected.push_back(line);
  REQUIRE(!expected.empty());
  CHECK(one.lines == expected);
}

TEST_CASE("SELECT * FROM entries equals ckpt dump line for line on every corpus snapshot", "[corpus][ops]") {
  CKPT_REQUIRE_SHARED();
  for (const std::string& s : test::corpus_snapshots()) check_same_as_dump(s);
  for (const std::string& s : test::sql_corpus_snapshots()) check_same_as_dump(s, test::sql_plan_of(s));
}
