// What a mistyped command, a mistyped flag or a directory that is no snapshot gets: the name
// most likely meant, and the snapshots the directory holds.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ckpt/generate.h"
#include "did_you_mean.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

TEST_CASE("did_you_mean finds the one close name and no far or tied one", "[cli]") {
  const std::vector<std::string> commands = {"inspect", "dump", "diff", "verify", "convert", "compact"};
  CHECK(cli::did_you_mean("dmup", commands) == "dump");      // two neighbours swapped
  CHECK(cli::did_you_mean("verfy", commands) == "verify");   // a letter left out
  CHECK(cli::did_you_mean("convertt", commands) == "convert");
  CHECK_FALSE(cli::did_you_mean("xyzzy", commands));
  CHECK_FALSE(cli::did_you_mean("dif", {"diff", "dig"}));    // as close to either
  CHECK_FALSE(cli::did_you_mean("", commands));
  CHECK(cli::did_you_mean("--outptu", {"--output", "--to", "--force"}) == "--output");
}

TEST_CASE("a mistyped command or flag is answered with the name meant", "[cli]") {
  test::CliResult r = test::run_cli({"dmup", test::sample_savepoint_dir()});
  CHECK(r.status == 2);
  CHECK(r.err.find("no command 'dmup'; did you mean 'dump'?") != std::string::npos);
  r = test::run_cli({"verify", test::sample_savepoint_dir(), "--deeep"});
  CHECK(r.status == 2);
  CHECK(r.err.find("ckpt: --deeep: did you mean --deep?\n") != std::string::npos);
  // The options every command takes are offered too.
  r = test::run_cli({"dump", test::sample_savepoint_dir(), "--follow-symlink"});
  CHECK(r.err.find("ckpt: --follow-symlink: did you mean --follow-symlinks?\n") != std::string::npos);
  // A flag the command has is not questioned, whatever else is wrong with the line.
  r = test::run_cli({"dump", test::sample_savepoint_dir(), "--limit", "x"});
  CHECK(r.status == 2);
  CHECK(r.err.find("did you mean") == std::string::npos);
}

TEST_CASE("every command names the snapshots of a directory given for one", "[cli]") {
  test::ScratchDir tmp;
  for (const char* chk : {"chk-3", "chk-12"}) {
    GenerateOptions g;
    g.output = (fs::path(tmp / "jobs") / "job-a" / chk).string();
    g.keys = 5;
    fs::create_directories(fs::path(g.output).parent_path());
    REQUIRE(generate_snapshot(g).ok());
  }
  const std::string root = tmp / "jobs", job = root + "/job-a";
  // A job's checkpoint directory: its newest checkpoint (by id, not by name), and ls.
  for (const char* command : {"dump", "verify", "inspect"}) {
    test::CliResult r = test::run_cli({command, job});
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(std::string("run 'ckpt ") + command + " " + job + "/chk-12' for the newest of them, 'ckpt ls " +
                     job + "' to list them all\n") != std::string::npos);
  }
  // A directory of jobs: ls finds them.
  test::CliResult r = test::run_cli({"dump", root});
  CHECK(r.status == 2);
  CHECK(r.err.find("run 'ckpt ls " + root + "' to list the snapshots of the jobs under it\n") != std::string::npos);
  // Nothing below: no hint.
  fs::create_directories(tmp / "empty");
  r = test::run_cli({"dump", tmp / "empty"});
  CHECK(r.status == 2);
  CHECK(r.err.find("run 'ckpt") == std::string::npos);
}
