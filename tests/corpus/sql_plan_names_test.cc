// Every operator of every flink-sql savepoint is named by the compiled plan it was written from:
// the uid Flink's planner gives it hashes to the id `_metadata` stores.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "ckpt/inspect.h"
#include "ckpt/names.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;
using nlohmann::json;

TEST_CASE("a compiled plan names every operator of every flink-sql savepoint it made", "[ops][corpus][sql]") {
  CKPT_REQUIRE_SHARED();
  size_t operators = 0;
  for (const std::string& dir : test::sql_corpus_snapshots()) {
    INFO(dir);
    const std::string plan = test::sql_plan_of(dir);
    REQUIRE_FALSE(plan.empty());
    InspectOptions options;
    options.states = false;
    REQUIRE(options.names.add_plan_file(plan).ok());
    Result<InspectReport> r = inspect_snapshot(dir, options);
    REQUIRE(r.ok());
    for (const OperatorSummary& op : r->operators) {
      INFO(op.id);
      CHECK_FALSE(op.uid.empty());
      CHECK_FALSE(op.description.empty());
      CHECK(operator_id_hex(operator_id_of_uid(op.uid)) == op.id);
      ++operators;
    }
    CHECK(r->unmatched_uids.empty());
  }
  CHECK(operators > 95);
}

TEST_CASE("inspect and dump --plan print each operator's uid and description", "[cli][corpus][sql]") {
  CKPT_REQUIRE_SHARED();
  const std::string test = test::sql_corpus_dir() + "/stream-exec-group-aggregate_1/agg-with-state-ttl-hint";
  const std::string plan = test + "/plan/agg-with-state-ttl-hint.json";
  test::CliResult inspect =
      test::run_cli_ok({"inspect", test + "/savepoint", "--json", "--plan", plan, "--uid", "nowhere"});
  json report = json::parse(inspect.out);
  bool seen = false;
  for (const json& op : report["operators"]) {
    if (op["id"] != "20066aaa5f4902f5627b7c13fb0ab2a5") continue;
    seen = true;
    CHECK(op["uid"] == "55_group-aggregate");
    CHECK(op["description"].get<std::string>().rfind("GroupAggregate(groupBy=[b]", 0) == 0);
  }
  CHECK(seen);
  CHECK(report["unmatched_uids"] == json::array({"nowhere"}));
  CHECK(inspect.err.find("1 uid names no operator: nowhere") != std::string::npos);

  test::CliResult text = test::run_cli_ok({"inspect", test + "/savepoint", "--plan", plan});
  CHECK(text.out.find("DESCRIPTION") != std::string::npos);
  CHECK(text.out.find("57_constraint-validator") != std::string::npos);

  // The uid selects the operator and every dump line carries it.
  test::CliResult dump = test::run_cli_ok(
      {"dump", test + "/savepoint", "--plan", plan, "--operator", "55_group-aggregate", "--limit", "1"});
  size_t lines = 0;
  for (size_t at = 0; at < dump.out.size(); at = dump.out.find('\n', at) + 1) {
    json line = json::parse(dump.out.substr(at, dump.out.find('\n', at) - at));
    CHECK(line["operator"] == "20066aaa5f4902f5627b7c13fb0ab2a5");
    CHECK(line["uid"] == "55_group-aggregate");
    ++lines;
  }
  CHECK(lines == 1);

  test::CliResult verify = test::run_cli_ok({"verify", test + "/savepoint", "--json", "--uid", "57_sink"});
  json v = json::parse(verify.out);
  REQUIRE(v["named_operators"].size() == 1);
  CHECK(v["named_operators"][0]["operator"] == "2d990b87135466aa48588de9a63de3dd");
  CHECK(v["unmatched_uids"].empty());

  test::CliResult diff = test::run_cli({"diff", test + "/savepoint", test + "/savepoint", "--plan", plan});
  CHECK(diff.status == 0);
  CHECK(diff.out.find("  20066aaa5f4902f5627b7c13fb0ab2a5  55_group-aggregate  GroupAggregate(") != std::string::npos);
}
