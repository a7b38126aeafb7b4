// gc in a bucket of a loopback S3 server (moto): a generated chain uploaded with its handles
// relocated to the bucket, orphans added (old and young, keys with '=', '+', spaces and
// non-ASCII characters); --apply deletes every old orphan and nothing a snapshot references
// (each still verifies --deep from the bucket); Flink's entropy injection (s3.entropy.key)
// listed with --entropy-key, refused without it. Also: a snapshot whose handles name objects
// outside its prefix (a chain's shared/) staged by those URIs.
#include <catch2/catch.hpp>

#include <algorithm>

#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "ops/gc/gc_store.h"
#include "testlib/cli_run.h"
#include "testlib/s3_fixtures.h"

namespace fs = std::filesystem;
using namespace ckpt;
using test::keys_under;
using test::StoreEnvironment;
using test::upload_chain;

TEST_CASE("s3 gc --apply deletes every old orphan in a bucket and nothing a snapshot references", "[cli][s3]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-gc"));
  test::ScratchDir dir;
  const std::string job = "jobs/a=b+c d/\xC3\xA9t\xC3\xA9/job";
  const std::string root = "s3://ckpt-gc/" + job;
  upload_chain(*m, dir, 3, "ckpt-gc", job, job);
  // chk-1's files that chk-3 no longer needs are orphans once chk-1 is gone, as Flink
  // subsumes it: its _metadata deleted, its SSTs left behind by a crashed run.
  REQUIRE(m->client()->delete_objects("ckpt-gc", {job + "/chk-1/_metadata"}));
  // The orphans gc finds on the disk copy (its `_metadata` files name the bucket too).
  fs::remove(dir / "job/chk-1/_metadata");
  std::set<std::string> disk_orphans;
  const nlohmann::json disk_gc = nlohmann::json::parse(test::run_cli_ok({"gc", dir / "job", "--json"}).out);
  for (const auto& o : disk_gc["orphans"]) disk_orphans.insert(job + "/" + o["path"].get<std::string>());
  REQUIRE(!disk_orphans.empty());

  auto c = m->client();
  const std::vector<std::string> old_orphans = {job + "/shared/orphan a=b+c.sst", job + "/shared/\xC3\xA9+x y",
                                                job + "/taskowned/t=1 2"};
  for (const std::string& k : old_orphans) REQUIRE(c->put(s3::ObjectUri{"ckpt-gc", k}, "old orphan bytes").ok());
  // Outside shared/ and taskowned/, or outside ROOT: never gc's to delete.
  REQUIRE(c->put(s3::ObjectUri{"ckpt-gc", job + "/notes.txt"}, "n").ok());
  REQUIRE(c->put(s3::ObjectUri{"ckpt-gc", "jobs/other/shared/x.sst"}, "x").ok());
  REQUIRE(c->put(s3::ObjectUri{"ckpt-gc", job + "2/shared/x.sst"}, "x").ok());
  // The dry run lists without deleting.
  const size_t objects_before_dry_run = keys_under(*m, "ckpt-gc", "").size();
  test::CliResult dry = test::run_cli({"gc", root, "--older-than", "0s"});
  INFO(dry.err);
  REQUIRE(dry.status == 0);
  CHECK(keys_under(*m, "ckpt-gc", "").size() == objects_before_dry_run);
  CHECK(dry.out.find("orphan a=b+c.sst") != std::string::npos);
  CHECK(dry.out.find("nothing deleted") != std::string::npos);

  // Orphans younger than the margin are kept: LastModified has whole seconds, so old ones are
  // at least 6 s old when gc runs with a 5 s margin right after the young ones are uploaded (a
  // margin wide enough for a loaded machine or a sanitizer build between upload and listing).
  std::this_thread::sleep_for(std::chrono::milliseconds(6100));
  const std::vector<std::string> young_orphans = {job + "/shared/young=1+2 \xC3\xA9"};
  for (const std::string& k : young_orphans) REQUIRE(c->put(s3::ObjectUri{"ckpt-gc", k}, "young").ok());
  const std::set<std::string> all_before = keys_under(*m, "ckpt-gc", "");

  test::CliResult apply = test::run_cli({"gc", root, "--older-than", "5s", "--apply"});
  INFO(apply.out << apply.err);
  REQUIRE(apply.status == 0);
  const std::set<std::string> after = keys_under(*m, "ckpt-gc", "");
  std::set<std::string> deleted;
  for (const std::string& k : all_before)
    if (!after.count(k)) deleted.insert(k);
  // Every old orphan is gone, young ones and everything outside shared/ and taskowned/ stay.
  for (const std::string& k : old_orphans) CHECK(deleted.count(k) == 1);
  for (const std::string& k : young_orphans) CHECK(after.count(k) == 1);
  CHECK(after.count(job + "/notes.txt") == 1);
  CHECK(after.count("jobs/other/shared/x.sst") == 1);
  CHECK(after.count(job + "2/shared/x.sst") == 1);
  // What was deleted is exactly the old orphans added and those the disk run finds (chk-1's
  // files no other snapshot needs), and chk-2 and chk-3 still verify --deep from the bucket.
  std::set<std::string> expected(old_orphans.begin(), old_orphans.end());
  expected.insert(disk_orphans.begin(), disk_orphans.end());
  CHECK(deleted == expected);
  CHECK(apply.err.find("ckpt: deleting ") != std::string::npos);  // each batch logged
  for (const char* chk : {"chk-2", "chk-3"}) {
    test::CliResult v = test::run_cli({"verify", "--deep", root + "/" + chk});
    INFO(chk << "\n" << v.out << v.err);
    CHECK(v.status == 0);
  }
  // A second run finds nothing left to delete but the young orphans, which may have come of age
  // during the verify runs above: whatever else it removed was wrongly left by the first.
  test::CliResult again = test::run_cli({"gc", root, "--older-than", "5s", "--apply"});
  CHECK(again.status == 0);
  const std::set<std::string> after_again = keys_under(*m, "ckpt-gc", "");
  for (const std::string& k : after)
    if (!after_again.count(k)) CHECK(std::count(young_orphans.begin(), young_orphans.end(), k) == 1);
  for (const std::string& k : after_again) CHECK(after.count(k) == 1);

  // An unreadable _metadata stops gc before anything is deleted.
  REQUIRE(c->put(s3::ObjectUri{"ckpt-gc", job + "/chk-9/_metadata"}, "not a _metadata").ok());
  REQUIRE(c->put(s3::ObjectUri{"ckpt-gc", job + "/shared/late orphan"}, "x").ok());
  test::CliResult refused = test::run_cli({"gc", root, "--older-than", "0s", "--apply"});
  CHECK(refused.status == 2);
  CHECK(refused.err.find(root + "/chk-9/_metadata") != std::string::npos);
  CHECK(refused.err.find("refusing") != std::string::npos);
  CHECK(keys_under(*m, "ckpt-gc", job + "/shared/late") == std::set<std::string>{job + "/shared/late orphan"});
}

