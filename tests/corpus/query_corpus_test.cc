// ckpt query's entries table against ckpt dump: on Flink's own snapshots (heap, RocksDB,
// canonical and native savepoints, broadcast state, SQL operators named from their plans) every
// row of SELECT * FROM entries is, field for field, the line dump prints, in the same order.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

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

}  // namespace

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
