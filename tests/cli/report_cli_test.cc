// ckpt report: the numbers against inspect's and diff's, skew planted by `ckpt generate
// --hot-key-groups` found exactly, the page's embedded data equal to --json's, and the output
// rules (a temporary name renamed, --force to replace).
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::run_cli;
using ckpt::test::run_cli_ok;
using nlohmann::json;

namespace {

json report_json(const std::vector<std::string>& args) {
  std::vector<std::string> a = {"report", "--json", "-q"};
  a.insert(a.end(), args.begin(), args.end());
  return json::parse(run_cli_ok(a).out);
}

std::vector<int> hot_of(const json& op) { return op["hot_key_groups"].get<std::vector<int>>(); }

// The JSON object the page embeds, as the page's script reads it.
json embedded(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"ckpt-data\">";
  size_t at = html.find(open);
  REQUIRE(at != std::string::npos);
  at += open.size();
  size_t end = html.find("</script>", at);
  REQUIRE(end != std::string::npos);
  return json::parse(html.substr(at, end - at));
}

}  // namespace

TEST_CASE("report names exactly the key groups generate planted hot", "[cli]") {
  ckpt::test::ScratchDir s;
  for (const char* backend : {"rocksdb", "heap"}) {
    INFO(backend);
    const std::string out = s / backend;
    run_cli_ok({"generate", "-q", "--output", out, "--backend", backend, "--keys", "6000", "--parallelism", "3",
                "--states", "value,map", "--hot-key-groups", "5,77,100", "--hot-factor", "12"});
    json r = report_json({out});
    REQUIRE(r["operators"].size() == 1);
    const json& op = r["operators"][0];
    CHECK(hot_of(op) == std::vector<int>{5, 77, 100});
    // The three largest key groups are the planted ones, in some order.
    std::set<int> top3;
    for (size_t i = 0; i < 3; ++i) top3.insert(op["largest_key_groups"][i].get<int>());
    CHECK(top3 == std::set<int>{5, 77, 100});
    // Key groups of a subtask are counted on that subtask, and every entry is counted once.
    uint64_t entries = 0;
    for (const json& kg : op["key_groups"]) {
      const json& sub = op["subtasks"][kg["subtask"].get<size_t>()];
      CHECK(kg["key_group"].get<int>() >= sub["key_group_range"][0].get<int>());
      CHECK(kg["key_group"].get<int>() <= sub["key_group_range"][1].get<int>());
      entries += kg["entry_count"].get<uint64_t>();
    }
    CHECK(entries == r["entry_count"].get<uint64_t>());
  }
  // Without planted skew no key group is hot; --fast estimates and never names one.
  const std::string even = s / "even";
  run_cli_ok({"generate", "-q", "--output", even, "--keys", "6000", "--parallelism", "3"});
  CHECK(hot_of(report_json({even})["operators"][0]).empty());
  json fast = report_json({s / "rocksdb", "--fast"});
  CHECK(fast["skew_method"] == "estimated");
  CHECK(fast["entry_count"].is_null());
  CHECK(hot_of(fast["operators"][0]).empty());
  CHECK(fast["operators"][0]["key_groups"].size() == 128);
}

