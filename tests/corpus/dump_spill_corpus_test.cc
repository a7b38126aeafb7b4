// On Flink's own snapshots, subtasks that spill to disk ahead of the printer change nothing.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ckpt/dump.h"
#include "ops/entries/dump_tuning.h"
#include "testlib/scoped_settings.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

struct Ndjson : DumpSink {
  std::string text;
  std::vector<std::string> problems;
  void entry(const Entry&) override { FAIL("entry() called on a sink that wants NDJSON text"); }
  bool wants_ndjson() const override { return true; }
  void ndjson(std::string_view lines) override { text += lines; }
  void problem(const Error& e) override { problems.push_back(e.to_string()); }
};

}  // namespace

TEST_CASE("every corpus snapshot dumps the same bytes with three spilling workers as with one", "[corpus][state]") {
  // Chunks of about one line and one chunk in memory per subtask, so that every multi-subtask
  // snapshot spills; -j 3 must print exactly what -j 1 prints, problems included.
  CKPT_REQUIRE_SHARED();
  test::DumpTuningGuard restored;
  dump_tuning().chunk_bytes = 1;
  dump_tuning().channel_capacity = 1;
  size_t compared = 0;
  for (const std::string& dir : test::corpus_snapshots()) {
    INFO(dir);
    DumpOptions options;
    options.keep_going = true;
    Ndjson one;
    auto a = dump_snapshot(dir, options, one);
    options.jobs = 3;
    Ndjson three;
    auto b = dump_snapshot(dir, options, three);
    REQUIRE(a.ok() == b.ok());
    CHECK(three.problems == one.problems);
    REQUIRE(three.text == one.text);
    if (!one.text.empty()) ++compared;
  }
  CHECK(compared >= 100);
  CHECK(dump_tuning().spilled_chunks > 1000);
  CHECK(dump_tuning().spill_failures == 0);
}
