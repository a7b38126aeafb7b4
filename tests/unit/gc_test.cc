// ckpt gc: exactly the unreferenced files, never a referenced one, nothing young, refusal on
// an unreadable checkpoint; on placeholder chains of random shapes.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "ckpt/gc.h"
#include "support/cli_run.h"
#include "support/file_chain.h"
#include "support/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;
using ckpt::test::write_file;

namespace {

void age(const std::string& path, std::chrono::hours hours) {
  fs::last_write_time(path, fs::file_time_type::clock::now() - hours);
}

// Every file under shared/ and taskowned/ made older than any margin.
void age_all(const std::string& root) {
  for (const char* d : {"shared", "taskowned"}) {
    if (!fs::exists(root + "/" + d)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root + "/" + d))
      if (e.is_regular_file()) age(e.path().string(), std::chrono::hours(48));
  }
}

std::set<std::string> orphan_paths(const GcReport& r) {
  std::set<std::string> out;
  for (const GcFile& f : r.orphans) out.insert(f.path);
  return out;
}

std::set<std::string> shared_and_taskowned(const std::set<std::string>& refs) {
  std::set<std::string> out;
  for (const std::string& p : refs)
    if (p.rfind("shared/", 0) == 0 || p.rfind("taskowned/", 0) == 0) out.insert(p);
  return out;
}

}  // namespace

TEST_CASE("gc finds the planted orphans - then the files freed by deleting the oldest checkpoint", "[unit][ops]") {
  // Planted files are the only orphans while every checkpoint is retained; removing chk-1 adds
  // exactly the shared files no later checkpoint references.
  ckpt::test::ScratchDir scratch;
  std::string root = scratch / "job";
  ckpt::test::FileChainSpec spec;
  spec.seed = 7;
  auto chain = ckpt::test::write_file_chain(root, spec);
  fs::create_directories(root + "/taskowned/sub");
  write_file(root + "/shared/planted-old", std::string(100, 'x'));
  write_file(root + "/taskowned/sub/planted", std::string(50, 'y'));
  age_all(root);
  write_file(root + "/shared/planted-young", std::string(10, 'z'));

  auto r = collect_garbage(root, GcOptions{});
  REQUIRE(r.ok());
  CHECK(r->retained == std::vector<std::string>{"chk-1", "chk-2", "chk-3", "chk-4"});
  CHECK(orphan_paths(*r) == std::set<std::string>{"shared/planted-old", "shared/planted-young", "taskowned/sub/planted"});
  CHECK(r->orphan_bytes == 160);
  CHECK(r->young_bytes == 10);
  for (const GcFile& f : r->orphans) CHECK(f.young == (f.path == "shared/planted-young"));

  fs::remove_all(root + "/chk-1");
  std::set<std::string> still;
  for (size_t i = 1; i < chain.shared.size(); ++i) still.insert(chain.shared[i].begin(), chain.shared[i].end());
  std::set<std::string> expected = {"shared/planted-old", "shared/planted-young", "taskowned/sub/planted"};
  for (const std::string& p : chain.shared[0])
    if (!still.count(p)) expected.insert(p);
  REQUIRE(expected.size() > 3);  // the chain's churn dropped something
  auto after = collect_garbage(root, GcOptions{});
  REQUIRE(after.ok());
  CHECK(orphan_paths(*after) == expected);

  // --apply: every old orphan goes, the young one stays, each deletion is logged.
  GcOptions apply;
  apply.apply = true;
  std::vector<std::string> log;
  apply.on_delete = [&](const GcFile& f) { log.push_back(f.path); };
  auto applied = collect_garbage(root, apply);
  REQUIRE(applied.ok());
  CHECK(applied->deleted == expected.size() - 1);
  CHECK(log.size() == expected.size() - 1);
  CHECK(fs::exists(root + "/shared/planted-young"));
  CHECK_FALSE(fs::exists(root + "/shared/planted-old"));
  for (const std::string& p : still) CHECK(fs::exists(root + "/" + p));
  auto again = collect_garbage(root, GcOptions{});
  REQUIRE(again.ok());
  CHECK(orphan_paths(*again) == std::set<std::string>{"shared/planted-young"});
}