TEST_CASE("s3 gc lists Flink's entropy-injected prefixes with --entropy-key and refuses without", "[cli][s3]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-ent"));
  test::ScratchDir dir;
  // state.checkpoints.dir: s3://ckpt-ent/_entropy_/flink/job; _metadata at flink/job/chk-N,
  // data files at <entropy>/flink/job/...
  upload_chain(*m, dir, 2, "ckpt-ent", "flink/job", "Xy7q/flink/job");
  auto c = m->client();
  REQUIRE(c->put(s3::ObjectUri{"ckpt-ent", "Xy7q/flink/job/shared/orphan-1"}, "o").ok());
  REQUIRE(c->put(s3::ObjectUri{"ckpt-ent", "a1B2/flink/job/shared/orphan-2"}, "o").ok());
  // Not Flink's entropy (not alphanumeric), and not this job: never listed.
  REQUIRE(c->put(s3::ObjectUri{"ckpt-ent", "no_entropy/flink/job/shared/keep"}, "k").ok());
  REQUIRE(c->put(s3::ObjectUri{"ckpt-ent", "Xy7q/flink/other/shared/keep"}, "k").ok());
  const std::set<std::string> referenced = keys_under(*m, "ckpt-ent", "Xy7q/flink/job/shared/");

  test::CliResult without = test::run_cli({"gc", "s3://ckpt-ent/flink/job", "--older-than", "0s", "--apply"});
  INFO(without.err);
  CHECK(without.status == 2);
  CHECK(without.err.find("--entropy-key") != std::string::npos);
  CHECK(without.err.find("s3://ckpt-ent/Xy7q/flink/job/shared/") != std::string::npos);

  test::CliResult apply = test::run_cli(
      {"gc", "s3://ckpt-ent/_entropy_/flink/job", "--entropy-key", "_entropy_", "--older-than", "0s", "--apply"});
  INFO(apply.out << apply.err);
  REQUIRE(apply.status == 0);
  CHECK(apply.out.find("s3://ckpt-ent/a1B2/flink/job/shared/orphan-2") != std::string::npos);
  auto after = keys_under(*m, "ckpt-ent", "");
  CHECK(after.count("Xy7q/flink/job/shared/orphan-1") == 0);
  CHECK(after.count("a1B2/flink/job/shared/orphan-2") == 0);
  CHECK(after.count("no_entropy/flink/job/shared/keep") == 1);
  CHECK(after.count("Xy7q/flink/other/shared/keep") == 1);
  for (const std::string& k : referenced)
    if (k != "Xy7q/flink/job/shared/orphan-1") CHECK(after.count(k) == 1);
  CHECK(test::run_cli({"verify", "--deep", "s3://ckpt-ent/flink/job/chk-2"}).status == 0);

  test::CliResult no_key = test::run_cli({"gc", "s3://ckpt-ent/flink/job", "--entropy-key", "_entropy_"});
  CHECK(no_key.status == 2);
  CHECK(no_key.err.find("state.checkpoints.dir") != std::string::npos);
}

