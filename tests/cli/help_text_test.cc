// What --help says about option values: one range for --jobs in every command, and an option's
// choices said once (its value name lists them: no ":{...}" of the validator after it).
#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <string>

#include "command.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using ckpt::test::run_cli;

TEST_CASE("every command that takes --jobs takes the same range and refuses the same values", "[cli]") {
  std::set<std::string> ranges;
  int commands = 0;
  for (const auto& c : ckpt::cli::commands()) {
    const std::string help = run_cli({c.name, "--help"}).out;
    std::smatch jobs;
    if (!std::regex_search(help, jobs, std::regex(R"(-j,--jobs (N[^\n]*\]))"))) continue;
    ++commands;
    INFO(c.name << ": " << jobs[0].str());
    ranges.insert(jobs[1].str());
    // Refused while the command line is read, before any file is opened, with one message.
    const ckpt::test::CliResult zero = run_cli({c.name, "--jobs", "0"});
    CHECK(zero.status == 2);
    CHECK(ckpt::test::contains(zero.err, "--jobs: Value 0 not in range 1 to 1024"));
  }
  CHECK(commands >= 10);
  CHECK(ranges == std::set<std::string>{"N:INT in [1 - 1024]"});
  // The top of that range works where it was refused before (dump took at most 256).
  CHECK(run_cli({"dump", ckpt::test::sample_savepoint_dir(), "--jobs", "1024", "--limit", "1"}).status == 0);
}

TEST_CASE("no --help repeats the choices its value name lists", "[cli]") {
  for (const auto& c : ckpt::cli::commands()) {
    const std::string help = run_cli({c.name, "--help"}).out;
    INFO(c.name);
    // CLI11's "KIND:{heap,rocksdb}" after a value name; a JSON example's "value":{"..." is not one.
    CHECK_FALSE(std::regex_search(help, std::regex(R"([A-Z]:\{[^"])")));
  }
  CHECK(ckpt::test::contains(run_cli({"diff", "--help"}).out, "  --format ndjson  "));
}