TEST_CASE("report --fast names hot key groups only where offsets or SST key ranges prove them", "[cli]") {
  // Heap streams store every key group's offset: exact sizes, the planted groups named. RocksDB
  // files of 4 KiB hold a few key groups each, so a hot group (40 times the keys) fills files of
  // its own; 64 MiB files span a subtask's key groups and prove nothing, so nothing is named.
  ckpt::test::ScratchDir s;
  const std::vector<std::string> common = {"--keys",           "20000",    "--parallelism", "2",
                                           "--hot-key-groups", "5,77,100", "--hot-factor",  "40"};
  auto generate = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> a = {"generate", "-q", "--output", out};
    a.insert(a.end(), common.begin(), common.end());
    a.insert(a.end(), extra.begin(), extra.end());
    run_cli_ok(a);
  };
  generate(s / "heap", {"--backend", "heap"});
  generate(s / "small", {"--sst-size", "4096"});
  generate(s / "large", {});
  for (const char* name : {"heap", "small"}) {
    INFO(name);
    json r = report_json({"--fast", s / name});
    CHECK(r["skew_method"] == "estimated");
    const json& op = r["operators"][0];
    CHECK(hot_of(op) == std::vector<int>{5, 77, 100});
    std::set<int> top3;
    for (size_t i = 0; i < 3; ++i) top3.insert(op["largest_key_groups"][i].get<int>());
    CHECK(top3 == std::set<int>{5, 77, 100});
    // The estimate keeps each subtask's declared bytes.
    for (const json& sub : op["subtasks"]) {
      uint64_t sum = 0;
      for (const json& kg : op["key_groups"])
        if (kg["subtask"] == sub["index"]) sum += kg["bytes"].get<uint64_t>();
      CHECK(sum + 128 >= sub["state_size"].get<uint64_t>());
      CHECK(sum <= sub["state_size"].get<uint64_t>() + 128);
    }
  }
  json large = report_json({"--fast", s / "large"});
  CHECK(hot_of(large["operators"][0]).empty());
  // Counting still names them in every layout.
  CHECK(hot_of(report_json({s / "large"})["operators"][0]) == std::vector<int>{5, 77, 100});
}

TEST_CASE("report's numbers equal inspect's and diff's on a generated chain and the sample savepoint", "[cli]") {
  ckpt::test::ScratchDir s;
  const std::string chain = s / "chain";
  run_cli_ok({"generate", "-q", "--output", chain, "--chain", "4", "--keys", "3000", "--states", "value,list,map"});
  for (const std::string& path : {chain, chain + "/chk-4", ckpt::test::source_dir() + "/testdata/sample-savepoint"}) {
    INFO(path);
    json r = report_json({path});
    const std::string newest = path == chain ? chain + "/chk-4" : path;
    json in = json::parse(run_cli_ok({"inspect", "--json", "--count", newest}).out);
    CHECK(r["state_size"] == in["state_size"]);
    CHECK(r["checkpointed_size"] == in["checkpointed_size"]);
    CHECK(r["checkpoint_id"] == in["checkpoint_id"]);
    REQUIRE(r["operators"].size() == in["operators"].size());
    for (size_t i = 0; i < in["operators"].size(); ++i) {
      const json &a = r["operators"][i], &b = in["operators"][i];
      CHECK(a["id"] == b["id"]);
      CHECK(a["state_size"] == b["state_size"]);
      CHECK(a["checkpointed_size"] == b["checkpointed_size"]);
      CHECK(a["parallelism"] == b["parallelism"]);
      CHECK(a["max_parallelism"] == b["max_parallelism"]);
      // Entries per state as inspect --count counts them (dump's lines).
      for (const json& st : b["states"]) {
        INFO(st["name"]);
        bool found = false;
        for (const json& rs : a["states"])
          if (rs["name"] == st["name"]) {
            found = true;
            CHECK(rs["entry_count"] == st["entry_count"]);
          }
        CHECK(found);
      }
    }
  }
  json r = report_json({chain});
  CHECK(r["job_directory"] == true);
  REQUIRE(r["history"].size() == 4);
  CHECK(r["history"][0]["added_file_count"] == r["history"][0]["file_count"]);
  for (int c = 1; c < 4; ++c) {
    INFO("chk-" << c + 1);
    json d = json::parse(run_cli({"diff", "--json", chain + "/chk-" + std::to_string(c),
                                  chain + "/chk-" + std::to_string(c + 1)}).out);
    const json& h = r["history"][c];
    CHECK(h["name"] == "chk-" + std::to_string(c + 1));
    CHECK(h["added_bytes"] == d["b_incremental_bytes"]);
    CHECK(h["added_file_count"] == d["added_files"].size());
    CHECK(h["shared_file_count"] == d["shared_files"].size());
    CHECK(h["dropped_file_count"] == d["removed_files"].size());
    CHECK(h["shared_file_count"].get<int>() > 0);
  }
  REQUIRE(r["growth"].size() == 1);
  const json& g = r["growth"][0];
  CHECK(g["first_state_size"] == r["history"][0]["state_size"]);
  CHECK(g["last_state_size"] == r["state_size"]);
  CHECK(g["growth_bytes"].get<int64_t>() == g["last_state_size"].get<int64_t>() - g["first_state_size"].get<int64_t>());
  // Named only when it grew (a rewritten bucket loses about a tenth of its keys).
  if (g["growth_bytes"].get<int64_t>() > 0)
    CHECK(r["most_grown"] == r["operators"][0]["id"]);
  else
    CHECK(r["most_grown"].is_null());
}

