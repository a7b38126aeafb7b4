// tests/support/test_support.h - helpers shared by the test files.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace ckpt::test {

// ../shared beside the checkout (CKPT_SHARED_DIR overrides, as CI may place it elsewhere).
std::string shared_dir();
bool shared_available();
// Every snapshot directory of ../shared/testdata/flink (sorted), each holding a _metadata.
std::vector<std::string> corpus_snapshots();
std::string corpus_dir();
std::string expected_dir();   // ../shared/testdata/flink-expected
// Every savepoint directory of ../shared/testdata/flink-sql (sorted): <family>/<test>/savepoint.
std::vector<std::string> sql_corpus_snapshots();
std::string sql_corpus_dir();    // ../shared/testdata/flink-sql
std::string sql_expected_dir();  // ../shared/testdata/flink-sql-expected
std::string source_dir();     // the project checkout
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& bytes);

// A fresh directory under the system temp dir, removed at scope exit.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace ckpt::test

// Tests that need Flink's files skip (ctest SKIP_RETURN_CODE 77) when ../shared is absent.
#define CKPT_REQUIRE_SHARED()                                                               \
  do {                                                                                      \
    if (!ckpt::test::shared_available()) {                                                  \
      std::cerr << "SKIP: Flink's snapshots not found at " << ckpt::test::corpus_dir()      \
                << " (set CKPT_SHARED_DIR or check out ../shared beside the project)\n";    \
      std::exit(77);                                                                        \
    }                                                                                       \
  } while (0)
