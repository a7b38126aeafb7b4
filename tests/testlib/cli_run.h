// tests/testlib/cli_run.h - running the ckpt CLI in-process with string streams.
#pragma once

#include <string>
#include <vector>

namespace ckpt::test {

struct CliResult {
  int status = -1;
  std::string out;
  std::string err;
};

// ckpt::cli::run(args) with stdout and stderr captured.
CliResult run_cli(const std::vector<std::string>& args);
// The same, required to exit 0 (the test stops with its standard error otherwise).
CliResult run_cli_ok(const std::vector<std::string>& args);

}  // namespace ckpt::test
