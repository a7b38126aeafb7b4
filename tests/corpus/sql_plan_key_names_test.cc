// Key rows named from the compiled plan: with the plan, dump prints a SQL operator's key row
// by the columns the plan keys its state by (grouping, join keys, rank partition), on the
// savepoints Flink's planner tests wrote beside their plans (../shared/testdata/flink-sql).
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "ckpt/dump.h"
#include "ckpt/names.h"
#include "testlib/test_support.h"

using namespace ckpt;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

class JsonLines : public DumpSink {
 public:
  void entry(const Entry& e) override { lines.push_back(json::parse(to_ndjson(e))); }
  void problem(const Error& e) override { FAIL(e.to_string()); }
  std::vector<json> lines;
};

std::vector<json> dump_named_by_plan(const std::string& savepoint, const std::string& plan) {
  DumpOptions options;
  if (!plan.empty()) REQUIRE(options.names.add_plan_file(plan).ok());
  JsonLines sink;
  auto r = dump_snapshot(savepoint, options, sink);
  INFO((r.ok() ? std::string() : r.error().to_string()));
  REQUIRE(r.ok());
  return sink.lines;
}

std::string plan_of(const std::string& test) {
  for (const auto& f : fs::directory_iterator(test + "/plan"))
    if (f.path().extension() == ".json") return f.path().string();
  return "";
}

// The keyed entries of the operator `uid`, with and without the plan, line by line: the named
// key holds the positional key's values under the expected names, in the key's column order.
void check_named(const std::string& test, const std::string& uid, const std::vector<std::string>& columns) {
  const std::string dir = test::sql_corpus_dir() + "/" + test;
  std::vector<json> named = dump_named_by_plan(dir + "/savepoint", plan_of(dir));
  std::vector<json> plain = dump_named_by_plan(dir + "/savepoint", "");
  REQUIRE(named.size() == plain.size());
  size_t checked = 0;
  for (size_t i = 0; i < named.size(); ++i) {
    if (named[i].value("uid", "") != uid || named[i]["kind"] != "keyed") {
      CHECK(named[i]["key"] == plain[i]["key"]);  // other operators' keys are left as they were
      continue;
    }
    INFO(named[i].dump());
    const json& key = named[i]["key"];
    REQUIRE(key["fields"].is_object());
    REQUIRE(key["fields"].size() == columns.size());
    for (size_t c = 0; c < columns.size(); ++c) CHECK(key["fields"][columns[c]] == plain[i]["key"]["fields"][c]);
    CHECK(key["kind"] == plain[i]["key"]["kind"]);
    CHECK(named[i]["value"] == plain[i]["value"]);
    ++checked;
  }
  CHECK(checked > 0);
}

}  // namespace

TEST_CASE("a group aggregate's key row is named by its grouping columns", "[ops][corpus][sql]") {
  // GROUP BY b: node 4's "grouping" [0] of its input ROW<`b` BIGINT, `a` INT, ...>.
  CKPT_REQUIRE_SHARED();
  check_named("stream-exec-group-aggregate_1/group-aggregate-simple", "4_group-aggregate", {"b"});
}

TEST_CASE("a join's key row is named by the left input's join key columns", "[ops][corpus][sql]") {
  // joinSpec.leftKeys [0] of the left input ROW<`a` INT, `b` BIGINT, `c` VARCHAR>.
  CKPT_REQUIRE_SHARED();
  check_named("stream-exec-join_1/join-non-window-inner-join", "7_join", {"a"});
}

TEST_CASE("a rank's key row is named by its partition columns", "[ops][corpus][sql]") {
  // PARTITION BY b: "partition" {"fields": [1]} of ROW<`a` INT, `b` VARCHAR, `c` INT NOT NULL>.
  CKPT_REQUIRE_SHARED();
  check_named("stream-exec-rank_1/rank-test-retract-strategy", "8_rank", {"b"});
}

TEST_CASE("every key row the plan names in the flink-sql corpus is named - and matches its key's arity",
          "[ops][corpus][sql]") {
  // Proves the key specs against real keys: wherever the plan names an operator's key columns,
  // every keyed entry of that operator prints them (a key of another arity would stay positional).
  CKPT_REQUIRE_SHARED();
  std::map<std::string, int> named_by_family;
  size_t positional = 0;
  for (const std::string& dir : test::sql_corpus_snapshots()) {
    fs::path test = fs::path(dir).parent_path();
    if (!fs::is_directory(test / "plan")) test = test.parent_path();
    INFO(dir);
    OperatorNames names;
    REQUIRE(names.add_plan_file(plan_of(test.string())).ok());
    for (const json& line : dump_named_by_plan(dir, plan_of(test.string()))) {
      if (line["kind"] != "keyed" || !line.contains("uid")) continue;
      const OperatorName* name = names.find(operator_id_of_uid(line["uid"].get<std::string>()));
      REQUIRE(name);
      const json& key = line["key"];
      if (name->key_columns.empty()) {
        ++positional;
        continue;
      }
      INFO(line.dump());
      REQUIRE(key["fields"].is_object());
      CHECK(key["fields"].size() == name->key_columns.size());
      ++named_by_family[test.parent_path().filename().string()];
    }
  }
  for (const auto& [family, n] : named_by_family) UNSCOPED_INFO(family << ": " << n << " named keys");
  CHECK(named_by_family["stream-exec-group-aggregate_1"] > 0);
  CHECK(named_by_family["stream-exec-join_1"] > 0);
  CHECK(named_by_family["stream-exec-rank_1"] > 0);
  CHECK(positional > 0);  // operators whose key the plan does not fix (window operators' keys)
}
