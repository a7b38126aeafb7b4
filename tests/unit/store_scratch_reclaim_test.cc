// Scratch directories of object-store runs that were killed (TMPDIR/ckpt-s3-*: an output built
// for upload, a cache of up to --cache-size) are removed by the next run; a live run's, and what
// ckpt did not make, stay.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

#include "s3/store_files.h"
#include "testlib/scoped_settings.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;

namespace {

// The staging directories under `tmp`.
std::set<std::string> stagings_in(const std::string& tmp) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(tmp))
    if (e.path().filename().string().starts_with("ckpt-s3-")) out.insert(e.path().string());
  return out;
}

// A forked child that made a scratch directory and wrote into it, then waits (to be killed with SIGKILL,
// as a ckpt killed mid-run is: no destructor runs); its pid and staging directory.
std::pair<pid_t, std::string> child_staging(const std::string& tmp) {
  const std::set<std::string> before = stagings_in(tmp);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(fds[0]);
    ::setenv("TMPDIR", tmp.c_str(), 1);
    Result<StoreScratch> scratch = create_store_scratch();
    char ok = scratch.ok() ? '1' : '0';
    if (::write(fds[1], &ok, 1) < 0) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(fds[1]);
  char ok = '0';
  REQUIRE(::read(fds[0], &ok, 1) == 1);
  ::close(fds[0]);
  REQUIRE(ok == '1');
  std::string made;
  for (const std::string& d : stagings_in(tmp))
    if (!before.count(d)) made = d;
  REQUIRE(!made.empty());
  test::write_file(made + "/downloaded-object", std::string(4096, 'x'));
  return {child, made};
}

void kill_child(pid_t pid) {
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

}  // namespace

TEST_CASE("a scratch directory of a killed object-store run is removed by the next and a live one is kept",
          "[ops][s3]") {
  test::ScratchDir s;
  const std::string tmp = s / "tmp";
  fs::create_directory(tmp);
  test::ScopedEnv env("TMPDIR", tmp);
  auto [live_pid, live] = child_staging(tmp);
  auto [dead_pid, dead] = child_staging(tmp);
  kill_child(dead_pid);
  // Not ckpt's: no marker, or a link to a directory that has one.
  fs::create_directory(tmp + "/ckpt-s3-handmade");
  test::write_file(tmp + "/ckpt-s3-handmade/notes", "mine");
  auto [other_pid, other] = child_staging(s.path());
  kill_child(other_pid);
  fs::create_directory_symlink(other, tmp + "/ckpt-s3-link");

  {
    Result<StoreScratch> next = create_store_scratch();
    REQUIRE(next);
    CHECK_FALSE(fs::exists(dead));
    CHECK(fs::exists(live + "/downloaded-object"));
    CHECK(test::read_file(tmp + "/ckpt-s3-handmade/notes") == "mine");
    CHECK(fs::is_symlink(tmp + "/ckpt-s3-link"));
    CHECK(fs::exists(other + "/downloaded-object"));
    CHECK(stagings_in(tmp).size() == 4);  // the live one, the hand-made one, the link and this run's
    remove_store_scratch(*next);
  }
  kill_child(live_pid);
  // This run's own is gone with it; the one killed meanwhile goes with the next.
  CHECK(stagings_in(tmp).size() == 3);
  Result<StoreScratch> last = create_store_scratch();
  REQUIRE(last);
  remove_store_scratch(*last);
  CHECK_FALSE(fs::exists(live));
}
