// ckpt gc: exactly the unreferenced files, never a referenced one, nothing young, refusal on
// an unreadable checkpoint; on placeholder chains of random shapes and generated RocksDB chains,
// with symlinks out of ROOT, other roots and savepoints referencing ROOT's files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "ckpt/gc.h"
#include "ckpt/generate.h"
#include "ckpt/resolve.h"
#include "testlib/cli_run.h"
#include "testlib/file_chain.h"
#include "testlib/path_sets.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;
using ckpt::test::orphan_paths;
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

std::set<std::string> shared_and_taskowned(const std::set<std::string>& refs) {
  std::set<std::string> out;
  for (const std::string& p : refs)
    if (p.starts_with("shared/") || p.starts_with("taskowned/")) out.insert(p);
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
  CHECK(j["deleted_file_count"] == 0);
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

// ---------------------------------------------------------------------------------------------
// Data safety: nothing outside ROOT, nothing another root or a savepoint references, nothing
// when no checkpoint is retained. Run through the CLI, as an operator would.

namespace {

// Every entry under `dir` (symlinks not followed, shown with their target) with its content:
// two calls compare equal exactly when nothing under `dir` changed.
std::map<std::string, std::string> tree_contents(const std::string& dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string rel = fs::path(it->path()).lexically_relative(dir).generic_string();
    if (it->is_symlink()) out[rel] = "-> " + fs::read_symlink(it->path()).string();
    else if (it->is_regular_file()) out[rel] = ckpt::test::read_file(it->path().string());
    else out[rel + "/"] = "";
  }
  return out;
}

// Regular files under ROOT/shared and ROOT/taskowned reached without following a symlink.
std::set<std::string> scannable_files(const std::string& root) {
  std::set<std::string> out;
  for (const char* d : {"shared", "taskowned"}) {
    std::string top = root + "/" + d;
    if (fs::is_symlink(top) || !fs::is_directory(top)) continue;
    for (const auto& e : fs::recursive_directory_iterator(top))
      if (!e.is_symlink() && e.is_regular_file()) out.insert(fs::path(e.path()).lexically_relative(root).generic_string());
  }
  return out;
}

void plant(const std::string& path, const std::string& bytes) {
  fs::create_directories(fs::path(path).parent_path());
  write_file(path, bytes);
  age(path, std::chrono::hours(48));
}

std::vector<std::string> json_strings(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const auto& s : j) out.push_back(s.get<std::string>());
  return out;
}

bool holds(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A job directory holding a placeholder chain with every file old, and a directory beside it.
struct AgedJob {
  ckpt::test::ScratchDir scratch;
  std::string root = scratch / "job";
  std::string outside = scratch / "outside";
  ckpt::test::FileChain chain = ckpt::test::write_file_chain(root, ckpt::test::FileChainSpec{});
  AgedJob() { age_all(root); }
};

}  // namespace

