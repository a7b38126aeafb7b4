// ckpt ls on a root of three jobs, each with five retained checkpoints and two savepoints, and
// checkpoints in progress (no _metadata): exactly what is there, which is complete, what gc
// does about each; ckpt inspect on a job directory or a root points to ckpt ls. The same root
// in a bucket of a loopback moto server lists the same.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/generate.h"
#include "ckpt/query.h"
#include "testlib/cli_run.h"
#include "testlib/s3_fixtures.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

void generate_in_job(const std::string& output, GenerateBackend backend, int32_t chain, uint64_t seed) {
  GenerateOptions g;
  g.output = output;
  g.backend = backend;
  g.chain = chain;
  g.keys = 40;
  g.parallelism = 1;
  g.value_size = 8;
  g.seed = seed;
  auto s = generate_snapshot(g);
  INFO((s.ok() ? "" : s.error().to_string()));
  REQUIRE(s.ok());
}

// root/flink/job-N: chk-1..chk-5 and two savepoints each; job-2/chk-6 in progress now,
// job-3/chk-6 in progress for two days (with a file it uploaded to shared/ as old).
void write_jobs(const std::string& root) {
  fs::create_directories(root + "/flink");
  for (int j = 1; j <= 3; ++j) {
    const std::string job = root + "/flink/job-" + std::to_string(j);
    generate_in_job(job, GenerateBackend::kRocksDb, 5, static_cast<uint64_t>(j));
    generate_in_job(job + "/savepoint-00000" + std::to_string(j) + "-0000000000a1", GenerateBackend::kCanonical, 0, 7);
    generate_in_job(job + "/savepoint-00000" + std::to_string(j) + "-0000000000b2", GenerateBackend::kHeap, 0, 8);
  }
  fs::create_directories(root + "/flink/job-2/chk-6");
  fs::create_directories(root + "/flink/job-3/chk-6");
  test::write_file(root + "/flink/job-3/shared/uploaded-by-chk-6", "sst");
  const auto two_days_ago = fs::file_time_type::clock::now() - std::chrono::hours(48);
  fs::last_write_time(root + "/flink/job-3/shared/uploaded-by-chk-6", two_days_ago);
  fs::last_write_time(root + "/flink/job-3/chk-6", two_days_ago);
}

}  // namespace

TEST_CASE("ckpt ls lists three jobs of five checkpoints and two savepoints with those in progress and what gc keeps",
          "[cli]") {
  test::ScratchDir tmp;
  const std::string root = tmp / "root";
  write_jobs(root);
  auto listed = list_snapshots(root);
  REQUIRE(listed.ok());
  std::vector<std::string> seen, expected;
  for (const ListedSnapshot& s : *listed)
    seen.push_back(s.job + "/" + s.name + " " + s.kind + " " + (s.complete ? "complete" : "in-progress") + " " + s.gc);
  for (int j = 1; j <= 3; ++j) {
    const std::string job = "job-" + std::to_string(j);
    for (int c = 1; c <= 5; ++c)
      expected.push_back(job + "/chk-" + std::to_string(c) + " checkpoint complete retained");
    if (j == 2) expected.push_back(job + "/chk-6 checkpoint in-progress young");
    if (j == 3) expected.push_back(job + "/chk-6 checkpoint in-progress orphaned");
    for (const char* sp : {"-0000000000a1", "-0000000000b2"})
      expected.push_back(job + "/savepoint-00000" + std::to_string(j) + sp + " savepoint complete retained");
  }
  CHECK(seen == expected);
  for (const ListedSnapshot& s : *listed) {
    INFO(s.path);
    CHECK(s.id.has_value());
    CHECK(s.problem.empty());
    if (s.complete) CHECK(s.state_size > 0);
  }

  // The program: text, JSON, and the snapshots table agree.
  auto text = test::run_cli({"ls", root});
  CHECK(text.status == 0);
  CHECK(test::contains(text.out, "in progress (no _metadata)"));
  CHECK(test::contains(text.out, "orphaned"));
  auto json = test::run_cli({"ls", "--json", root});
  REQUIRE(json.status == 0);
  nlohmann::json doc = nlohmann::json::parse(json.out);
  CHECK(doc["snapshot_count"] == 23);
  CHECK(doc["incomplete_count"] == 2);
  CHECK(doc["snapshots"][20]["gc"] == "orphaned");
  auto q = test::run_cli({"query", root, "--format", "csv",
                          "SELECT job, sum(complete), sum(gc = 'retained'), count(*) FROM snapshots GROUP BY job"});
  CHECK(q.out == "job,sum(complete),sum(gc = 'retained'),count(*)\r\njob-1,7,7,7\r\njob-2,7,7,8\r\njob-3,7,7,8\r\n");

  // gc itself: the old in-progress checkpoint protects nothing, its upload is an old orphan.
  auto gc = test::run_cli({"gc", "--json", root + "/flink/job-3"});
  INFO(gc.err);
  REQUIRE(gc.status == 0);
  nlohmann::json report = nlohmann::json::parse(gc.out);
  bool found = false;
  for (const auto& o : report["orphans"])
    if (o["path"] == "shared/uploaded-by-chk-6") found = !o["young"].get<bool>();
  CHECK(found);

  // inspect on a job directory or a root of jobs says where to look.
  auto job = test::run_cli({"inspect", root + "/flink/job-1"});
  CHECK(job.status == 2);
  CHECK(test::contains(job.err, "ckpt ls " + root + "/flink/job-1"));
  auto jobs = test::run_cli({"inspect", root});
  CHECK(jobs.status == 2);
  CHECK(test::contains(jobs.err, "ckpt ls " + root));
}

