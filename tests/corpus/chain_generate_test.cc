// diff, gc, verify and compact on a real incremental chain from generate_snapshot(), against file sets read from each _metadata.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "ckpt/compact.h"
#include "ckpt/diff.h"
#include "ckpt/gc.h"
#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "ckpt/verify.h"
#include "testlib/dump_lines.h"
#include "testlib/path_sets.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;
using test::minus;
using test::orphan_paths;

namespace {

// "file:///x" and "file:/x" name one local file; the expected sets must not depend on the spelling.
std::string local_path(const std::string& uri) {
  std::string p = uri;
  if (p.starts_with("file:")) p = p.substr(5);
  while (p.starts_with("//")) p = p.substr(1);
  return fs::path(p).lexically_normal().string();
}

void add_stream(const StreamHandle& s, std::set<std::string>* out) {
  if (s.is_file()) out->insert(local_path(s.path));
}

void add_keyed(const KeyedHandle& k, std::set<std::string>* out) {
  add_stream(k.delegate, out);
  for (const NamedStream& n : k.shared_files) add_stream(n.handle, out);
  for (const NamedStream& n : k.private_files) add_stream(n.handle, out);
  for (const KeyedHandle& m : k.materialized) add_keyed(m, out);
  for (const KeyedHandle& m : k.non_materialized) add_keyed(m, out);
}

// Every file a checkpoint's _metadata references, decoded by the metadata codec alone.
std::set<std::string> referenced(const std::string& chk_dir) {
  auto md = read_metadata_file(chk_dir + "/_metadata");
  REQUIRE(md.ok());
  std::set<std::string> out;
  for (const OperatorState& op : md->operators) {
    add_stream(op.coordinator, &out);
    for (const SubtaskState& st : op.subtasks) {
      for (const OperatorHandle& h : st.managed_operator) add_stream(h.delegate, &out);
      for (const OperatorHandle& h : st.raw_operator) add_stream(h.delegate, &out);
      add_keyed(st.managed_keyed, &out);
      add_keyed(st.raw_keyed, &out);
    }
  }
  return out;
}

std::set<std::string> paths_of(const std::vector<DiffFile>& files) {
  std::set<std::string> out;
  for (const DiffFile& f : files) out.insert(local_path(f.uri));
  return out;
}

// The path from the job directory on ("shared/x"), as gc reports it; empty for private files.
std::string job_relative(const std::string& path) {
  for (const char* d : {"/shared/", "/taskowned/"}) {
    size_t at = path.rfind(d);
    if (at != std::string::npos) return path.substr(at + 1);
  }
  return "";
}

// chk-1..chk-4 of a small RocksDB job, half of whose SST buckets each checkpoint rewrites.
GenerateOptions generate_chain(const test::ScratchDir& scratch, uint64_t seed) {
  GenerateOptions g;
  g.output = fs::weakly_canonical(scratch / "job").string();
  g.chain = 4;
  g.keys = 200;
  g.churn = 0.5;
  g.seed = seed;
  REQUIRE(generate_snapshot(g).ok());
  return g;
}

void make_old(const std::string& path) {
  fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::hours(48));
}

}  // namespace

TEST_CASE("generated chain - diff of consecutive checkpoints lists exactly the files the metadata adds and drops", "[chain][ops]") {
  // The expected added, removed and shared sets come from decoding both _metadata files, not
  // from diff: a real generated chain with churn must show each SST in exactly one set.
  test::ScratchDir scratch;
  GenerateOptions g = generate_chain(scratch, 13);

  bool churned = false;
  for (int c = 1; c < 4; ++c) {
    INFO("chk-" << c << " -> chk-" << c + 1);
    std::string a = g.output + "/chk-" + std::to_string(c), b = g.output + "/chk-" + std::to_string(c + 1);
    std::set<std::string> ra = referenced(a), rb = referenced(b);
    auto r = diff_snapshots(a, b, DiffOptions{});
    REQUIRE(r.ok());
    CHECK(paths_of(r->files_added) == minus(rb, ra));
    CHECK(paths_of(r->files_removed) == minus(ra, rb));
    CHECK(paths_of(r->files_shared) == minus(rb, minus(rb, ra)));
    CHECK(r->files_added.size() + r->files_shared.size() == rb.size());
    CHECK_FALSE(r->structure_differs());
    if (!minus(ra, rb).empty() && !minus(rb, minus(rb, ra)).empty()) churned = true;
  }
  CHECK(churned);  // the chain both reused and replaced files, so the sets were not trivial
}