TEST_CASE("gc --apply never follows a symlinked shared or taskowned directory out of ROOT", "[ops][unit]") {
  // Old ckpt followed ROOT/taskowned -> elsewhere and deleted the files there. Symlinks at
  // the top and deeper down are reported, never descended, never deleted.
  AgedJob job;
  const std::string &root = job.root, &outside = job.outside;
  const auto& scratch = job.scratch;
  plant(outside + "/victim-1", std::string(300, 'v'));
  plant(outside + "/deep/victim-2", std::string(200, 'w'));
  plant(scratch / "elsewhere/victim-3", "x");
  fs::create_directory_symlink(outside, root + "/taskowned");
  fs::create_directory_symlink(scratch / "elsewhere", root + "/shared/nested");
  fs::create_symlink(outside + "/victim-1", root + "/shared/link-to-file");
  plant(root + "/shared/real-orphan", "o");
  auto before_outside = tree_contents(outside);
  auto before_elsewhere = tree_contents(scratch / "elsewhere");

  auto r = ckpt::test::run_cli({"gc", root, "--apply", "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(tree_contents(outside) == before_outside);
  CHECK(tree_contents(scratch / "elsewhere") == before_elsewhere);
  CHECK(fs::is_symlink(root + "/shared/link-to-file"));
  CHECK_FALSE(fs::exists(root + "/shared/real-orphan"));
  CHECK(j["deleted_file_count"] == 1);
  auto skipped = json_strings(j["skipped_symlinks"]);
  std::sort(skipped.begin(), skipped.end());
  CHECK(skipped == std::vector<std::string>{"shared/link-to-file", "shared/nested", "taskowned"});

  // shared/ itself a symlink: nothing under it is even listed.
  std::string root2 = scratch / "job2";
  ckpt::test::write_file_chain(root2, ckpt::test::FileChainSpec{});
  fs::rename(root2 + "/shared", scratch / "moved-shared");
  fs::create_directory_symlink(scratch / "moved-shared", root2 + "/shared");
  plant(scratch / "moved-shared/stray", "s");
  auto before_moved = tree_contents(scratch / "moved-shared");
  auto r2 = ckpt::test::run_cli({"gc", root2, "--apply", "--json"});
  INFO(r2.err);
  REQUIRE(r2.status == 0);
  auto j2 = nlohmann::json::parse(r2.out);
  CHECK(j2["scanned_file_count"] == 0);
  CHECK(json_strings(j2["skipped_symlinks"]) == std::vector<std::string>{"shared"});
  CHECK(tree_contents(scratch / "moved-shared") == before_moved);
  CHECK(r2.out.find("skipped_symlinks") != std::string::npos);
  auto text = ckpt::test::run_cli({"gc", root2});
  CHECK(text.out.find("symlink") != std::string::npos);
}

TEST_CASE("gc deletes nothing through a directory swapped for a symlink after the scan", "[ops][unit]") {
  // Between the scan and the deletions, shared/sub becomes a symlink to a directory outside
  // ROOT holding a file of the same name, and shared/swapped is replaced by another file: the
  // deletion must neither follow the link nor remove a file it did not scan.
  AgedJob job;
  const std::string &root = job.root, &outside = job.outside;
  const auto& scratch = job.scratch;
  plant(root + "/shared/aaa-first", "1");
  plant(root + "/shared/sub/victim", std::string(10, 'r'));
  plant(root + "/shared/swapped", std::string(7, 'q'));
  plant(outside + "/victim", std::string(10, 'o'));
  auto before_outside = tree_contents(outside);

  GcOptions apply;
  apply.apply = true;
  apply.older_than_seconds = 3600;
  bool swapped = false;
  std::map<std::string, std::string> errors;
  apply.on_delete = [&](const GcFile& f) {
    if (!f.error.empty()) errors[f.path] = f.error;
    if (swapped) return;
    swapped = true;
    fs::rename(root + "/shared/sub", scratch / "sub-moved");
    fs::create_directory_symlink(outside, root + "/shared/sub");
    fs::remove(root + "/shared/swapped");
    write_file(root + "/shared/swapped", "a file gc never saw");
  };
  auto r = collect_garbage(root, apply);
  REQUIRE(r.ok());
  CHECK(swapped);
  CHECK(tree_contents(outside) == before_outside);
  CHECK(ckpt::test::read_file(root + "/shared/swapped") == "a file gc never saw");
  CHECK_FALSE(fs::exists(root + "/shared/aaa-first"));
  CHECK(errors.count("shared/sub/victim") == 1);
  CHECK(errors.count("shared/swapped") == 1);
  CHECK(r->failed == 2);
}

TEST_CASE("gc refuses when no checkpoint is retained - unless --allow-empty", "[ops][unit]") {
  // Another job restored in CLAIM or legacy mode may reference every shared file of a root
  // whose own checkpoints are gone: listing them all as orphans must be asked for.
  ckpt::test::ScratchDir scratch;
  std::string root = scratch / "job";
  ckpt::test::write_file_chain(root, ckpt::test::FileChainSpec{});
  for (int c = 1; c <= 4; ++c) fs::remove_all(root + "/chk-" + std::to_string(c));
  fs::create_directory(root + "/chk-5");  // in progress: no _metadata
  age_all(root);
  auto files = scannable_files(root);
  REQUIRE(files.size() > 4);

  auto refused = ckpt::test::run_cli({"gc", root, "--apply"});
  CHECK(refused.status == 2);
  CHECK(refused.err.find("nothing is retained") != std::string::npos);
  CHECK(refused.err.find("--allow-empty") != std::string::npos);
  CHECK(scannable_files(root) == files);
  CHECK(ckpt::test::run_cli({"gc", root}).status == 2);

  auto allowed = ckpt::test::run_cli({"gc", root, "--apply", "--allow-empty", "--json"});
  INFO(allowed.err);
  REQUIRE(allowed.status == 0);
  CHECK(nlohmann::json::parse(allowed.out)["deleted_file_count"] == files.size());
  CHECK(scannable_files(root).empty());
}

TEST_CASE("gc keeps the files of ROOT that another root's checkpoints or savepoints reference", "[ops][unit]") {
  // Job B was restored from job A's chk-3 in CLAIM mode: B's checkpoints reference A's
  // shared/ files. A's own checkpoints are gone; only --referenced-by B protects them.
  ckpt::test::ScratchDir scratch;
  std::string a = scratch / "jobs/a", b = scratch / "jobs/b", sp = scratch / "savepoints";
  auto chain_a = ckpt::test::write_file_chain(a, ckpt::test::FileChainSpec{});
  ckpt::test::FileChainSpec spec_b;
  spec_b.seed = 99;
  ckpt::test::write_file_chain(b, spec_b);
  fs::create_directories(b + "/chk-9");
  fs::copy_file(a + "/chk-3/_metadata", b + "/chk-9/_metadata");
  fs::create_directories(sp + "/savepoint-7d3e1f-0123456789ab");
  fs::copy_file(a + "/chk-1/_metadata", sp + "/savepoint-7d3e1f-0123456789ab/_metadata");
  for (int c = 1; c <= 4; ++c) fs::remove_all(a + "/chk-" + std::to_string(c));
  age_all(a);
  std::set<std::string> kept = chain_a.shared[2];
  kept.insert(chain_a.shared[0].begin(), chain_a.shared[0].end());
  std::set<std::string> freed;
  for (const std::string& p : scannable_files(a))
    if (!kept.count(p)) freed.insert(p);
  REQUIRE(!freed.empty());
  auto b_before = tree_contents(b);

  auto r = ckpt::test::run_cli({"gc", "--referenced-by", b, "--referenced-by", sp, a, "--apply", "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  for (const std::string& p : kept) CHECK(fs::exists(a + "/" + p));
  CHECK(scannable_files(a) == kept);
  CHECK(j["deleted_file_count"] == freed.size());
  CHECK(tree_contents(b) == b_before);
  REQUIRE(j["referenced_by"].size() == 2);
  CHECK(j["referenced_by"][0]["directory"] == b);
  CHECK(holds(json_strings(j["referenced_by"][0]["snapshots"]), "chk-9"));
  CHECK(json_strings(j["referenced_by"][1]["snapshots"]) == std::vector<std::string>{"savepoint-7d3e1f-0123456789ab"});

  // A snapshot directory itself may be named: then only the savepoint's files are orphans.
  auto one = ckpt::test::run_cli({"gc", a, "--referenced-by", b + "/chk-9", "--json"});
  INFO(one.err);
  REQUIRE(one.status == 0);
  std::set<std::string> listed, savepoint_only;
  auto one_json = nlohmann::json::parse(one.out);
  for (const auto& o : one_json["orphans"]) listed.insert(o["path"].get<std::string>());
  for (const std::string& p : kept)
    if (!chain_a.shared[2].count(p)) savepoint_only.insert(p);
  REQUIRE(!savepoint_only.empty());
  CHECK(listed == savepoint_only);

  // A root that cannot be read, or holds nothing, is a refusal, not an empty reference set.
  write_file(b + "/chk-2/_metadata", "not a checkpoint");
  auto bad = ckpt::test::run_cli({"gc", a, "--referenced-by", b, "--allow-empty"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("chk-2/_metadata") != std::string::npos);
  auto empty = ckpt::test::run_cli({"gc", a, "--referenced-by", scratch / "jobs", "--allow-empty"});
  CHECK(empty.status == 2);
  CHECK(empty.err.find("jobs") != std::string::npos);
  auto missing = ckpt::test::run_cli({"gc", a, "--referenced-by", scratch / "no-such-dir", "--allow-empty"});
  CHECK(missing.status == 2);
}

TEST_CASE("gc keeps the shared files a savepoint under ROOT references", "[ops][unit]") {
  // savepoint-* directories beside chk-* are snapshots too (a savepoint taken in a format
  // that references shared files, or a checkpoint copied as one).
  ckpt::test::ScratchDir scratch;
  std::string root = scratch / "job";
  auto chain = ckpt::test::write_file_chain(root, ckpt::test::FileChainSpec{});
  fs::create_directories(root + "/savepoint-7d3e1f-00aa11bb22cc");
  fs::copy_file(root + "/chk-1/_metadata", root + "/savepoint-7d3e1f-00aa11bb22cc/_metadata");
  for (int c = 1; c <= 3; ++c) fs::remove_all(root + "/chk-" + std::to_string(c));
  age_all(root);
  auto r = ckpt::test::run_cli({"gc", root, "--apply", "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  for (const std::string& p : chain.shared[0]) CHECK(fs::exists(root + "/" + p));
  for (const std::string& p : chain.shared[3]) CHECK(fs::exists(root + "/" + p));
  auto j = nlohmann::json::parse(r.out);
  CHECK(json_strings(j["savepoints"]) == std::vector<std::string>{"savepoint-7d3e1f-00aa11bb22cc"});
  std::set<std::string> expected = chain.shared[0];
  expected.insert(chain.shared[3].begin(), chain.shared[3].end());
  CHECK(scannable_files(root) == expected);
}

TEST_CASE("gc refuses a _metadata that is a dangling symlink or not a regular file", "[ops][unit][corrupt]") {
  // fs::exists follows the link and says no; an unreadable checkpoint may still need any file.
  AgedJob job;
  const std::string& root = job.root;
  const auto& scratch = job.scratch;
  plant(root + "/shared/stray", "s");
  struct Case {
    const char* name;
    std::function<void()> make;
    const char* names;
  };
  std::vector<Case> cases = {
      {"dangling _metadata", [&] { fs::create_directories(root + "/chk-9"); fs::create_symlink(scratch / "gone", root + "/chk-9/_metadata"); }, "chk-9/_metadata"},
      {"directory _metadata", [&] { fs::create_directories(root + "/chk-9/_metadata"); }, "chk-9/_metadata"},
      {"dangling savepoint _metadata", [&] { fs::create_directories(root + "/savepoint-aa-bb"); fs::create_symlink(scratch / "gone", root + "/savepoint-aa-bb/_metadata"); }, "savepoint-aa-bb/_metadata"},
      {"dangling chk dir", [&] { fs::create_directory_symlink(scratch / "gone", root + "/chk-9"); }, "chk-9"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    c.make();
    auto r = ckpt::test::run_cli({"gc", root, "--apply"});
    CHECK(r.status == 2);
    CHECK(r.err.find(c.names) != std::string::npos);
    CHECK(fs::exists(root + "/shared/stray"));
    fs::remove_all(root + "/chk-9");
    fs::remove_all(root + "/savepoint-aa-bb");
  }
}

TEST_CASE("a relative handle climbing out of ROOT marks only the file it names", "[ops][unit]") {
  // A type-6 path is relative to the snapshot's directory: "../../job/shared/x" from
  // job/chk-1 is job/shared/x (kept); "../../other/shared/y" is not ROOT's shared/y.
  ckpt::test::ScratchDir scratch;
  std::string root = scratch / "job";
  auto chain = ckpt::test::write_file_chain(root, ckpt::test::FileChainSpec{});
  Metadata m = chain.metadata[3];
  StreamHandle back_in, elsewhere;
  back_in.type = elsewhere.type = handle_type::kRelativeFile;
  back_in.path = "../../job/shared/climbed";
  elsewhere.path = "../../other/shared/lookalike";
  back_in.size = elsewhere.size = 1;
  auto& k = m.operators[0].subtasks[0].managed_keyed;
  k.shared_files.push_back({"000901.sst", back_in});
  k.shared_files.push_back({"000902.sst", elsewhere});
  auto bytes = encode_metadata(m);
  REQUIRE(bytes.ok());
  write_file(root + "/chk-4/_metadata", *bytes);
  age_all(root);
  plant(root + "/shared/climbed", "c");
  plant(root + "/shared/lookalike", "l");
  plant(scratch / "other/shared/lookalike", "L");
  auto r = ckpt::test::run_cli({"gc", root, "--apply", "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(fs::exists(root + "/shared/climbed"));
  CHECK_FALSE(fs::exists(root + "/shared/lookalike"));
  CHECK(ckpt::test::read_file(scratch / "other/shared/lookalike") == "L");
  CHECK(suffix_matches("s3://b/job/shared/../../../x/shared/a/b",
                       [](const std::string& rel) { return rel.find("..") == std::string::npos; }) ==
        std::vector<std::string>{"shared/a/b"});
}

TEST_CASE("gc keeps orphans younger than a day by default", "[ops][unit]") {
  // Flink uploads a checkpoint's shared files before its _metadata exists, and ForSt (Flink
  // 2.x) writes its live SSTs into shared/ long before a checkpoint references them.
  CHECK(GcOptions{}.older_than_seconds == 86400);
  ckpt::test::ScratchDir scratch;
  std::string root = scratch / "job";
  ckpt::test::write_file_chain(root, ckpt::test::FileChainSpec{});
  fs::create_directories(root + "/shared/op_abc_attempt_0");
  write_file(root + "/shared/op_abc_attempt_0/000042.sst", "live");
  age(root + "/shared/op_abc_attempt_0/000042.sst", std::chrono::hours(5));
  auto r = ckpt::test::run_cli({"gc", root, "--apply", "--json"});
  REQUIRE(r.status == 0);
  CHECK(fs::exists(root + "/shared/op_abc_attempt_0/000042.sst"));
  CHECK(nlohmann::json::parse(r.out)["young_bytes"] == 4);
}

TEST_CASE("gc --apply over several roots keeps every referenced byte and touches nothing outside ROOT", "[ops][unit]") {
  // Property over seeds: root A (chains of random shapes, from ckpt generate or placeholder
  // files), root B restored from one of A's checkpoints, savepoints of A beside and apart,
  // symlinks from A's shared/ and taskowned/ to a tree outside, planted orphans. After
  // `gc A --referenced-by B ... --apply`: every file of A that a retained snapshot of A or B
  // references (found by the resolver, not by gc) has its bytes, the outside tree and B are
  // unchanged, and every other file of A's shared/ and taskowned/ is gone.
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    INFO("seed " << seed);
    std::mt19937 rng(seed);
    ckpt::test::ScratchDir scratch;
    std::string a = scratch / "jobs/a", b = scratch / "jobs/b", outside = scratch / "outside";
    int checkpoints = 0;
    fs::create_directories(scratch / "jobs");
    if (seed % 4 == 1) {
      GenerateOptions g;
      g.output = a;
      g.chain = checkpoints = 3 + static_cast<int>(rng() % 2);
      g.keys = 60;
      g.value_size = 16;
      g.seed = seed;
      g.churn = 0.5;
      g.states = {"value", "map"};
      REQUIRE(generate_snapshot(g).ok());
    } else {
      ckpt::test::FileChainSpec spec;
      spec.seed = seed;
      spec.checkpoints = checkpoints = 2 + static_cast<int>(rng() % 4);
      spec.subtasks = 1 + static_cast<int>(rng() % 3);
      spec.churn = (rng() % 80) / 100.0;
      ckpt::test::write_file_chain(a, spec);
    }
    ckpt::test::FileChainSpec spec_b;
    spec_b.seed = seed + 1000;
    ckpt::test::write_file_chain(b, spec_b);
    int restored = 1 + static_cast<int>(rng() % static_cast<unsigned>(checkpoints));
    fs::create_directories(b + "/chk-20");
    fs::copy_file(a + "/chk-" + std::to_string(restored) + "/_metadata", b + "/chk-20/_metadata");
    std::vector<std::string> referencing = {b};
    if (rng() % 2) {
      int c = 1 + static_cast<int>(rng() % static_cast<unsigned>(checkpoints));
      fs::create_directories(a + "/savepoint-aaaaaa-00000000000" + std::to_string(c));
      fs::copy_file(a + "/chk-" + std::to_string(c) + "/_metadata",
                    a + "/savepoint-aaaaaa-00000000000" + std::to_string(c) + "/_metadata");
    }
    if (rng() % 2) {
      int c = 1 + static_cast<int>(rng() % static_cast<unsigned>(checkpoints));
      fs::create_directories(scratch / "savepoints/savepoint-bbbbbb-0000000000ff");
      fs::copy_file(a + "/chk-" + std::to_string(c) + "/_metadata", scratch / "savepoints/savepoint-bbbbbb-0000000000ff/_metadata");
      referencing.push_back(scratch / "savepoints");
    }
    int removed = static_cast<int>(rng() % static_cast<unsigned>(checkpoints + 1));
    for (int c = 1; c <= removed; ++c) fs::remove_all(a + "/chk-" + std::to_string(c));
    plant(outside + "/f1", "outside-1");
    plant(outside + "/sub/f2", "outside-2");
    if (rng() % 2) fs::create_directory_symlink(outside, a + "/shared/linked-dir");
    if (rng() % 2) fs::create_symlink(outside + "/f1", a + "/shared/linked-file");
    bool linked_taskowned = !fs::exists(a + "/taskowned") && rng() % 2;
    if (linked_taskowned) fs::create_directory_symlink(outside + "/sub", a + "/taskowned");
    for (unsigned i = 0, n = 1 + rng() % 4; i < n; ++i)
      plant(a + (rng() % 2 || linked_taskowned ? "/shared/orphan-" : "/taskowned/t/orphan-") + std::to_string(i),
            std::string(i + 1, 'o'));
    age_all(a);

    // The truth, from the resolver: files of A referenced by any retained snapshot.
    std::vector<std::string> snapshots;
    for (const std::string& dir : {a, b, scratch / "savepoints"}) {
      if (!fs::exists(dir)) continue;
      for (const auto& e : fs::directory_iterator(dir))
        if (fs::exists(e.path() / "_metadata")) snapshots.push_back(e.path().string());
    }
    std::map<std::string, std::string> referenced;
    std::string a_canonical = fs::canonical(a).string() + "/";
    for (const std::string& s : snapshots) {
      auto where = locate_snapshot(s);
      REQUIRE(where.ok());
      auto m = read_metadata_file(where->metadata_path);
      REQUIRE(m.ok());
      Result<std::vector<ReferencedFile>> files = resolve_files(*m, *where, {});
      REQUIRE(files.ok());
      for (const ReferencedFile& f : *files) {
        if (!f.exists || !f.path) continue;
        std::string p = fs::weakly_canonical(*f.path).string();
        if (p.starts_with(a_canonical)) referenced[p.substr(a_canonical.size())] = ckpt::test::read_file(p);
      }
    }
    std::set<std::string> expected_left;
    for (const std::string& p : scannable_files(a))
      if (referenced.count(p)) expected_left.insert(p);
    auto outside_before = tree_contents(outside);
    auto b_before = tree_contents(b);

    std::vector<std::string> args = {"gc", a, "--apply", "--json", "--allow-empty"};
    for (const std::string& d : referencing) {
      args.push_back("--referenced-by");
      args.push_back(d);
    }
    auto r = ckpt::test::run_cli(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    for (const auto& [p, bytes] : referenced) {
      INFO(p);
      REQUIRE(fs::exists(a + "/" + p));
      CHECK(ckpt::test::read_file(a + "/" + p) == bytes);
    }
    CHECK(scannable_files(a) == expected_left);
    CHECK(tree_contents(outside) == outside_before);
    CHECK(tree_contents(b) == b_before);
  }
}
