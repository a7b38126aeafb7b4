// --remap takes one PREFIX=DIR per occurrence on every command that has it: a SNAPSHOT written
// after it stays the positional (restore once read it as a second --remap value and failed with
// "SNAPSHOT is required").
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using ckpt::test::run_cli;

TEST_CASE("each --remap takes one value and a SNAPSHOT after it stays positional", "[cli]") {
  const std::string sample = ckpt::test::source_dir() + "/testdata/sample-savepoint";
  ckpt::test::ScratchDir dir;
  // Each command with the options it needs, written after SNAPSHOT, as a user would type them.
  const std::vector<std::vector<std::string>> commands = {{"inspect"},
                                                          {"verify"},
                                                          {"dump", "--format", "ndjson"},
                                                          {"restore", "--output", dir / "restored"},
                                                          {"convert", "--to", "heap", "--output", dir / "converted"}};
  for (const auto& command : commands) {
    for (const std::string& spelling : {std::string("--remap"), std::string("--remap=")}) {
      std::vector<std::string> args = {command[0]};
      if (spelling == "--remap") {
        args.insert(args.end(), {"--remap", "/nowhere=" + dir.path(), "--remap", "/elsewhere=" + dir.path(), sample});
      } else {
        args.insert(args.end(), {"--remap=/nowhere=" + dir.path(), sample});
      }
      args.insert(args.end(), command.begin() + 1, command.end());
      INFO(command[0] << " with " << spelling);
      const ckpt::test::CliResult r = run_cli(args);
      CHECK(r.status == 0);
      CHECK(r.err.find("SNAPSHOT is required") == std::string::npos);
      // Both rules were taken as rules (each warned about as matching nothing), not as paths.
      CHECK(r.err.find("--remap /nowhere=") != std::string::npos);
      std::filesystem::remove_all(dir / "restored");
      std::filesystem::remove_all(dir / "converted");
    }
  }
}
