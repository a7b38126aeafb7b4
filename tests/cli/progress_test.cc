// Progress on standard error: shown on a terminal or with --progress, never on standard output,
// never with --quiet, and its numbers are the work's.
#include <catch2/catch.hpp>

#include <string>

#include "progress_meter.h"
#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

size_t line_count(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace

TEST_CASE("the progress line says bytes done of the total with entries and rate and time left", "[cli]") {
  using cli::ProgressMeter;
  CHECK(ProgressMeter::render("dump", 50 << 20, 100 << 20, 1234, 2.0) ==
        "ckpt dump: 50.0 MiB of 100.0 MiB (50%), 1234 entries, 25.0 MiB/s, ETA 2 s");
  // Counted past the total (a shared file read twice): never over 100%, no time left.
  CHECK(ProgressMeter::render("verify", 300, 200, 0, 1.0) == "ckpt verify: 200 B of 200 B (100%), 200 B/s");
  // Before the total is known, and in the first half second: no percentage, no rate.
  CHECK(ProgressMeter::render("inspect", 2048, 0, 7, 0.1) == "ckpt inspect: 2.0 KiB, 7 entries");
}

TEST_CASE("dump --progress prints a summary on stderr and leaves stdout as it was", "[cli]") {
  auto plain = test::run_cli_ok({"dump", test::sample_savepoint_dir()});
  CHECK(plain.err.empty());  // stderr is no terminal here: no progress unless asked
  auto shown = test::run_cli_ok({"dump", test::sample_savepoint_dir(), "--progress"});
  CHECK(shown.out == plain.out);
  const size_t entries = line_count(plain.out);
  REQUIRE(entries > 0);
  // The last line: the whole state read, every entry counted.
  CHECK(shown.err.find("ckpt dump: ") != std::string::npos);
  CHECK(shown.err.find("(100%), " + std::to_string(entries) + " entries") != std::string::npos);
  CHECK(shown.err.find(", done in ") != std::string::npos);
  auto quiet = test::run_cli_ok({"dump", test::sample_savepoint_dir(), "--progress", "--quiet"});
  CHECK(quiet.out == plain.out);
  CHECK(quiet.err.empty());
}

TEST_CASE("inspect --count and verify --deep count what they read", "[cli]") {
  auto count = test::run_cli_ok({"inspect", test::sample_savepoint_dir(), "--count", "--progress"});
  CHECK(count.err.find("ckpt inspect: ") != std::string::npos);
  CHECK(count.err.find("(100%)") != std::string::npos);
  CHECK(count.err.find(" entries") != std::string::npos);
  auto deep = test::run_cli_ok({"verify", test::sample_savepoint_dir(), "--deep", "--progress"});
  CHECK(deep.err.find("ckpt verify: ") != std::string::npos);
  CHECK(deep.err.find("(100%)") != std::string::npos);
  // Without the reading work there is nothing to show.
  auto quick = test::run_cli_ok({"verify", test::sample_savepoint_dir(), "--progress"});
  CHECK(quick.err.empty());
}

TEST_CASE("on a terminal the progress line is redrawn in place and cleared at the end", "[cli]") {
  // script(1) gives the program a pseudo-terminal: stderr is a terminal, so progress is on by
  // default; verify prints its report on the same terminal after the line is cleared.
  CKPT_REQUIRE_PROGRAM("/usr/bin/script");
  const std::string ckpt = test::build_dir() + "/tools/ckpt";
  auto r = test::run_program({"script", "-qec", ckpt + " verify --deep " + test::sample_savepoint_dir(), "/dev/null"});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("\r\x1b[K") != std::string::npos);
  auto q = test::run_program(
      {"script", "-qec", ckpt + " verify --deep --quiet " + test::sample_savepoint_dir(), "/dev/null"});
  REQUIRE(q.status == 0);
  CHECK(q.out.find("\x1b[K") == std::string::npos);
}

TEST_CASE("work counted in parts shows entries and the share of parts done", "[cli]") {
  CHECK(cli::ProgressMeter::render("generate", 0, 0, 500, 2.0, 1, 4) ==
        "ckpt generate: 500 entries (25%), 250 entries/s, ETA 6 s");
  CHECK(cli::ProgressMeter::render("generate", 0, 0, 9, 0.2, 9, 4) == "ckpt generate: 9 entries (100%)");
}

TEST_CASE("generate convert restore and compact report their work with --progress", "[cli]") {
  test::ScratchDir tmp;
  auto gen = test::run_cli_ok({"generate", "--output", tmp / "g", "--keys", "2000", "--progress"});
  // One value-state entry per key, every key group written.
  CHECK(gen.err.find("ckpt generate: 2000 entries (100%)") != std::string::npos);
  auto conv = test::run_cli_ok({"convert", tmp / "g", "--to", "heap", "--output", tmp / "h", "--progress"});
  CHECK(conv.err.find("ckpt convert: ") != std::string::npos);
  CHECK(conv.err.find("(100%), 2000 entries") != std::string::npos);
  auto rest = test::run_cli_ok({"restore", tmp / "h", "--output", tmp / "r", "--progress"});
  CHECK(rest.err.find("ckpt restore: ") != std::string::npos);
  CHECK(rest.err.find("(100%)") != std::string::npos);
  test::run_cli_ok({"generate", "--output", tmp / "chain", "--keys", "2000", "--chain", "2", "--quiet"});
  auto comp = test::run_cli_ok({"compact", tmp / "chain/chk-2", "--output", tmp / "c", "--progress"});
  CHECK(comp.err.find("ckpt compact: ") != std::string::npos);
  CHECK(comp.err.find("(100%)") != std::string::npos);
  auto chain = test::run_cli_ok({"generate", "--output", tmp / "chain2", "--keys", "100", "--chain", "3", "--progress"});
  CHECK(chain.err.find("ckpt generate: ") != std::string::npos);
  CHECK(chain.err.find("(100%)") != std::string::npos);
}
