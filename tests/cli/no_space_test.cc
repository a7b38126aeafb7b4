// A full file system is reported as such: "No space left on device" naming the file being
// written, never the "Input/output error" a partial sendfile in std::filesystem::copy_file
// turned it into.
#include <catch2/catch.hpp>

#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::run_cli;

namespace {

// A 1 MiB tmpfs at `dir` for the scope (mounting needs root: without it the test skips).
class SmallTmpfs {
 public:
  explicit SmallTmpfs(const std::string& dir) : dir_(dir) {
    fs::create_directories(dir);
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=1m") != 0) error_ = errno;
  }
  ~SmallTmpfs() {
    if (error_ == 0) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  int error() const { return error_; }

 private:
  std::string dir_;
  int error_ = 0;
};

}  // namespace

TEST_CASE("restore and compact onto a full file system report no space left with the file", "[cli][output]") {
  ckpt::test::ScratchDir s;
  const std::string snap = s / "snap";
  // One subtask, one state: a single SST of about 3 MiB of incompressible values.
  REQUIRE(run_cli({"generate", "--output", snap, "--parallelism", "1", "--keys", "30000", "--value-size", "100"})
              .status == 0);
  SmallTmpfs full(s / "small");
  if (full.error() != 0) {
    CKPT_SKIP("cannot mount a 1 MiB tmpfs (" << std::strerror(full.error()) << "); this needs root");
  }
  for (const char* cmd : {"restore", "compact"}) {
    INFO(cmd);
    const std::string out = s / ("small/" + std::string(cmd));
    auto r = run_cli({cmd, snap, "--output", out});
    CHECK(r.status == 2);
    CHECK(r.err.find("No space left on device") != std::string::npos);
    CHECK(r.err.find("Input/output error") == std::string::npos);
    CHECK(r.err.find("ckpt: error: '" + out + ".ckpt-tmp-") == 0);
    CHECK_FALSE(fs::exists(out));
  }
  // Nothing left behind on the full file system.
  CHECK(fs::is_empty(s / "small"));
}
