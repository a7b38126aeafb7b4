// Subtasks ahead of the printer spill their NDJSON chunks to a temporary file instead of
// waiting; what is printed stays byte-identical to one worker, with or without the file.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "ckpt/dump.h"
#include "ckpt/generate.h"
#include "ops/entries/dump_tuning.h"
#include "testlib/scoped_settings.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

struct Text : DumpSink {
  std::string text;
  size_t problems = 0;
  void entry(const Entry&) override { FAIL("entry() called on a sink that wants NDJSON text"); }
  bool wants_ndjson() const override { return true; }
  void ndjson(std::string_view lines) override { text += lines; }
  void problem(const Error&) override { ++problems; }
};

// Chunks of a few lines, one in memory per subtask: any worker ahead of the printer spills
// almost at once. Restores the defaults and TMPDIR afterwards.
class TinyBuffers {
 public:
  TinyBuffers() {
    dump_tuning().chunk_bytes = 600;
    dump_tuning().channel_capacity = 1;
  }

 private:
  test::DumpTuningGuard tuning_;
  test::ScopedEnv tmpdir_{"TMPDIR"};
};

std::string generate_uneven_subtasks(const test::ScratchDir& dir, GenerateBackend backend, const char* name) {
  GenerateOptions o;
  o.output = dir / name;
  o.backend = backend;
  o.parallelism = 5;
  o.max_parallelism = 12;  // ranges of 3, 2, 3, 2 and 2 key groups: subtasks of unequal size
  o.keys = 2000;
  o.value_size = 30;
  o.states = {"value", "list"};
  auto r = generate_snapshot(o);
  REQUIRE(r.ok());
  return o.output;
}

std::string dump_text(const std::string& snapshot, int jobs, uint64_t limit = 0) {
  DumpOptions options;
  options.jobs = jobs;
  options.limit = limit;
  Text out;
  auto r = dump_snapshot(snapshot, options, out);
  REQUIRE(r.ok());
  CHECK(out.problems == 0);
  if (limit) CHECK(r->entries == limit);
  return out.text;
}

std::map<std::string, size_t> lines_per_subtask(const std::string& text) {
  std::map<std::string, size_t> n;
  for (size_t at = text.find("\"subtask\":"); at != std::string::npos; at = text.find("\"subtask\":", at + 1))
    ++n[text.substr(at + 10, text.find(',', at) - at - 10)];
  return n;
}

}  // namespace

TEST_CASE("dump with spilled subtasks prints the bytes of one worker - two and four workers", "[unit][state]") {
  // Five subtasks of unequal size in the RocksDB and heap layouts; the hook's count proves
  // that workers ahead of the printer did write to spill files.
  test::ScratchDir dir;
  TinyBuffers tiny;
  ::setenv("TMPDIR", dir.path().c_str(), 1);
  for (auto [backend, name] : {std::pair{GenerateBackend::kRocksDb, "rocksdb"}, {GenerateBackend::kHeap, "heap"}}) {
    INFO(name);
    std::string snapshot = generate_uneven_subtasks(dir, backend, name);
    const std::string one = dump_text(snapshot, 1);
    auto sizes = lines_per_subtask(one);
    REQUIRE(sizes.size() == 5);
    CHECK(sizes["0"] != sizes["1"]);
    for (int jobs : {2, 4}) {
      INFO("jobs " << jobs);
      dump_tuning().spilled_chunks = 0;
      CHECK(dump_text(snapshot, jobs) == one);
      CHECK(dump_tuning().spilled_chunks > 0);
      CHECK(dump_tuning().spill_failures == 0);
    }
  }
  // Spill files are unlinked as soon as they are created: none is left in TMPDIR.
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    CHECK(e.path().filename().string().rfind("ckpt-spill-", 0) == std::string::npos);
}

TEST_CASE("a dump limit inside a spilled subtask prints exactly the first N lines", "[unit][state]") {
  // The limit counts entries at the printer: spilled chunks carry their counts, so a limit in
  // the middle of a later, spilled subtask cuts at the same line as one worker, and nothing
  // beyond it is printed.
  test::ScratchDir dir;
  TinyBuffers tiny;
  ::setenv("TMPDIR", dir.path().c_str(), 1);
  std::string snapshot = generate_uneven_subtasks(dir, GenerateBackend::kRocksDb, "rocksdb");
  const std::string all = dump_text(snapshot, 1);
  auto sizes = lines_per_subtask(all);
  const uint64_t first = sizes["0"];
  // Whether a worker is ahead of the printer when a limit is reached is up to the scheduler
  // (a limit just past subtask 0 can end the run before any other worker wrote a chunk): the
  // spill is proven over the three runs, not by each.
  dump_tuning().spilled_chunks = 0;
  for (uint64_t limit : {first + sizes["1"] / 2, first + sizes["1"] + sizes["2"] + 7, first + 1}) {
    INFO("limit " << limit);
    std::string cut = dump_text(snapshot, 4, limit);
    size_t end = 0;
    for (uint64_t i = 0; i < limit; ++i) end = all.find('\n', end) + 1;
    REQUIRE(cut == all.substr(0, end));
  }
  CHECK(dump_tuning().spilled_chunks > 0);
}

TEST_CASE("without a usable TMPDIR the dump waits as before and prints the same bytes", "[unit][state]") {
  // A spill file that cannot be created is no error: workers fall back to waiting for the
  // printer, and the output is that of one worker.
  test::ScratchDir dir;
  TinyBuffers tiny;
  std::string snapshot = generate_uneven_subtasks(dir, GenerateBackend::kRocksDb, "rocksdb");
  const std::string one = dump_text(snapshot, 1);
  ::setenv("TMPDIR", (dir / "no-such-directory").c_str(), 1);
  for (int jobs : {2, 4}) {
    INFO("jobs " << jobs);
    dump_tuning().spill_failures = 0;
    dump_tuning().spilled_chunks = 0;
    CHECK(dump_text(snapshot, jobs) == one);
    CHECK(dump_tuning().spilled_chunks == 0);
    CHECK(dump_tuning().spill_failures > 0);
  }
}
