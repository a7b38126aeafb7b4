// Every subcommand in a hostile environment: no temporary directory, an output it cannot
// write, a directory where a file belongs. libckpt promises errors as values: each run ends
// with exit 2 and a message naming the path (or succeeds where nothing it needs is missing),
// never with an exception caught as "internal error".
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "ckpt/generate.h"
#include "testlib/cli_run.h"
#include "testlib/grown_snapshot.h"
#include "testlib/scoped_settings.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

// Snapshots of each kind the subcommands read, made before the environment turns hostile.
struct Inputs {
  test::ScratchDir scratch;
  std::string heap;    // testdata/sample-savepoint (heap key groups, operator state)
  std::string rocks;   // a generated native RocksDB savepoint
  std::string chain;   // a generated job directory of chk-1, chk-2 (for gc)
  std::string file;    // a regular file: nothing can be created under it

  Inputs() {
    heap = scratch / "heap";
    fs::copy(test::source_dir() + "/testdata/sample-savepoint", heap, fs::copy_options::recursive);
    GenerateOptions o;
    o.output = rocks = scratch / "rocks";
    o.keys = 100;
    o.states = {"value", "list"};
    REQUIRE(generate_snapshot(o).ok());
    o.output = chain = scratch / "chain";
    o.chain = 2;
    REQUIRE(generate_snapshot(o).ok());
    file = scratch / "a-file";
    test::write_file(file, "not a directory");
  }
};

// Ran, or stopped with exit 2 and "ckpt: error: '<path>': ..." naming `path` (when given);
// never an escaped exception.
void check_clean(const std::vector<std::string>& args, const test::CliResult& r, const std::string& path = "") {
  std::string cmd;
  for (const std::string& a : args) cmd += a + " ";
  INFO("ckpt " << cmd << "-> " << r.status << "\n" << r.err);
  CHECK(r.err.find("internal error") == std::string::npos);
  CHECK((r.status == 0 || r.status == 1 || r.status == 2));
  if (r.status != 2) return;
  CHECK(r.err.rfind("ckpt: error: ", 0) == 0);
  if (!path.empty()) CHECK(r.err.find(path) != std::string::npos);
}

// Must not run: exit 2 naming `path`.
void check_refused(const std::vector<std::string>& args, const std::string& path) {
  test::CliResult r = test::run_cli(args);
  check_clean(args, r, path);
  CHECK(r.status == 2);
}

}  // namespace

TEST_CASE("every subcommand with TMPDIR naming a missing directory runs or exits 2 naming it", "[cli]") {
  // Reading a native snapshot whose SSTs overlap for another layout opens its files as a
  // RocksDB instance in a temporary directory: that one must say which directory it could not
  // use. The others do not need one (disjoint SSTs are read one by one) and run as usual.
  Inputs in;
  const test::GrownSnapshot overlapping = test::grow_snapshot(in.rocks, in.scratch / "grown", 2, false);
  const std::string out = in.scratch / "out";
  const std::string missing = in.scratch / "no-such-tmp";
  test::ScopedEnv tmpdir("TMPDIR", missing);
  check_refused({"convert", overlapping.dir, "--to", "heap", "--output", out + "-convert-heap"}, missing);
  CHECK_FALSE(fs::exists(out + "-convert-heap"));
  const std::vector<std::vector<std::string>> runs = {
      {"convert", in.rocks, "--to", "heap", "--output", out + "-convert-rocks-heap"},
      {"inspect", in.heap},
      {"dump", in.rocks},
      {"verify", in.rocks, "--deep"},
      {"restore", in.rocks, "--output", out + "-restore"},
      {"restore", in.heap, "--output", out + "-restore-heap"},
      {"convert", in.heap, "--to", "rocksdb", "--output", out + "-convert-rocksdb"},
      {"convert", in.rocks, "--to", "canonical", "--output", out + "-convert-canonical"},
      {"generate", "--output", out + "-generate", "--keys", "50"},
      {"diff", in.heap, in.rocks, "--keys"},
      {"compact", in.chain + "/chk-2", "--output", out + "-compact"},
      {"gc", in.chain},
      {"relocate", in.heap, "--output", out + "-relocated", "--relative"},
  };
  for (const auto& args : runs) check_clean(args, test::run_cli(args), missing);
}

TEST_CASE("every subcommand asked to write under a regular file exits 2 naming the path", "[cli]") {
  // Tests run as root, to whom a read-only directory is writable: a path through a regular
  // file cannot be created by anyone.
  Inputs in;
  const std::string out = in.file + "/out";
  check_refused({"restore", in.rocks, "--output", out}, in.file);
  check_refused({"restore", in.heap, "--output", out}, in.file);
  check_refused({"convert", in.heap, "--to", "rocksdb", "--output", out}, in.file);
  check_refused({"convert", in.rocks, "--to", "heap", "--output", out}, in.file);
  check_refused({"generate", "--output", out}, in.file);
  check_refused({"compact", in.chain + "/chk-2", "--output", out}, in.file);
  check_refused({"relocate", in.heap, "--output", out, "--relative"}, in.file);
  // Reading through it: no snapshot is there.
  for (const char* cmd : {"inspect", "dump", "verify", "gc"}) check_refused({cmd, in.file + "/sp"}, in.file);
  check_refused({"diff", in.heap, in.file + "/sp"}, in.file);
}

TEST_CASE("a directory where _metadata or an output file belongs makes every subcommand exit 2", "[cli]") {
  Inputs in;
  const std::string bad = in.scratch / "bad";
  fs::create_directories(bad + "/_metadata");
  test::write_file(bad + "/_metadata/part", "a directory, not the file");
  const std::string out = in.scratch / "out";
  for (const char* cmd : {"inspect", "dump", "verify"}) check_refused({cmd, bad}, bad);
  check_refused({"verify", bad, "--deep"}, bad);
  check_refused({"restore", bad, "--output", out}, bad);
  check_refused({"convert", bad, "--to", "heap", "--output", out}, bad);
  check_refused({"compact", bad, "--output", out}, bad);
  check_refused({"relocate", bad, "--output", out, "--relative"}, bad);
  check_refused({"diff", in.heap, bad}, bad);
  check_refused({"diff", bad, in.heap, "--keys"}, bad);
  CHECK_FALSE(fs::exists(out));
  // A job directory whose checkpoint holds a directory named _metadata: gc cannot tell what it
  // references, so it must not run (let alone delete).
  fs::create_directories(in.chain + "/chk-3/_metadata");
  check_refused({"gc", in.chain}, "chk-3");
  check_refused({"gc", in.chain, "--apply"}, "chk-3");
  // relocate's output is a file: a directory of that name is not replaced.
  fs::create_directories(out + "/dir");
  check_refused({"relocate", in.heap, "--output", out + "/dir", "--relative"}, out + "/dir");
  CHECK(fs::is_directory(out + "/dir"));
  // A state file that is a directory.
  const std::string sp = in.scratch / "sp";
  fs::copy(in.heap, sp, fs::copy_options::recursive);
  for (const auto& e : fs::directory_iterator(sp)) {
    if (e.path().filename() == "_metadata") continue;
    fs::remove(e.path());
    fs::create_directories(e.path());
    break;
  }
  check_refused({"dump", sp}, sp);
  check_refused({"convert", sp, "--to", "rocksdb", "--output", out + "-2"}, sp);
}