TEST_CASE("ckpt ls and ckpt query on a bucket list the same jobs and snapshots as on disk", "[cli][s3]") {
  CKPT_REQUIRE_MOTO();
  test::ScratchDir tmp;
  const std::string root = tmp / "root";
  write_jobs(root);
  // A checkpoint in progress in a bucket has objects, never an empty directory.
  test::write_file(root + "/flink/job-2/chk-6/operator-state-part", "x");
  test::write_file(root + "/flink/job-3/chk-6/operator-state-part", "x");
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-ls"));
  REQUIRE(m->upload_tree(root, "ckpt-ls", "checkpoints"));
  const std::string uri = "s3://ckpt-ls/checkpoints";

  auto listed = [](const test::CliResult& r) {
    INFO(r.err);
    REQUIRE(r.status == 0);
    std::vector<std::string> out;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    for (const auto& s : doc["snapshots"])
      out.push_back(s["job"].get<std::string>() + "/" + s["name"].get<std::string>() + " " +
                    s["kind"].get<std::string>() + (s["complete"].get<bool>() ? " complete" : " in-progress") +
                    (s["id"].is_null() ? "" : " " + std::to_string(s["id"].get<int64_t>())));
    return out;
  };
  const std::vector<std::string> disk = listed(test::run_cli({"ls", "--json", root}));
  const std::vector<std::string> bucket = listed(test::run_cli({"ls", "--json", uri}));
  CHECK(disk.size() == 23);
  CHECK(bucket == disk);
  auto text = test::run_cli({"ls", uri});
  CHECK(test::contains(text.out, "in progress (no _metadata)"));
  auto q = test::run_cli({"query", uri, "--format", "csv", "SELECT count(*), sum(complete) FROM snapshots"});
  INFO(q.err);
  CHECK(q.out == "count(*),sum(complete)\r\n23,21\r\n");
}

TEST_CASE("ckpt ls lists snapshot directories named by hand under their parent on disk and in a bucket",
          "[cli][s3]") {
  test::ScratchDir tmp;
  const std::string root = tmp / "root";
  // Savepoints copied by hand: any directory with a _metadata below the root is a snapshot;
  // a directory without one is searched (to the depth limit) but not listed.
  for (const char* parent : {"/team-a", "/team-b/sql", "/team-c"}) fs::create_directories(root + parent);
  generate_in_job(root + "/team-a/nightly", GenerateBackend::kHeap, 0, 3);
  generate_in_job(root + "/team-a/before-upgrade", GenerateBackend::kCanonical, 0, 4);
  generate_in_job(root + "/team-b/sql/savepoint", GenerateBackend::kRocksDb, 0, 5);
  test::write_file(root + "/team-a/notes/README", "not a snapshot");
  // A name made to move a terminal's cursor is printed escaped.
  generate_in_job(root + "/team-c/evil\x1b[2J", GenerateBackend::kHeap, 0, 6);

  auto listed = list_snapshots(root);
  REQUIRE(listed.ok());
  std::vector<std::string> seen;
  for (const ListedSnapshot& s : *listed)
    seen.push_back(s.job + "/" + s.name + " " + s.format + " " + (s.backend.empty() ? "-" : s.backend) + " " + s.gc);
  CHECK(seen == std::vector<std::string>{"team-a/before-upgrade savepoint-canonical - retained",
                                         "team-a/nightly savepoint-native heap retained",
                                         "sql/savepoint savepoint-native rocksdb retained",
                                         "team-c/evil\x1b[2J savepoint-native heap retained"});

  auto text = test::run_cli({"ls", root});
  INFO(text.err);
  CHECK(text.status == 0);
  CHECK(test::contains(text.out, "evil\\x1b[2J"));
  CHECK(text.out.find('\x1b') == std::string::npos);
  // Columns line up whatever the names' lengths: each row's KIND starts where the header's does.
  const size_t kind_at = text.out.find("KIND");
  size_t rows = 0;
  for (size_t at = text.out.find('\n') + 1; at < text.out.size(); at = text.out.find('\n', at) + 1, ++rows)
    CHECK(text.out.compare(at + kind_at, 9, "savepoint") == 0);
  CHECK(rows == 4);

  CKPT_REQUIRE_MOTO();  // the bucket half needs the loopback store
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-ls-named"));
  REQUIRE(m->upload_tree(root, "ckpt-ls-named", "copies"));
  auto bucket = list_snapshots("s3://ckpt-ls-named/copies");
  REQUIRE(bucket.ok());
  std::vector<std::string> in_bucket;
  for (const ListedSnapshot& s : *bucket)
    in_bucket.push_back(s.job + "/" + s.name + " " + s.format + " " + (s.backend.empty() ? "-" : s.backend) + " " + s.gc);
  CHECK(in_bucket == seen);
}
