// The tables people read name operators as inspect's operator table does: inspect's states table
// and dump's table show an operator's uid where --plan, --uid or the file gives one; a job's
// checkpoint directory given for a snapshot is answered with the snapshots it holds.
#include <catch2/catch.hpp>

#include <string>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace {

// The line of `text` holding `needle`, or "".
std::string line_with(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) return {};
  const size_t from = text.rfind('\n', at) + 1;
  return text.substr(from, text.find('\n', at) - from);
}

}  // namespace

TEST_CASE("inspect's states table and dump's table name operators by the plan's uids", "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  const std::string dir = ckpt::test::sql_corpus_dir() + "/stream-exec-group-aggregate_1/agg-with-state-ttl-hint";
  const std::string sp = dir + "/savepoint", plan = dir + "/plan/agg-with-state-ttl-hint.json";
  const std::string text = ckpt::test::run_cli_ok({"inspect", sp, "--plan", plan}).out;
  const std::string row = line_with(text, "accState");
  CHECK(row.find("55_group-aggregate") != std::string::npos);
  CHECK(line_with(text, "NAMESPACE").find("UID") != std::string::npos);
  // Without names the states table has no uid column to fill.
  CHECK(
      line_with(ckpt::test::run_cli_ok({"inspect", ckpt::test::sample_savepoint_dir()}).out, "NAMESPACE").find("UID") ==
      std::string::npos);

  const std::string dumped = ckpt::test::run_cli_ok({"dump", sp, "--plan", plan, "--format", "table"}).out;
  const std::string entry = line_with(dumped, "accState");
  REQUIRE_FALSE(entry.empty());
  CHECK(entry.rfind("55_group-aggregate", 0) == 0);
  const std::string unnamed = line_with(ckpt::test::run_cli_ok({"dump", sp, "--format", "table"}).out, "accState");
  CHECK(unnamed.rfind("20066aaa", 0) == 0);
}

TEST_CASE("inspect of a job's checkpoint directory names the checkpoints it holds", "[cli]") {
  ckpt::test::ScratchDir s;
  const std::string job = s / "job";
  ckpt::test::run_cli_ok({"generate", "-q", "--output", job, "--chain", "3", "--keys", "200"});
  ckpt::test::CliResult r = ckpt::test::run_cli({"inspect", job});
  CHECK(r.status == 2);
  CHECK(r.err.find("3 snapshots (chk-1, chk-2, chk-3)") != std::string::npos);
  CHECK(r.err.find("run 'ckpt inspect " + job + "/chk-3'") != std::string::npos);
  // An empty directory is still just that.
  ckpt::test::CliResult empty = ckpt::test::run_cli({"inspect", s.path()});
  CHECK(empty.err.find("snapshots (") == std::string::npos);
}
