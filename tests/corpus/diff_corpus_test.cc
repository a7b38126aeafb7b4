// ckpt diff --keys on Flink's own snapshots: variants of one job at one Flink version, written
// by different backends and as different kinds, hold the same state.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "ckpt/diff.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;

namespace {

// Snapshot directories of `job`, grouped by Flink version ("1.16" -> dirs).
std::map<std::string, std::vector<std::string>> variants(const std::string& job) {
  std::map<std::string, std::vector<std::string>> out;
  for (const std::string& dir : ckpt::test::corpus_snapshots()) {
    std::string name = fs::path(dir).filename().string();
    std::string prefix = job + "-flink";
    if (!name.starts_with(prefix)) continue;
    std::string rest = name.substr(prefix.size());
    out[rest.substr(0, rest.find('-'))].push_back(dir);
  }
  return out;
}

class CountingSink : public KeyChangeSink {
 public:
  void change(const KeyChange&) override { ++changes; }
  size_t changes = 0;
};

void check_all_pairs(const std::map<std::string, std::vector<std::string>>& groups, size_t* pairs) {
  for (const auto& [version, dirs] : groups) {
    for (size_t i = 0; i < dirs.size(); ++i) {
      for (size_t j = i + 1; j < dirs.size(); ++j) {
        INFO(dirs[i] << " vs " << dirs[j]);
        DiffOptions options;
        options.keys = true;
        CountingSink sink;
        auto r = diff_snapshots(dirs[i], dirs[j], options, &sink);
        REQUIRE(r.ok());
        CHECK(r->structure.empty());
        CHECK_FALSE(r->keys_differ());
        CHECK(sink.changes == 0);
        uint64_t same = 0;
        for (const KeyDiffCounts& k : r->keys) same += k.same;
        CHECK(same > 0);
        ++*pairs;
      }
    }
  }
}

}  // namespace

TEST_CASE("diff --keys finds no difference between any two variants of the broadcast job", "[corpus][ops]") {
  // Heap and RocksDB, checkpoints, canonical and native savepoints: all pairs per version.
  CKPT_REQUIRE_SHARED();
  size_t pairs = 0;
  check_all_pairs(variants("new-stateful-broadcast-udf-migration-itcase"), &pairs);
  CHECK(pairs >= 90);
}

TEST_CASE("diff --keys finds no difference between any two of the type-serializer job's six variants", "[corpus][ops]") {
  // Its values are bytes of a job-defined serializer, shown as hex: the heap checkpoint and
  // heap native savepoint (lengths inferred from the key groups' bounds) hold the same hex as
  // the canonical savepoint and the three RocksDB variants; `ckpt diff --keys` exits 0.
  CKPT_REQUIRE_SHARED();
  auto groups = variants("type-serializer-snapshot-migration-itcase");
  REQUIRE(groups.count("1.16"));
  CHECK(groups["1.16"].size() == 6);
  size_t pairs = 0;
  check_all_pairs(groups, &pairs);
  CHECK(pairs == 15);
  for (const auto& [version, dirs] : groups)
    for (size_t i = 0; i < dirs.size(); ++i)
      for (size_t j = i + 1; j < dirs.size(); ++j) {
        INFO(dirs[i] << " vs " << dirs[j]);
        auto r = ckpt::test::run_cli({"diff", "--keys", dirs[i], dirs[j]});
        CHECK(r.status == 0);
      }
}

TEST_CASE("diff --keys --format ndjson lists entries that differ between two jobs' snapshots", "[cli][corpus]") {
  // Two different jobs share operator ids for their sources but not their keyed state: the
  // changes are printed one per line and the exit status is 1.
  CKPT_REQUIRE_SHARED();
  std::string a = ckpt::test::corpus_dir() + "/new-stateful-broadcast-udf-migration-itcase-flink1.16-rocksdb-savepoint";
  std::string b = ckpt::test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.16-rocksdb-savepoint";
  auto r = ckpt::test::run_cli({"diff", "--keys", "--format", "ndjson", a, b});
  CHECK(r.status == 1);
  size_t lines = 0, added = 0, removed = 0;
  for (size_t p = 0; (p = r.out.find('\n', p)) != std::string::npos; ++p) ++lines;
  for (size_t p = 0; (p = r.out.find("{\"change\":\"added\"", p)) != std::string::npos; ++p) ++added;
  for (size_t p = 0; (p = r.out.find("{\"change\":\"removed\"", p)) != std::string::npos; ++p) ++removed;
  CHECK(lines > 0);
  CHECK(added > 0);
  CHECK(removed > 0);
  auto same = ckpt::test::run_cli({"diff", "--keys", "--format", "ndjson", a, a});
  CHECK(same.status == 0);
  CHECK(same.out.empty());
  auto usage = ckpt::test::run_cli({"diff", "--format", "ndjson", a, a});
  CHECK(usage.status == 2);
}
