// Outputs of snapshots kept in a bucket of a loopback S3 server (moto): restore from the bucket
// to a local directory, and edit, compact and relocate with `--output s3://...`, each equal to
// the disk run byte for byte; an output over an input refused; an upload that fails at the
// `_metadata` leaves nothing at the output prefix.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "ckpt/metadata.h"
#include "ckpt/names.h"
#include "testlib/cli_run.h"
#include "testlib/s3_fixtures.h"

namespace fs = std::filesystem;
using namespace ckpt;

namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

// The same files, each byte for byte but the SSTs and MANIFESTs RocksDB writes: those carry a
// session id and times that differ from run to run on the disk too (their entries are compared
// by the dumps).
void check_same_output(const Files& store, const Files& disk) {
  REQUIRE(store.size() == disk.size());
  for (size_t i = 0; i < store.size(); ++i) {
    INFO(disk[i].first);
    CHECK(store[i].first == disk[i].first);
    const std::string& name = disk[i].first;
    if (name.ends_with(".sst") || name.find("MANIFEST-") != std::string::npos) continue;
    CHECK(store[i].second == disk[i].second);
  }
}

}  // namespace

TEST_CASE("s3 restore edit compact and relocate from a bucket equal the disk runs byte for byte", "[cli][s3]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-io"));
  test::ScratchDir dir;
  // ('=' has no place in a --remap prefix: the disk run below needs one.)
  const std::string job = "in/a+b c/job";
  test::upload_chain(*m, dir, 2, "ckpt-io", job, job);
  const std::string chk = dir / "job/chk-2";
  const std::string uri = "s3://ckpt-io/" + job + "/chk-2";
  const std::string remap = "s3://ckpt-io/" + job + "=" + (dir / "job");

  // restore: from the bucket to a local directory.
  test::run_cli_ok({"restore", chk, "--remap", remap, "--output", dir / "restored-disk"});
  test::CliResult restored = test::run_cli({"restore", uri, "--output", dir / "restored-store"});
  INFO(restored.err);
  REQUIRE(restored.status == 0);
  CHECK(test::tree_files(dir / "restored-store") == test::tree_files(dir / "restored-disk"));

  // compact: an incremental checkpoint folded into a native savepoint in the bucket.
  test::run_cli_ok({"compact", chk, "--remap", remap, "--output", dir / "compact"});
  test::CliResult compacted = test::run_cli({"compact", uri, "--output", "s3://ckpt-io/out/compact"});
  INFO(compacted.err);
  REQUIRE(compacted.status == 0);
  check_same_output(test::bucket_files(*m, "ckpt-io", "out/compact"), test::tree_files(dir / "compact"));
  CHECK(test::run_cli_ok({"dump", "s3://ckpt-io/out/compact"}).out == test::run_cli_ok({"dump", dir / "compact"}).out);

  // edit: a state dropped from the compacted savepoint, bucket to bucket.
  auto meta = read_metadata_file(dir / "compact");
  REQUIRE(meta);
  const std::string op = operator_id_hex(meta.value().operators.at(0).id);
  // (The disk's compacted copy as the input of both, so that they start from the same bytes.)
  REQUIRE(m->upload_tree(dir / "compact", "ckpt-io", "in/compact"));
  test::run_cli_ok({"edit", dir / "compact", "--drop-state", op + "/value-state", "--output", dir / "edited"});
  test::CliResult edited = test::run_cli(
      {"edit", "s3://ckpt-io/in/compact", "--drop-state", op + "/value-state", "--output", "s3://ckpt-io/out/edited"});
  INFO(edited.err);
  REQUIRE(edited.status == 0);
  CHECK(edited.err.empty());  // no --remap warning: nothing outside the prefix to stage
  check_same_output(test::bucket_files(*m, "ckpt-io", "out/edited"), test::tree_files(dir / "edited"));
  CHECK(test::run_cli_ok({"dump", "s3://ckpt-io/out/edited"}).out == test::run_cli_ok({"dump", dir / "edited"}).out);

  // relocate: one `_metadata` object written.
  test::run_cli_ok({"relocate", chk, "--map", "s3://ckpt-io/in=s3://ckpt-io/moved", "--output", dir / "relocated"});
  test::CliResult relocated = test::run_cli(
      {"relocate", uri, "--map", "s3://ckpt-io/in=s3://ckpt-io/moved", "--output", "s3://ckpt-io/out/rel/_metadata"});
  INFO(relocated.err);
  REQUIRE(relocated.status == 0);
  auto uploaded = m->client()->get(s3::ObjectUri{"ckpt-io", "out/rel/_metadata"});
  REQUIRE(uploaded);
  CHECK(uploaded.value() == test::read_file(dir / "relocated"));
  // An existing object and an output over the input are refused; the input is untouched.
  const std::string before = m->client()->get(s3::ObjectUri{"ckpt-io", job + "/chk-2/_metadata"}).value();
  for (const std::string& out : {std::string("s3://ckpt-io/out/rel/_metadata"), uri + "/_metadata", uri}) {
    test::CliResult over = test::run_cli({"relocate", uri, "--map", "s3://a=s3://b", "--output", out});
    INFO(out << "\n" << over.err);
    CHECK(over.status == 2);
    CHECK(over.err.find(out) != std::string::npos);
  }
  CHECK(m->client()->get(s3::ObjectUri{"ckpt-io", job + "/chk-2/_metadata"}).value() == before);
}

