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

}  // namespace ckpt::test