TEST_CASE("the entropy key of a checkpoint path splits as Flink's EntropyInjector does", "[ops][s3]") {
  auto p = gc_detail::split_entropy_path("s3://b/_entropy_/checkpoints/job", "_entropy_");
  REQUIRE(p);
  CHECK(p.value().metadata_root == "s3://b/checkpoints/job");
  CHECK(p.value().before == "s3://b/");
  CHECK(p.value().segment_rest.empty());
  CHECK(p.value().after == "/checkpoints/job");
  auto mid = gc_detail::split_entropy_path("s3://b/flink/ck_E_x/job", "_E_");
  REQUIRE(mid);
  CHECK(mid.value().metadata_root == "s3://b/flink/ckx/job");
  CHECK(mid.value().before == "s3://b/flink/ck");
  CHECK(mid.value().segment_rest == "x");
  CHECK_FALSE(gc_detail::split_entropy_path("s3://b/checkpoints/job", "_entropy_"));
  // The key in the bucket name is not in the path: Flink looks at the URI's path only.
  CHECK_FALSE(gc_detail::split_entropy_path("s3://_entropy_/checkpoints", "_entropy_"));
}

TEST_CASE("s3 snapshots whose handles name objects outside their prefix are staged by those URIs", "[cli][s3]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-ref"));
  test::ScratchDir dir;
  // An incremental chain: chk-3's SSTs live in the job's shared/, a sibling of chk-3.
  upload_chain(*m, dir, 3, "ckpt-ref", "p q/job", "p q/job");
  const std::string uri = "s3://ckpt-ref/p q/job/chk-3";
  const std::string remap = "s3://ckpt-ref/p q/job=" + (dir / "job");
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"inspect"}, {"verify", "--deep"}, {"dump"}}) {
    std::vector<std::string> disk_args = command, store_args = command;
    disk_args.insert(disk_args.end(), {dir / "job/chk-3", "--remap", remap});
    store_args.push_back(uri);
    test::CliResult disk = test::run_cli(disk_args);
    test::CliResult store = test::run_cli(store_args);
    INFO(command[0] << "\n" << store.out << store.err << "\n---disk\n" << disk.out << disk.err);
    CHECK(disk.status == 0);
    CHECK(store.status == disk.status);
    if (command[0] == "dump") CHECK(store.out == disk.out);
    CHECK(store.out.find("missing") == std::string::npos);
  }
}