TEST_CASE("report writes one page under --output whose data is --json's and replaces it only with --force", "[cli]") {
  ckpt::test::ScratchDir s;
  const std::string snap = s / "snap", page = s / "page.html";
  run_cli_ok({"generate", "-q", "--output", snap, "--keys", "500"});
  ckpt::test::CliResult r = run_cli({"report", "-q", snap, "--output", page, "--json"});
  REQUIRE(r.status == 0);
  const std::string html = ckpt::test::read_file(page);
  CHECK(embedded(html) == json::parse(r.out));
  CHECK(html.find("Chart.js v") != std::string::npos);            // the library is inside
  CHECK(html.find("<script src") == std::string::npos);            // and nothing is fetched
  for (const auto& e : fs::directory_iterator(s.path()))           // no temporary left behind
    CHECK(e.path().filename().string().find("ckpt-tmp") == std::string::npos);
  ckpt::test::CliResult again = run_cli({"report", "-q", snap, "--output", page});
  CHECK(again.status == 2);
  CHECK(again.err.find("exists") != std::string::npos);
  CHECK(run_cli({"report", "-q", snap, "--output", page, "--force"}).status == 0);
  CHECK(run_cli({"report", "-q", snap}).status == 2);  // neither --output nor --json
  CHECK(run_cli({"report", "-q", s / "absent", "--json"}).status == 2);
}

TEST_CASE("report and advise name operators by --plan and --uid as inspect does", "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  const std::string dir = ckpt::test::sql_corpus_dir() + "/stream-exec-group-aggregate_1/agg-with-state-ttl-hint";
  const std::string sp = dir + "/savepoint", plan = dir + "/plan/agg-with-state-ttl-hint.json";
  const json r = report_json({sp, "--plan", plan});
  json inspected = json::parse(run_cli_ok({"inspect", "--json", sp, "--plan", plan}).out);
  REQUIRE(r["operators"].size() == inspected["operators"].size());
  for (size_t i = 0; i < r["operators"].size(); ++i) {
    INFO(r["operators"][i]["id"]);
    CHECK(r["operators"][i]["uid"] == inspected["operators"][i]["uid"]);
    CHECK(r["operators"][i]["uid"].is_string());
    CHECK(r["operators"][i]["description"] == inspected["operators"][i]["description"]);
  }
  // --uid alone names the one operator; a uid naming none is a warning.
  ckpt::test::CliResult one = run_cli({"report", "--json", "-q", sp, "--uid", "55_group-aggregate", "--uid", "nope"});
  REQUIRE(one.status == 0);
  CHECK(one.err.find("1 uid names no operator: nope") != std::string::npos);
  bool named = false;
  const json by_uid = json::parse(one.out);
  for (const json& op : by_uid["operators"]) named |= op["uid"] == "55_group-aggregate";
  CHECK(named);
  // advise names the operator of its advice by the plan's uid.
  ckpt::test::CliResult a = run_cli({"advise", "-q", sp, "--plan", plan, "--now", "2024-02-01T00:00:00Z"});
  REQUIRE(a.status == 0);
  CHECK(a.out.find("[ttl] operator '55_group-aggregate' (") != std::string::npos);
  json aj =
      json::parse(run_cli_ok({"advise", "--json", "-q", sp, "--plan", plan, "--now", "2024-02-01T00:00:00Z"}).out);
  REQUIRE(aj["advice"].size() == 1);
  CHECK(aj["advice"][0]["uid"] == "55_group-aggregate");
  for (const json& e : aj["advice"][0]["evidence"])
    if (e["unit"] == "ms_since_epoch") CHECK(e["value"].get<std::string>().ends_with("Z"));
}
