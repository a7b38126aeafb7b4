// A filter that selects nothing (--state, --subtask, --key-group(s)) is a usage error naming
// what exists, on dump, restore and diff: a script can tell "no such state" from "no entries".
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "ckpt/metadata.h"
#include "ops/selection_check.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::contains;
using ckpt::test::run_cli;
using ckpt::test::sample_savepoint_dir;

TEST_CASE("dump refuses a state subtask or key-group filter that selects nothing and names what exists", "[cli]") {
  auto state = run_cli({"dump", sample_savepoint_dir(), "--state", "nope"});
  CHECK(state.status == 2);
  CHECK(state.out.empty());
  CHECK(contains(state.err, "no state 'nope'"));
  CHECK(contains(state.err, "'count'"));
  CHECK(contains(state.err, "'source-offsets'"));

  auto subtask = run_cli({"dump", sample_savepoint_dir(), "--subtask", "9"});
  CHECK(subtask.status == 2);
  CHECK(subtask.out.empty());
  CHECK(contains(subtask.err, "no subtask 9"));
  CHECK(contains(subtask.err, "has subtasks 0-1"));

  auto groups = run_cli({"dump", sample_savepoint_dir(), "--key-groups", "500-600"});
  CHECK(groups.status == 2);
  CHECK(groups.out.empty());
  CHECK(contains(groups.err, "no subtask holds key groups 500-600"));
  CHECK(contains(groups.err, "holds key groups 0-127"));

  // Subtask 1 holds key groups 64-127 only.
  auto clash = run_cli({"dump", sample_savepoint_dir(), "--subtask", "1", "--key-group", "3"});
  CHECK(clash.status == 2);
  CHECK(contains(clash.err, "subtask 1 holds key groups 64-127"));

  // What exists still dumps, an existing state with its entries.
  auto count =
      run_cli({"dump", sample_savepoint_dir(), "--state", "count", "--subtask", "1", "--key-groups", "64-127"});
  CHECK(count.status == 0);
  CHECK(contains(count.out, "\"state\":\"count\""));
}

TEST_CASE("restore refuses a subtask or key-group filter that selects nothing and names what exists", "[cli]") {
  ckpt::test::ScratchDir s;
  auto subtask = run_cli({"restore", sample_savepoint_dir(), "--output", s / "a", "--subtask", "9"});
  CHECK(subtask.status == 2);
  CHECK(contains(subtask.err, "no subtask 9 with keyed state"));
  CHECK(contains(subtask.err, "has subtasks 0-1"));
  CHECK_FALSE(fs::exists(s / "a"));

  auto groups = run_cli({"restore", sample_savepoint_dir(), "--output", s / "b", "--key-groups", "200-300"});
  CHECK(groups.status == 2);
  CHECK(contains(groups.err, "no subtask with keyed state holds key groups 200-300"));
  CHECK(contains(groups.err, "holds key groups 0-127"));
  CHECK_FALSE(fs::exists(s / "b"));
}

TEST_CASE("diff --keys refuses a state neither snapshot has and names the states", "[cli]") {
  auto nope = run_cli({"diff", sample_savepoint_dir(), sample_savepoint_dir(), "--keys", "--state", "nope"});
  CHECK(nope.status == 2);
  CHECK(contains(nope.err, "no state 'nope'"));
  CHECK(contains(nope.err, "'count'"));
  auto count = run_cli({"diff", sample_savepoint_dir(), sample_savepoint_dir(), "--keys", "--state", "count"});
  CHECK(count.status == 0);
}

TEST_CASE("dump on every Flink snapshot refuses a subtask key group or state that is not there", "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  std::vector<std::string> snapshots = ckpt::test::corpus_snapshots();
  for (const std::string& s : ckpt::test::sql_corpus_snapshots()) snapshots.push_back(s);
  REQUIRE(snapshots.size() > 10);
  size_t state_checked = 0;
  for (const std::string& dir : snapshots) {
    INFO(dir);
    auto metadata = ckpt::read_metadata_file(dir + "/_metadata");
    REQUIRE(metadata.ok());
    auto subtask = run_cli({"dump", dir, "--subtask", "40000"});
    CHECK(subtask.status == 2);
    CHECK(subtask.out.empty());
    CHECK(contains(subtask.err, "no subtask 40000"));
    CHECK(contains(subtask.err, "has subtasks 0"));
    // Beyond Flink's largest max parallelism (32768): no range holds it.
    auto groups = run_cli({"dump", dir, "--key-group", "40000"});
    CHECK(groups.status == 2);
    CHECK(groups.out.empty());
    CHECK(contains(groups.err, "no subtask holds key groups 40000-40000"));
    bool unnamed = false;
    for (const ckpt::OperatorState& op : metadata->operators) unnamed |= ckpt::may_hold_unnamed_states(op);
    auto state = run_cli({"dump", dir, "--state", "no-such-state"});
    if (unnamed) {
      // Raw keyed state and change logs may hold states no proxy names: nothing is refused.
      CHECK(state.status == 0);
      CHECK(state.out.empty());
    } else {
      CHECK(state.status == 2);
      CHECK(state.out.empty());
      CHECK(contains(state.err, "no state 'no-such-state'"));
      ++state_checked;
    }
  }
  CHECK(state_checked > 10);
}
