// The ckpt program on snapshots rewritten to be hostile: each command ends with exit 2 and an
// error naming the file, the offset and what was expected - never a crash (134 is SIGABRT), a
// runaway allocation or a quiet exit 0. The program runs as a child process with its data
// segment capped, worker threads included (-j 2).
#include <catch2/catch.hpp>

#include <chrono>
#include <climits>
#include <string>
#include <vector>

#include "testlib/child_process.h"
#include "testlib/hostile_inputs.h"
#include "testlib/hostile_snapshot.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

constexpr uint64_t kDataLimit = uint64_t{2} << 30;  // 2 GiB

// Runs ckpt with `args` and checks it could not run (exit 2), saying `expected` on stderr.
test::ChildOutcome require_exit_2(const std::vector<std::string>& args, const std::string& expected) {
  test::ChildOutcome o = test::run_ckpt(args, kDataLimit);
  std::string cmd;
  for (const auto& a : args) cmd += a + " ";
  INFO("ckpt " << cmd << "-> exited " << o.exited << " code " << o.exit_code << " signal " << o.signal
               << "\nstdout: " << o.out.substr(0, 2000) << "\nstderr: " << o.err);
  REQUIRE(o.exited);
  CHECK(o.exit_code == 2);
  CHECK(o.err.find(expected) != std::string::npos);
  return o;
}

}  // namespace

TEST_CASE("an avro schema whose namespace is an array fails every command with exit 2 at its offset", "[cli][corrupt]") {
  // Convert with -j 2 used to abort (nlohmann's type_error escaped a worker thread).
  test::ScratchDir tmp;
  const std::string dir = tmp / "snap";
  REQUIRE(test::generate_rocksdb_savepoint(dir).ok());
  REQUIRE(test::replace_value_serializers(dir, test::avro_snapshot(test::namespace_array_schema())).ok());
  const std::string why = "'namespace' of record Event must be a string, found array";
  for (const char* jobs : {"1", "2"}) {
    auto convert = require_exit_2({"convert", dir, "--to", "heap", "-j", jobs, "--output", tmp / ("heap" + std::string(jobs))}, why);
    CHECK(convert.err.find("at offset 0x") != std::string::npos);
    CHECK(convert.err.find(".meta") != std::string::npos);  // the meta stream that holds the schema
    require_exit_2({"dump", dir, "-j", jobs}, why);
  }
}

TEST_CASE("an avro schema nested 10000 levels fails with exit 2 and not a crash on worker threads", "[cli][corrupt]") {
  test::ScratchDir tmp;
  const std::string dir = tmp / "snap";
  REQUIRE(test::generate_rocksdb_savepoint(dir).ok());
  REQUIRE(test::replace_value_serializers(dir, test::avro_snapshot(test::nested_record_schema(10000))).ok());
  const std::string why = "JSON nested deeper than 256 levels";
  require_exit_2({"convert", dir, "--to", "heap", "-j", "2", "--output", tmp / "heap"}, why);
  require_exit_2({"dump", dir, "-j", "2"}, why);
}

// AddressSanitizer's shadow memory and its 256 MiB quarantine of freed blocks are resident on
// top of what ckpt allocates (372 MiB for a run that allocates a few): the bound that catches a
// runaway allocation of gigabytes is wider there.
#if defined(CKPT_SANITIZED)
constexpr long kRssLimitKib = 1024 * 1024;
#else
constexpr long kRssLimitKib = 256 * 1024;
#endif