TEST_CASE("an s3 output whose _metadata upload fails leaves nothing at the output prefix", "[cli][s3][faults]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  REQUIRE(m->create_bucket("ckpt-up"));
  test::ScratchDir dir;
  test::run_cli_ok({"generate", "--backend", "rocksdb", "--keys", "40", "--states", "value,map", "--parallelism", "2",
                    "--output", dir / "snap"});
  REQUIRE(m->upload_tree(dir / "snap", "ckpt-up", "snap"));
  // Every request through the stand-in reaches moto, except the PUT of a `_metadata`.
  const test::FailingStore store = test::failing_store_before(*m);
  test::CliResult r = test::run_cli({"convert", "s3://ckpt-up/snap", "--to", "heap", "--output", "s3://ckpt-up/heap"});
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("s3://ckpt-up/heap/_metadata") != std::string::npos);
  CHECK(r.err.find("HTTP 500 InternalError") != std::string::npos);
  // Data files went up before the `_metadata` failed (the stand-in saw them) and were deleted.
  CHECK(store.proxy->requests().find("\"PUT\", \"path\": \"/ckpt-up/heap/") != std::string::npos);
  CHECK(test::keys_under(*m, "ckpt-up", "heap").empty());
  CHECK(test::keys_under(*m, "ckpt-up", "snap/").size() == test::tree_files(dir / "snap").size());
}

TEST_CASE("s3 convert in parts writes each part to the bucket and finish assembles one run's output", "[cli][s3][shards]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-parts"));
  test::ScratchDir dir;
  test::run_cli_ok({"generate", "--backend", "rocksdb", "--keys", "300", "--states", "value,list,map", "--parallelism",
                    "3", "--output", dir / "snap"});
  REQUIRE(m->upload_tree(dir / "snap", "ckpt-parts", "in/snap"));
  const std::string uri = "s3://ckpt-parts/in/snap";
  const std::string out = "s3://ckpt-parts/out/heap";
  test::run_cli_ok({"convert", dir / "snap", "--to", "heap", "--output", dir / "one"});
  for (int k = 0; k < 3; ++k) {
    test::CliResult part =
        test::run_cli({"convert", uri, "--to", "heap", "--shard", std::to_string(k) + "/3", "--output", out});
    INFO(part.err);
    REQUIRE(part.status == 0);
    CHECK_FALSE(test::keys_under(*m, "ckpt-parts", "out/heap.part-" + std::to_string(k) + "-of-3/").empty());
  }
  CHECK(test::keys_under(*m, "ckpt-parts", "out/heap/").empty());  // no snapshot before --finish
  // A part run again is refused: its part is in the bucket.
  test::CliResult again = test::run_cli({"convert", uri, "--to", "heap", "--shard", "1/3", "--output", out});
  CHECK(again.status == 2);
  CHECK(again.err.find(out + ".part-1-of-3") != std::string::npos);
  test::CliResult finished = test::run_cli({"convert", uri, "--to", "heap", "--finish", "--output", out});
  INFO(finished.err);
  REQUIRE(finished.status == 0);
  CHECK(test::bucket_files(*m, "ckpt-parts", "out/heap") == test::tree_files(dir / "one"));
  CHECK(test::keys_under(*m, "ckpt-parts", "out/heap.part-").empty());
  // Deleting the parts touched nothing else: the input is as uploaded.
  CHECK(test::bucket_files(*m, "ckpt-parts", "in/snap") == test::tree_files(dir / "snap"));
  CHECK(test::run_cli_ok({"dump", out}).out == test::run_cli_ok({"dump", dir / "one"}).out);
}
