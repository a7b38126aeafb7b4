// ckpt ls over the shared corpus as it lies on disk: directories of snapshots named by hand
// (flink/, flink-old/) and Flink's SQL test layout (<family>/<test>/savepoint/_metadata) list
// every snapshot the corpus holds, each complete and read, under the right job.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ckpt/query.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> listed_paths(const std::vector<ListedSnapshot>& listed) {
  std::vector<std::string> paths;
  for (const ListedSnapshot& s : listed) paths.push_back(fs::path(s.path).lexically_normal().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::vector<std::string> normal_paths(std::vector<std::string> dirs) {
  for (std::string& d : dirs) d = fs::absolute(d).lexically_normal().string();
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

}  // namespace

TEST_CASE("ckpt ls of the corpus directories lists every snapshot under its job", "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  SECTION("flink: 107 directories named by hand") {
    auto listed = list_snapshots(test::corpus_dir());
    REQUIRE(listed.ok());
    CHECK(listed_paths(*listed) == normal_paths(test::corpus_snapshots()));
    CHECK(listed->size() == 107);
    int rocks = 0, heap = 0;
    for (const ListedSnapshot& s : *listed) {
      INFO(s.path);
      CHECK(s.job == "flink");
      CHECK(s.complete);
      CHECK(s.problem.empty());
      CHECK(s.id.has_value());
      CHECK(s.gc == "retained");
      // The kind where `_metadata` says it; none where it does not (version 1 to 3 without a
      // savepoint handle), never a guess.
      if (s.format == "unknown") CHECK(s.kind.empty());
      else CHECK(s.kind == (s.format == "checkpoint" ? "checkpoint" : "savepoint"));
      // The backend the directory's name gives is the one the bytes show, or none is shown
      // (canonical savepoints, old `_metadata` of unknown kind, state without keyed handles).
      if (s.name.find("rocksdb") != std::string::npos) {
        CHECK(s.backend != "heap");
        rocks += s.backend == "rocksdb";
      }
      if (s.name.find("hashmap") != std::string::npos) {
        CHECK(s.backend != "rocksdb");
        heap += s.backend == "heap";
      }
    }
    CHECK(rocks == 21);
    CHECK(heap == 19);
  }
  SECTION("flink-sql: <family>/<test>/savepoint, each under its test's name") {
    auto listed = list_snapshots(test::sql_corpus_dir());
    REQUIRE(listed.ok());
    CHECK(listed_paths(*listed) == normal_paths(test::sql_corpus_snapshots()));
    CHECK(listed->size() == 95);
    for (const ListedSnapshot& s : *listed) {
      INFO(s.path);
      CHECK(s.job == fs::path(s.path).parent_path().filename().string());
      CHECK(s.name == "savepoint");
      CHECK(s.kind == "savepoint");
      CHECK(s.format == "savepoint-canonical");
      CHECK(s.problem.empty());
    }
  }
  SECTION("flink-old: _metadata that does not say its kind names no backend and no kind") {
    auto listed = list_snapshots(test::shared_dir() + "/testdata/flink-old");
    REQUIRE(listed.ok());
    REQUIRE(listed->size() == 10);
    for (const ListedSnapshot& s : *listed) {
      INFO(s.path);
      CHECK(s.format == "unknown");
      // Nor does a directory named by hand: neither checkpoint nor savepoint is claimed.
      CHECK(s.kind.empty());
      // Flink 1.3's RocksDB savepoints hold the same keyed-full handles as the heap backend's.
      CHECK(s.backend.empty());
      CHECK(s.problem.empty());
    }
  }
}