TEST_CASE("gc never lists a referenced file - on random chains written here or elsewhere", "[unit][ops]") {
  // Property over seeds: random churn, random URI base (a local file: URI or a remote bucket
  // whose job directory is only a suffix), the oldest checkpoints removed, orphans planted.
  for (uint32_t seed = 1; seed <= 25; ++seed) {
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    ckpt::test::ScratchDir scratch;
    std::string root = scratch / "7d3e1f00c0ffee";
    ckpt::test::FileChainSpec spec;
    spec.seed = seed;
    spec.checkpoints = 2 + static_cast<int>(rng() % 5);
    spec.subtasks = 1 + static_cast<int>(rng() % 3);
    spec.churn = (rng() % 100) / 100.0;
    if (rng() % 2) spec.uri_base = "s3://bucket/shared/flink/7d3e1f00c0ffee";
    auto chain = ckpt::test::write_file_chain(root, spec);
    std::set<std::string> planted;
    for (unsigned i = 0, n = rng() % 4; i < n; ++i) {
      std::string p = (rng() % 2 ? "shared/orphan-" : "taskowned/orphan-") + std::to_string(i);
      fs::create_directories(fs::path(root + "/" + p).parent_path());
      write_file(root + "/" + p, "o");
      planted.insert(p);
    }
    int removed = static_cast<int>(rng() % static_cast<unsigned>(spec.checkpoints));
    for (int c = 1; c <= removed; ++c) fs::remove_all(root + "/chk-" + std::to_string(c));
    std::set<std::string> retained_refs;
    for (int c = removed; c < spec.checkpoints; ++c)
      for (const std::string& p : shared_and_taskowned(chain.referenced[static_cast<size_t>(c)])) retained_refs.insert(p);
    std::set<std::string> expected = planted;
    for (int c = 0; c < spec.checkpoints; ++c)
      for (const std::string& p : chain.shared[static_cast<size_t>(c)])
        if (!retained_refs.count(p)) expected.insert(p);
    age_all(root);
    GcOptions apply;
    apply.apply = true;
    auto r = collect_garbage(root, apply);
    REQUIRE(r.ok());
    CHECK(orphan_paths(*r) == expected);
    CHECK(r->deleted == expected.size());
    for (const std::string& p : retained_refs) CHECK(fs::exists(root + "/" + p));
  }
}

TEST_CASE("gc refuses to run when a checkpoint's _metadata cannot be read - naming it", "[unit][corrupt][ops]") {
  // A checkpoint that cannot be read might reference any file: nothing may be listed.
  ckpt::test::ScratchDir scratch;
  std::string root = scratch / "job";
  ckpt::test::write_file_chain(root, ckpt::test::FileChainSpec{});
  write_file(root + "/chk-3/_metadata", std::string("\x00\x00\x00\x03garbage", 11));
  auto r = collect_garbage(root, GcOptions{});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().to_string().find("chk-3/_metadata") != std::string::npos);
  auto cli = ckpt::test::run_cli({"gc", root, "--apply"});
  CHECK(cli.status == 2);
  CHECK(cli.err.find("chk-3/_metadata") != std::string::npos);
  CHECK(cli.err.find("refusing") != std::string::npos);
}

TEST_CASE("gc --json lists orphans relative to ROOT with sizes and deletes nothing without --apply", "[cli]") {
  // The JSON contract of ckpt-gc(1) and the dry-run default.
  ckpt::test::ScratchDir scratch;
  std::string root = scratch / "job";
  ckpt::test::write_file_chain(root, ckpt::test::FileChainSpec{});
  write_file(root + "/shared/stray", std::string(123, 's'));
  age_all(root);
  auto r = ckpt::test::run_cli({"gc", root, "--json", "--older-than", "30m"});
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["orphans"].size() == 1);
  CHECK(j["orphans"][0]["path"] == "shared/stray");
  CHECK(j["orphans"][0]["size"] == 123);
  CHECK(j["orphans"][0]["young"] == false);
  CHECK(j["deleted"] == 0);
  CHECK(fs::exists(root + "/shared/stray"));
  auto bad = ckpt::test::run_cli({"gc", root, "--older-than", "soon"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--older-than") != std::string::npos);
}

TEST_CASE("durations are seconds - minutes - hours and days - and nothing else", "[unit][ops]") {
  // The --older-than grammar.
  CHECK(*parse_duration("90") == 90);
  CHECK(*parse_duration("90s") == 90);
  CHECK(*parse_duration("15m") == 900);
  CHECK(*parse_duration("1h30m") == 5400);
  CHECK(*parse_duration("2d") == 172800);
  CHECK(*parse_duration("0") == 0);
  for (const char* bad : {"", "h", "1x", "-1h", "1h30", "99999999999999999999d"}) {
    INFO(bad);
    CHECK_FALSE(parse_duration(bad).ok());
  }
}

TEST_CASE("a URI matches a file under ROOT by its suffix from shared/ or taskowned/ on", "[unit][ops]") {
  // Base paths that themselves contain "shared" must not confuse the match.
  auto in = [](const std::string& rel) { return rel == "shared/a/b" || rel == "taskowned/t"; };
  CHECK(suffix_matches("s3://bucket/shared/x/job/shared/a/b", in) == std::vector<std::string>{"shared/a/b"});
  CHECK(suffix_matches("file:///mnt/job/taskowned/t", in) == std::vector<std::string>{"taskowned/t"});
  CHECK(suffix_matches("hdfs://nn:8020/job/shared/c", in).empty());
  CHECK(suffix_matches("/job/./shared/a/../a/b", in) == std::vector<std::string>{"shared/a/b"});
}
