// tests/testlib/test_support.h - helpers shared by the test files.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace ckpt::test {

// ../shared beside the checkout (CKPT_SHARED_DIR overrides, as CI may place it elsewhere).
std::string shared_dir();
bool shared_available();
// An executable file at `path`.
bool program_available(const std::string& path);
// Every snapshot directory of ../shared/testdata/flink (sorted), each holding a _metadata.
std::vector<std::string> corpus_snapshots();
std::string corpus_dir();
// One job's Flink 1.17 checkpoints of the changelog backend (over hashmap) and of RocksDB: the
// same state written both ways, so each can be checked against the other.
inline constexpr const char* kUdfMigrationChangelog = "new-stateful-udf-migration-itcase-flink1.17-hashmap-checkpoint";
inline constexpr const char* kUdfMigrationRocks = "new-stateful-udf-migration-itcase-flink1.17-rocksdb-checkpoint";
std::string expected_dir();   // ../shared/testdata/flink-expected
// Every savepoint directory of ../shared/testdata/flink-sql (sorted): <family>/<test>/savepoint.
std::vector<std::string> sql_corpus_snapshots();
std::string sql_corpus_dir();    // ../shared/testdata/flink-sql
std::string sql_expected_dir();  // ../shared/testdata/flink-sql-expected
// The compiled plan beside a flink-sql savepoint (".../<test>/plan/*.json" for
// ".../<test>/savepoint" or ".../<test>/<version>/savepoint"), or "".
std::string sql_plan_of(const std::string& savepoint);
std::string source_dir();     // the project checkout
std::string sample_savepoint_dir();  // testdata/sample-savepoint in the checkout
std::string read_file(const std::string& path);
// Every regular file under `dir`, by its path relative to `dir` (sorted), with its bytes.
std::vector<std::pair<std::string, std::string>> tree_files(const std::string& dir);
void write_file(const std::string& path, const std::string& bytes);
// CI=true (set by CI services, and by .ci/run): there a test that cannot start a component it
// needs (moto_server) fails instead of skipping, so a CI image without it cannot pass.
bool under_ci();
// Messages and outputs are checked for what they name, not for their whole wording.
bool contains(const std::string& text, const std::string& part);

// /dev/shm where there is one (a test that writes thousands of small outputs spends its time
// in their fsyncs on a disk), else the system temp dir.
std::string memory_temp_dir();

// A fresh directory under `base` (default: the system temp dir), removed at scope exit.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& base = {});
  ~ScratchDir();
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace ckpt::test

// Skipping at the Catch level (Catch2 v2 has no SKIP): the test case warns "CKPT-SKIP: <why>"
// and returns, so a run of the test binary goes on to the next test and ends with its summary,
// and ctest reports the test as skipped (SKIP_REGULAR_EXPRESSION in tests/CMakeLists.txt).
// Only in a TEST_CASE's own body: it returns from the enclosing function.
#define CKPT_SKIP(why)              \
  do {                              \
    WARN("CKPT-SKIP: " << why);     \
    return;                         \
  } while (0)

// Tests that need Flink's files skip when ../shared is absent.
#define CKPT_REQUIRE_SHARED()                                                                        \
  do {                                                                                               \
    if (!ckpt::test::shared_available())                                                             \
      CKPT_SKIP("Flink's snapshots not found at " << ckpt::test::corpus_dir()                        \
                                                  << " (set CKPT_SHARED_DIR or check out ../shared beside the project)"); \
  } while (0)

// Tests of what an installed program says (RocksDB's ldb, sst_dump) skip without it; CI
// installs them (.ci/install-deps).
#define CKPT_REQUIRE_PROGRAM(path)                                                         \
  do {                                                                                     \
    if (!ckpt::test::program_available(path)) CKPT_SKIP((path) << " not installed");       \
  } while (0)
