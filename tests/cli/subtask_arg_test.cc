// --subtask takes a subtask index: a negative one is a usage error, never "every subtask".
#include <catch2/catch.hpp>

#include <filesystem>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::run_cli;

TEST_CASE("dump and restore reject a negative --subtask as a usage error", "[cli]") {
  ckpt::test::ScratchDir s;
  const std::string sample = ckpt::test::source_dir() + "/testdata/sample-savepoint";
  for (const char* value : {"-1", "-7"}) {
    INFO(value);
    auto dump = run_cli({"dump", sample, "--subtask", value});
    CHECK(dump.status == 2);
    CHECK(dump.out.empty());
    CHECK(dump.err.find("--subtask") != std::string::npos);
    auto restore = run_cli({"restore", sample, "--output", s / "out", "--subtask", value});
    CHECK(restore.status == 2);
    CHECK(restore.err.find("--subtask") != std::string::npos);
    CHECK_FALSE(fs::exists(s / "out"));
  }
  // Subtask 0 still selects subtask 0.
  auto zero = run_cli({"dump", sample, "--subtask", "0"});
  CHECK(zero.status == 0);
  CHECK_FALSE(zero.out.empty());
}
