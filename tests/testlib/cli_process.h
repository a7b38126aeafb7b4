// tests/testlib/cli_process.h - running the ckpt binary as a child under timeout(1), for tests
// of inputs that could make it block (a FIFO): a hang fails the test instead of stopping it.
#pragma once

#include <string>
#include <vector>

#include "testlib/cli_run.h"

namespace ckpt::test {

// `timeout -k 5 <seconds> ckpt args...` with stdin from /dev/null; status 124 or 137 means it
// had to be stopped.
CliResult run_cli_process(const std::vector<std::string>& args, int seconds = 20);

// Any program (found on PATH) run the same way: `timeout -k 5 <seconds> argv...`.
CliResult run_program(const std::vector<std::string>& argv, int seconds = 120);

// `sh -c script` the same way, for tests that need a shell's redirections or environment.
CliResult run_shell(const std::string& script, int seconds = 120);

// The build tree (where `cmake --install` installs from).
std::string build_dir();

}  // namespace ckpt::test
