// Temporary directories of a ckpt that was killed are removed by the next run beside the same
// output; those of a live run, and anything ckpt did not create, are never touched.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/io.h"
#include "support/io_hooks.h"
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

// The "<final>.ckpt-tmp-*" entries beside `final_path`.
std::vector<std::string> temp_siblings(const std::string& final_path) {
  std::vector<std::string> out;
  const std::string prefix = fs::path(final_path).filename().string() + ".ckpt-tmp-";
  for (const auto& e : fs::directory_iterator(fs::path(final_path).parent_path()))
    if (e.path().filename().string().starts_with(prefix)) out.push_back(e.path().string());
  return out;
}

// A child that builds an output at `final_path` (over an existing one with `replace`) and is
// killed with SIGKILL at the first sync of a path `at` accepts, as a ckpt killed mid-commit.
void killed_while_syncing(const std::string& final_path, bool replace,
                          const std::function<bool(const std::string&)>& at) {
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    Result<TempDir> t = TempDir::create_beside(final_path);
    if (!t.ok()) ::_exit(3);
    test::write_file(t->path() + "/_metadata", "new");
    io_hooks().synced = [&](const std::string& p) {
      if (at(p)) ::raise(SIGKILL);
    };
    (void)t->commit(replace);
    ::_exit(4);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGKILL);
}

}  // namespace

TEST_CASE("a ckpt killed while syncing or after its rename leaves nothing the next run keeps",
          "[support][unit][output]") {
  test::ScratchDir s;
  const std::string out = s / "out";
  SECTION("killed while syncing the new output") {
    killed_while_syncing(out, false, [&](const std::string& p) { return p.ends_with("/_metadata"); });
    REQUIRE(temp_siblings(out).size() == 1);
    CHECK_FALSE(fs::exists(out));
  }
  SECTION("killed after the rename, the holder then empty but for its lock file") {
    killed_while_syncing(out, false, [&](const std::string& p) { return fs::path(p) == fs::path(s.path()); });
    REQUIRE(temp_siblings(out).size() == 1);
    CHECK(test::read_file(out + "/_metadata") == "new");
  }
  SECTION("killed after swapping out an old output") {
    fs::create_directories(out);
    test::write_file(out + "/_metadata", "old");
    killed_while_syncing(out, true, [&](const std::string& p) { return fs::path(p) == fs::path(s.path()); });
    REQUIRE(temp_siblings(out).size() == 1);
    CHECK(test::read_file(out + "/_metadata") == "new");
  }
  // The next run writing the same output removes what the killed one left, and only that.
  Result<TempDir> next = TempDir::create_beside(out);
  REQUIRE(next.ok());
  CHECK(temp_siblings(out) == std::vector<std::string>{fs::path(next->path()).parent_path().string()});
  if (fs::exists(out)) {
    CHECK(test::read_file(out + "/_metadata") == "new");
    CHECK(std::distance(fs::directory_iterator(out), fs::directory_iterator()) == 1);
  }
}

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