TEST_CASE("a key-group range of 2^31-1 fails convert dump restore and verify fast with no runaway allocation",
          "[cli][corrupt]") {
  // Convert --to heap used to size a table by the range: 15-23 GB within a minute. Now the
  // range is refused where `_metadata` states it; each run stays small (the child's data
  // segment is capped at 2 GiB, and its peak RSS is checked) and quick.
  test::ScratchDir tmp;
  const std::string dir = tmp / "snap";
  REQUIRE(test::generate_rocksdb_savepoint(dir).ok());
  REQUIRE(test::set_key_group_range(dir, 0, {0, INT32_MAX}).ok());
  const std::string why = "key-group range 0+2147483647 ends beyond key group 32767";
  const std::vector<std::vector<std::string>> commands = {
      {"convert", dir, "--to", "heap", "-j", "2", "--output", tmp / "heap"},
      {"dump", dir, "-j", "2"},
      {"restore", dir, "-j", "2", "--output", tmp / "restored"},
      {"verify", "--deep", dir, "-j", "2"},
  };
  for (const auto& args : commands) {
    auto start = std::chrono::steady_clock::now();
    test::ChildOutcome o = require_exit_2(args, why);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(args[0] << ": " << seconds << " s, peak RSS " << o.max_rss_kib << " KiB");
    CHECK(o.err.find(dir + "/_metadata") != std::string::npos);
    CHECK(o.err.find("at offset 0x") != std::string::npos);
    CHECK(o.max_rss_kib < kRssLimitKib);
    CHECK(seconds < 30);
  }
}

TEST_CASE("a max parallelism of 2^31-1 is refused by every command before anything is sized by it", "[cli][corrupt]") {
  // Four bytes of `_metadata`: dump, convert and edit refused them, but report --json grew to
  // 13.5 GB and advise to 6 GB. Every command runs the same key-group checks first.
  test::ScratchDir tmp;
  const std::string dir = tmp / "snap";
  REQUIRE(test::generate_rocksdb_savepoint(dir).ok());
  std::string bytes = test::read_file(dir + "/_metadata");
  const std::string par_max("\x00\x00\x00\x02\x00\x00\x00\x80", 8);  // parallelism 2, max parallelism 128
  const size_t at = bytes.find(par_max);
  REQUIRE(at != std::string::npos);
  REQUIRE(bytes.find(par_max, at + 1) == std::string::npos);
  bytes.replace(at + 4, 4, std::string("\x7f\xff\xff\xff", 4));
  test::write_file(dir + "/_metadata", bytes);
  const std::string why = "bad-key-group-range: ";
  const std::vector<std::vector<std::string>> commands = {
      {"report", dir, "--json", "-j", "2"},
      {"report", dir, "--output", tmp / "report.html"},
      {"advise", dir, "-j", "2"},
      {"advise", dir, "--fast"},
      {"inspect", dir},
      {"inspect", dir, "--json", "--count"},
      {"plan", dir, "--shards", "2"},
      {"diff", dir, dir, "--keys"},
      {"diff", dir, dir},
      {"dump", dir, "-j", "2"},
      {"convert", dir, "--to", "heap", "--output", tmp / "heap"},
      {"edit", dir, "--max-parallelism", "256", "--output", tmp / "edited"},
      {"restore", dir, "--output", tmp / "restored"},
      {"compact", dir, "--output", tmp / "compacted"},
      {"relocate", dir, "--relative", "--output", tmp / "relocated"},
  };
  for (const auto& args : commands) {
    auto start = std::chrono::steady_clock::now();
    test::ChildOutcome o = require_exit_2(args, why);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(args[0] << ": " << seconds << " s, peak RSS " << o.max_rss_kib << " KiB");
    CHECK(o.err.find(dir + "/_metadata") != std::string::npos);
    CHECK(o.max_rss_kib < kRssLimitKib);
    CHECK(seconds < 30);
  }
  // verify reports it as a problem, in bounded memory too.
  test::ChildOutcome v = test::run_ckpt({"verify", "--deep", dir}, kDataLimit);
  INFO(v.err << v.out);
  CHECK(v.exit_code == 1);
  CHECK(v.out.find("bad-key-group-range: parallelism 2 and max parallelism 2147483647 leave no key groups") !=
        std::string::npos);
  CHECK(v.max_rss_kib < kRssLimitKib);
}
