// In-process CLI runs for tests, as RocksDB's sst_dump_test does.
#include "testlib/cli_run.h"

#include <catch2/catch.hpp>

#include <sstream>

#include "command.h"

namespace ckpt::test {

CliResult run_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  ckpt::cli::Io io{out, err};
  CliResult r;
  r.status = ckpt::cli::run(args, io);
  r.out = out.str();
  r.err = err.str();
  return r;
}

CliResult run_cli_ok(const std::vector<std::string>& args) {
  CliResult r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r;
}

}  // namespace ckpt::test
