// ckpt diff on placeholder chains and hand-made models: exactly the files each checkpoint
// added and dropped, structure changes, the JSON contract and the exit statuses.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "ckpt/diff.h"
#include "testlib/cli_run.h"
#include "testlib/file_chain.h"
#include "testlib/path_sets.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;
using test::minus;

namespace {

std::set<std::string> uris(const std::vector<DiffFile>& files) {
  std::set<std::string> out;
  for (const DiffFile& f : files) out.insert(f.uri);
  return out;
}

std::set<std::string> local(const std::string& root, const std::set<std::string>& rels) {
  std::set<std::string> out;
  for (const std::string& r : rels) out.insert(fs::path(root + "/" + r).lexically_normal().string());
  return out;
}

}  // namespace

TEST_CASE("diff of consecutive checkpoints reports exactly the files added - dropped and shared", "[unit][ops]") {
  // Every pair of neighbours in a churning chain, against the chain's own record of its files.
  ckpt::test::ScratchDir scratch;
  std::string root = scratch / "job";
  ckpt::test::FileChainSpec spec;
  spec.checkpoints = 5;
  spec.subtasks = 3;
  auto chain = ckpt::test::write_file_chain(root, spec);
  for (int c = 1; c < spec.checkpoints; ++c) {
    INFO("chk-" << c << " -> chk-" << c + 1);
    const auto& before = chain.referenced[static_cast<size_t>(c - 1)];
    const auto& after = chain.referenced[static_cast<size_t>(c)];
    auto r = diff_snapshots(root + "/chk-" + std::to_string(c), root + "/chk-" + std::to_string(c + 1), DiffOptions{});
    REQUIRE(r.ok());
    CHECK(uris(r->files_added) == local(root, minus(after, before)));
    CHECK(uris(r->files_removed) == local(root, minus(before, after)));
    CHECK(uris(r->files_shared) == local(root, minus(after, minus(after, before))));
    int64_t added = 0;
    for (const DiffFile& f : r->files_added) {
      CHECK(f.size == static_cast<int64_t>(fs::file_size(f.uri)));
      added += f.size;
    }
    CHECK(r->b_incremental_bytes == added);
    CHECK(r->b_full_bytes > r->b_incremental_bytes);
    CHECK(r->structure.empty());
    CHECK(r->differs());
    // Per subtask, the rows add up to the totals.
    uint64_t rows_added = 0, rows_removed = 0;
    for (const SubtaskFileDiff& s : r->subtasks) {
      rows_added += s.added;
      rows_removed += s.removed;
    }
    CHECK(rows_added == r->files_added.size());
    CHECK(rows_removed == r->files_removed.size());
  }
}

TEST_CASE("diff --json carries added_files - removed_files and shared_files - a snapshot equals itself", "[cli]") {
  // The JSON contract of ckpt-diff(1) and the diff(1) exit statuses.
  ckpt::test::ScratchDir scratch;
  std::string root = scratch / "job";
  ckpt::test::FileChainSpec spec;
  spec.uri_base = "s3://bucket/flink/job";
  auto chain = ckpt::test::write_file_chain(root, spec);
  auto r = ckpt::test::run_cli({"diff", root + "/chk-1", root + "/chk-2", "--json"});
  REQUIRE(r.status == 1);
  auto j = nlohmann::json::parse(r.out);
  std::set<std::string> added;
  for (const auto& f : j["added_files"]) {
    added.insert(f["uri"].get<std::string>());
    CHECK(f["size"].get<int64_t>() > 0);
  }
  std::set<std::string> expected;
  for (const std::string& rel : minus(chain.referenced[1], chain.referenced[0]))
    expected.insert("s3://bucket/flink/job/" + rel);
  CHECK(added == expected);
  CHECK(j["removed_files"].size() == minus(chain.referenced[0], chain.referenced[1]).size());
  CHECK(j["shared_files"].size() == chain.referenced[1].size() - expected.size());
  CHECK(j["differs"] == true);

  auto same = ckpt::test::run_cli({"diff", root + "/chk-3", root + "/chk-3/_metadata"});
  CHECK(same.status == 0);
  CHECK(same.out.find("no difference") != std::string::npos);
  auto missing = ckpt::test::run_cli({"diff", root + "/chk-3", root + "/chk-9"});
  CHECK(missing.status == 2);
  CHECK(missing.err.find("chk-9") != std::string::npos);
}

TEST_CASE("diff reports operators added and removed and parallelism changes", "[unit][ops]") {
  // Structure is compared on the models alone.
  ckpt::test::ScratchDir scratch;
  auto chain = ckpt::test::write_file_chain(scratch / "job", ckpt::test::FileChainSpec{});
  Metadata a = chain.metadata[0];
  Metadata b = a;
  b.operators[0].parallelism = 4;
  b.operators[0].max_parallelism = 256;
  OperatorState extra;
  parse_operator_id("ffeeddccbbaa99887766554433221100", &extra.id);
  extra.parallelism = 1;
  extra.max_parallelism = 128;
  b.operators.push_back(extra);
  SnapshotLocation where{scratch / "job/chk-1/_metadata", scratch / "job/chk-1"};
  DiffReport r = diff_metadata(a, where, b, where);
  REQUIRE(r.structure.size() == 3);
  CHECK(r.structure[0].what == "parallelism");
  CHECK(r.structure[0].before == "2");
  CHECK(r.structure[0].after == "4");
  CHECK(r.structure[1].what == "max-parallelism");
  CHECK(r.structure[2].what == "operator-added");
  CHECK(r.structure[2].operator_id == "ffeeddccbbaa99887766554433221100");
  DiffReport back = diff_metadata(b, where, a, where);
  REQUIRE(back.structure.size() == 3);
  CHECK(back.structure[2].what == "operator-removed");
  CHECK_FALSE(r.files_differ());
}
