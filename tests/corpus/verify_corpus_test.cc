// ckpt verify on Flink's own snapshots: every one is clean, quick and deep.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "ckpt/dump.h"
#include "ckpt/metadata.h"
#include "ckpt/verify.h"
#include "ckpt/walk.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

std::string problems_text(const VerifyReport& r) {
  std::string out;
  for (const VerifyProblem& p : r.problems) out += format_problem(p) + "\n";
  return out;
}

// SST files named by the snapshot's native handles: each is checksummed once.
size_t sst_references(const std::string& dir) {
  Result<Metadata> m = read_metadata_file(dir);
  REQUIRE(m.ok());
  size_t n = 0;
  for_each_stream(*m, [&](const StreamHandle&, const StreamSite& site) {
    n += site.local_name && site.local_name->ends_with(".sst");
  });
  return n;
}

// What ckpt dump counts: deep verification decodes exactly those entries.
uint64_t dumped_entries(const std::string& dir) {
  struct Count : DumpSink {
    void entry(const Entry&) override {}
    void problem(const Error&) override {}
  } sink;
  Result<DumpSummary> r = dump_snapshot(dir, DumpOptions{}, sink);
  REQUIRE(r.ok());
  return r->entries;
}

}  // namespace

TEST_CASE("every corpus snapshot passes the quick checks", "[corpus][ops]") {
  // Files exist with their declared sizes, key-group ranges are disjoint and cover the job,
  // offsets lie in their streams: for all 107 snapshots Flink wrote.
  CKPT_REQUIRE_SHARED();
  size_t files = 0, checked = 0;
  for (const std::string& dir : test::corpus_snapshots()) {
    INFO(dir);
    Result<VerifyReport> r = verify_snapshot(dir, VerifyOptions{});
    REQUIRE(r.ok());
    INFO(problems_text(*r));
    CHECK(r->clean());
    CHECK(r->operators > 0);
    files += r->files;
    ++checked;
  }
  CHECK(checked == test::corpus_snapshots().size());
  CHECK(files > 1000);  // the RocksDB and heap checkpoints reference files; many do
}

TEST_CASE("every corpus snapshot passes the deep checks", "[corpus][ops]") {
  // Every SST passes RocksDB's checksum verification and every stream decodes; what ckpt
  // cannot decode yet (a value needing the job's classes, in-memory change logs) is listed
  // as unchecked, never as a problem.
  CKPT_REQUIRE_SHARED();
  size_t ssts = 0, with_unchecked = 0;
  uint64_t entries = 0;
  for (const std::string& dir : test::corpus_snapshots()) {
    INFO(dir);
    VerifyOptions options;
    options.deep = true;
    options.jobs = 2;
    Result<VerifyReport> r = verify_snapshot(dir, options);
    REQUIRE(r.ok());
    INFO(problems_text(*r));
    CHECK(r->clean());
    ssts += r->sst_files;
    entries += r->entries;
    if (!r->unchecked.empty()) ++with_unchecked;
    CHECK(r->sst_files == sst_references(dir));
    if (r->unchecked.empty()) CHECK(r->entries == dumped_entries(dir));
  }
  CHECK(ssts > 100);
  CHECK(entries > 1000);
  CHECK(with_unchecked <= 3);  // dump's known gaps (tests/corpus/dump_corpus_test.cc)
}

TEST_CASE("ckpt verify exits 0 on a clean snapshot and says so - in text and JSON", "[corpus][cli]") {
  // The CLI prints the summary line and a JSON document whose counts match the library's.
  CKPT_REQUIRE_SHARED();
  std::string dir = test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint";
  test::CliResult text = test::run_cli({"verify", dir, "--deep"});
  CHECK(text.status == 0);
  CHECK(text.out.find(": ok (deep,") != std::string::npos);
  test::CliResult js = test::run_cli({"verify", dir, "--deep", "--json"});
  REQUIRE(js.status == 0);
  nlohmann::json j = nlohmann::json::parse(js.out);
  CHECK(j["clean"] == true);
  CHECK(j["problems"].empty());
  VerifyOptions options;
  options.deep = true;
  Result<VerifyReport> r = verify_snapshot(dir, options);
  REQUIRE(r.ok());
  CHECK(j["sst_file_count"] == r->sst_files);
  CHECK(j["entry_count"] == r->entries);
  CHECK(j["file_count"] == r->files);
}

TEST_CASE("ckpt verify exits 2 when there is no snapshot", "[cli]") {
  // Could not run is not the same as found problems.
  test::ScratchDir scratch;
  test::CliResult r = test::run_cli({"verify", scratch / "nothing-here"});
  CHECK(r.status == 2);
  CHECK(r.err.find("ckpt: error:") != std::string::npos);
}
