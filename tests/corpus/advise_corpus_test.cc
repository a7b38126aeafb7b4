// ckpt advise and ckpt report on every snapshot of ../shared: they run without error, and say
// only what the snapshot backs (no state-backend advice without --tm-memory, no chain rules on
// one snapshot, unaligned only where channel state is stored).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using nlohmann::json;

TEST_CASE("advise and report run on every corpus snapshot and say nothing they cannot back", "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  std::vector<std::string> all = ckpt::test::corpus_snapshots();
  for (const std::string& s : ckpt::test::sql_corpus_snapshots()) all.push_back(s);
  REQUIRE(all.size() > 100);
  size_t unaligned = 0;
  for (const std::string& snapshot : all) {
    INFO(snapshot);
    ckpt::test::CliResult a = ckpt::test::run_cli({"advise", "--json", "-q", snapshot});
    INFO(a.err);
    REQUIRE(a.status == 0);
    json adv = json::parse(a.out);
    ckpt::test::CliResult r = ckpt::test::run_cli({"report", "--json", "-q", "--fast", snapshot});
    REQUIRE(r.status == 0);
    json rep = json::parse(r.out);
    CHECK(rep["history"].size() == 1);
    for (const json& x : adv["advice"]) {
      INFO(x.dump());
      CHECK(x["rule"] != "state-backend");  // no --tm-memory
      CHECK(x["rule"] != "incremental");    // one snapshot
      CHECK(x["rule"] != "changelog");
      CHECK_FALSE(x["evidence"].empty());
      CHECK_FALSE(x["settings"].empty());
      if (x["rule"] == "unaligned") {
        CHECK(rep["channel_state"]["handle_count"].get<int>() > 0);
        ++unaligned;
      }
    }
    if (rep["channel_state"]["handle_count"].get<int>() == 0)
      for (const json& x : adv["advice"]) CHECK(x["rule"] != "unaligned");
  }
  WARN(unaligned << " corpus snapshots hold channel state");
}

TEST_CASE("advise ttl on flink-sql savepoints with TTL hints counts what their plans' TTLs expire",
          "[cli][corpus][sql]") {
  // The plans give "1 s" (the aggregate) and "1 d" / "4 d" (the join's left and right): at
  // now = the latest last access + TTL every value of the state is expired and the rule speaks;
  // at the earliest last access + TTL - 1 none is and it is quiet. The counts are checked
  // against the values `ckpt dump` prints.
  CKPT_REQUIRE_SHARED();
  struct Case {
    const char* dir;
    std::map<std::string, int64_t> ttls;
  };
  const std::vector<Case> cases = {
      {"stream-exec-group-aggregate_1/agg-with-state-ttl-hint", {{"accState", 1000}}},
      {"stream-exec-join_1/join-with-state-ttl-hint",
       {{"left-records", 86'400'000}, {"right-records", 4 * 86'400'000LL}}},
  };
  for (const Case& c : cases) {
    const std::string dir = ckpt::test::sql_corpus_dir() + "/" + c.dir;
    const std::string sp = dir + "/savepoint";
    std::string plan;
    for (const auto& f : std::filesystem::directory_iterator(dir + "/plan")) plan = f.path().string();
    INFO(sp);
    std::map<std::string, std::vector<int64_t>> accesses;
    std::istringstream lines(ckpt::test::run_cli_ok({"dump", sp}).out);
    for (std::string line; std::getline(lines, line);) {
      json e = json::parse(line);
      const std::string state = e["state"].get<std::string>();
      if (c.ttls.count(state)) accesses[state].push_back(e["value"]["ttl_ts"].get<int64_t>());
    }
    REQUIRE(accesses.size() == c.ttls.size());
    int64_t first_due = INT64_MAX, last_due = 0;
    for (const auto& [state, ts] : accesses)
      for (int64_t t : ts) {
        first_due = std::min(first_due, t + c.ttls.at(state));
        last_due = std::max(last_due, t + c.ttls.at(state));
      }
    for (int64_t now : {last_due, first_due - 1}) {
      INFO("now " << now);
      json r = json::parse(
          ckpt::test::run_cli_ok({"report", "--json", "-q", "--plan", plan, "--now", std::to_string(now), sp}).out);
      CHECK(r["ttl_now"] == now);
      size_t ttl_states = 0;
      for (const json& op : r["operators"])
        for (const json& st : op["states"]) {
          if (st["ttl"].is_null()) continue;
          const std::string name = st["name"].get<std::string>();
          auto expected = c.ttls.find(name);
          REQUIRE(expected != c.ttls.end());
          ++ttl_states;
          CHECK(st["ttl"]["ttl_ms"] == expected->second);
          const std::vector<int64_t>& ts = accesses[name];
          CHECK(st["ttl"]["value_count"] == ts.size());
          CHECK(st["ttl"]["expired_count"] ==
                std::count_if(ts.begin(), ts.end(), [&](int64_t t) { return t + expected->second <= now; }));
        }
      CHECK(ttl_states == c.ttls.size());
      json adv = json::parse(
          ckpt::test::run_cli_ok({"advise", "--json", "-q", "--plan", plan, "--now", std::to_string(now), sp}).out);
      size_t ttl_advice = 0;
      for (const json& x : adv["advice"]) ttl_advice += x["rule"] == "ttl" ? 1 : 0;
      CHECK(ttl_advice == (now == last_due ? c.ttls.size() : 0));
    }
  }
}
