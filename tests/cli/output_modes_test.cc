// Outputs take the modes the user's umask gives (as mkdir(1) and cp(1) would), not mkdtemp's
// 0700 nor a fixed 0644: a Flink process running as another user reads a converted savepoint,
// and a umask of 077 keeps everything private.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>

#include "testlib/cli_process.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

mode_t mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// Every directory and regular file under `root` (root included) has the mode umask `mask` gives.
void modes_follow(const std::string& root, mode_t mask) {
  INFO(root);
  CHECK(mode_of(root) == (0777 & ~mask));
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    INFO(e.path());
    if (e.is_directory()) {
      // RocksDB makes the directories of the instances it writes 0755 less the umask.
      const mode_t m = mode_of(e.path().string());
      CHECK((m == (0777 & ~mask) || m == (0755 & ~mask)));
    }
    if (e.is_regular_file()) {
      // RocksDB creates its files 0644 less the umask; ckpt's own as open(2) does, 0666 less it.
      const mode_t m = mode_of(e.path().string());
      CHECK((m == (0666 & ~mask) || m == (0644 & ~mask)));
      CHECK((m & 0400) != 0);
      ++files;
    }
  }
  CHECK(files > 0);
}

}  // namespace

TEST_CASE("generate convert compact and restore outputs follow the umask", "[cli][output]") {
  for (mode_t mask : {mode_t{022}, mode_t{077}, mode_t{002}}) {
    test::ScratchDir scratch;
    const std::string ckpt = test::build_dir() + "/tools/ckpt";
    char umask_text[8];
    std::snprintf(umask_text, sizeof umask_text, "%03o", static_cast<unsigned>(mask));
    const std::string s = scratch.path();
    test::CliResult r = test::run_shell(
        std::string("umask ") + umask_text + " && cd '" + s + "' && '" + ckpt +
        "' generate --output snap --keys 200 --parallelism 2 >/dev/null && '" + ckpt +
        "' convert snap --to heap --output heap >/dev/null && '" + ckpt +
        "' compact snap --output compact >/dev/null && '" + ckpt + "' restore snap --output restored >/dev/null");
    INFO("umask " << umask_text << ": " << r.err);
    REQUIRE(r.status == 0);
    for (const char* out : {"snap", "heap", "compact", "restored"}) modes_follow(scratch / out, mask);
  }
}
