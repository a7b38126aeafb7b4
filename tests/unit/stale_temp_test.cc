// Temporary directories of a ckpt that was killed are removed by the next run beside the same
// output; those of a live run, and anything ckpt did not create, are never touched.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "ckpt/io.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;

namespace {

// The temporary directory a child process made beside `final_path` before it was killed with
// SIGKILL (no destructor, no cleanup), as a ckpt killed mid-run leaves it.
std::string killed_owner_temp(const std::string& final_path) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(fds[0]);
    Result<TempDir> t = TempDir::create_beside(final_path);
    std::string path = t.ok() ? t->path() : std::string();
    if (t.ok()) test::write_file(path + "/partial-output", "half");
    path.push_back('\n');
    if (::write(fds[1], path.data(), path.size()) < 0) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(fds[1]);
  std::string path;
  char c;
  while (::read(fds[0], &c, 1) == 1 && c != '\n') path.push_back(c);
  ::close(fds[0]);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  return path;
}

}  // namespace

TEST_CASE("a temporary directory of a killed ckpt is removed by the next run and a live one is kept",
          "[support][unit][output]") {
  test::ScratchDir s;
  const std::string out = s / "out";
  // A live run: this process holds its temporary directory.
  Result<TempDir> live = TempDir::create_beside(out);
  REQUIRE(live.ok());
  test::write_file(live->path() + "/in-progress", "x");
  const std::string stale = killed_owner_temp(out);
  REQUIRE(!stale.empty());
  REQUIRE(fs::exists(stale + "/partial-output"));
  // Not made by ckpt, or not beside this output: never removed.
  fs::create_directory(out + ".ckpt-tmp-handmade");
  test::write_file(out + ".ckpt-tmp-handmade/notes", "mine");
  test::write_file(out + ".ckpt-tmp-plainfile", "mine");
  const std::string other_stale = killed_owner_temp(s / "other");
  fs::create_directory_symlink(other_stale, out + ".ckpt-tmp-symlink");

  auto r = test::run_cli({"generate", "--output", out, "--keys", "50"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_FALSE(fs::exists(stale));
  CHECK(test::read_file(live->path() + "/in-progress") == "x");
  CHECK(test::read_file(out + ".ckpt-tmp-handmade/notes") == "mine");
  CHECK(test::read_file(out + ".ckpt-tmp-plainfile") == "mine");
  CHECK(fs::is_symlink(out + ".ckpt-tmp-symlink"));
  CHECK(fs::exists(other_stale + "/partial-output"));
  CHECK(fs::exists(out + "/_metadata"));
}
