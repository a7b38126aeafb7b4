// ckpt advise and ckpt report on every snapshot of ../shared: they run without error, and say
// only what the snapshot backs (no state-backend advice without --tm-memory, no chain rules on
// one snapshot, unaligned only where channel state is stored).
#include <catch2/catch.hpp>

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