TEST_CASE("generated chain - gc finds planted orphans and the files freed by dropping chk-1 and every retained checkpoint still verifies", "[chain][ops]") {
  // Orphans must be exactly the planted files, then those plus what only chk-1 referenced;
  // after apply every remaining checkpoint is clean quick and deep and keeps all its files.
  test::ScratchDir scratch;
  GenerateOptions g = generate_chain(scratch, 29);
  const std::string root = g.output;

  fs::create_directories(root + "/taskowned");
  const std::set<std::string> planted = {"shared/orphan-a-sst", "shared/orphan-b", "taskowned/orphan-c"};
  for (const std::string& p : planted) test::write_file(root + "/" + p, std::string(64, 'o'));
  for (const char* d : {"shared", "taskowned"})
    for (const auto& e : fs::recursive_directory_iterator(root + "/" + d))
      if (e.is_regular_file()) make_old(e.path().string());

  auto first = collect_garbage(root, GcOptions{});
  REQUIRE(first.ok());
  CHECK(first->retained == std::vector<std::string>{"chk-1", "chk-2", "chk-3", "chk-4"});
  CHECK(orphan_paths(*first) == planted);

  std::set<std::string> ref1, later;
  for (const std::string& p : referenced(root + "/chk-1")) ref1.insert(p);
  for (int c = 2; c <= 4; ++c)
    for (const std::string& p : referenced(root + "/chk-" + std::to_string(c))) later.insert(p);
  std::set<std::string> expected = planted;
  for (const std::string& p : minus(ref1, later)) {
    std::string rel = job_relative(p);
    if (!rel.empty()) expected.insert(rel);
  }
  REQUIRE(expected.size() > planted.size());  // churn 0.5 replaced some of chk-1's SSTs

  fs::remove_all(root + "/chk-1");
  auto second = collect_garbage(root, GcOptions{});
  REQUIRE(second.ok());
  CHECK(second->retained == std::vector<std::string>{"chk-2", "chk-3", "chk-4"});
  CHECK(orphan_paths(*second) == expected);
  for (const GcFile& f : second->orphans) CHECK_FALSE(later.count(root + "/" + f.path));

  GcOptions apply;
  apply.apply = true;
  apply.older_than_seconds = 0;
  auto applied = collect_garbage(root, apply);
  REQUIRE(applied.ok());
  CHECK(applied->deleted == expected.size());
  CHECK(applied->failed == 0);
  for (const std::string& p : expected) CHECK_FALSE(fs::exists(root + "/" + p));
  for (const std::string& p : later) CHECK(fs::exists(p));

  for (int c = 2; c <= 4; ++c) {
    std::string chk = root + "/chk-" + std::to_string(c);
    INFO(chk);
    auto quick = verify_snapshot(chk, VerifyOptions{});
    REQUIRE(quick.ok());
    CHECK(quick->clean());
    VerifyOptions deep_options;
    deep_options.deep = true;
    auto deep = verify_snapshot(chk, deep_options);
    REQUIRE(deep.ok());
    CHECK(deep->clean());
    CHECK(deep->sst_files > 0);
  }
  auto after = collect_garbage(root, GcOptions{});
  REQUIRE(after.ok());
  CHECK(after->orphans.empty());
}

TEST_CASE("generated chain - compact of the last checkpoint dumps identically with fewer SST files", "[chain][ops]") {
  // The chain's last checkpoint references one SST per state and bucket, written by several
  // earlier checkpoints; compaction must merge them per instance into fewer files and keep
  // every entry, in the same dump order, while the input stays untouched.
  test::ScratchDir scratch;
  GenerateOptions g = generate_chain(scratch, 41);
  const std::string last = g.output + "/chk-4";
  const std::set<std::string> inputs = referenced(last);
  const std::vector<std::string> before = ckpt::test::dump_lines(last);
  REQUIRE(before.size() > 100);

  const std::string out = scratch / "compacted";
  auto r = compact_snapshot(last, out, CompactOptions{});
  REQUIRE(r.ok());
  CHECK(r->instances > 0);
  CHECK(r->sst_files_before > r->instances);  // more than one SST per instance to merge
  CHECK(r->sst_files_after < r->sst_files_before);
  CHECK(r->files_after < r->files_before);
  CHECK(ckpt::test::dump_lines(out) == before);
  CHECK(referenced(last) == inputs);
  for (const std::string& p : inputs) CHECK(fs::exists(p));
  auto verified = verify_snapshot(out, VerifyOptions{});
  REQUIRE(verified.ok());
  CHECK(verified->clean());
}
