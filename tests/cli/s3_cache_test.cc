// What reading a snapshot in a bucket costs: inspect reads each state file's meta data by
// ranged requests and downloads nothing whole; commands that read every byte download files
// into a cache bounded by --cache-size, evicting what they are done with, and still print what
// the disk run prints. The counts come from the staging (CKPT_S3_STATS, one JSON line a run).
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "testlib/cli_run.h"
#include "testlib/s3_fixtures.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;

namespace {

// The stats line of the last run that wrote `file`.
nlohmann::json last_stats(const std::string& file) {
  std::string text = test::read_file(file);
  REQUIRE(!text.empty());
  text.pop_back();
  return nlohmann::json::parse(text.substr(text.rfind('\n') + 1));
}

struct Tree {
  uint64_t bytes = 0, largest = 0;
  int files = 0;
};
Tree state_files(const std::string& dir) {
  Tree t;
  for (const auto& [name, bytes] : test::tree_files(dir)) {
    if (fs::path(name).filename() == "_metadata") continue;
    t.bytes += bytes.size();
    t.largest = std::max<uint64_t>(t.largest, bytes.size());
    ++t.files;
  }
  return t;
}

}  // namespace

TEST_CASE("s3 inspect reads state files by ranges and downloads none of them whole", "[cli][s3]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-ranged"));
  test::ScratchDir dir;
  env.set("CKPT_S3_STATS", dir / "stats");
  for (const std::string backend : {"heap", "rocksdb", "canonical"}) {
    const std::string snap = dir / backend;
    test::run_cli_ok({"generate", "--backend", backend, "--keys", "30000", "--value-size", "100", "--states",
                      "value,list,map", "--parallelism", "2", "--output", snap});
    const Tree t = state_files(snap);
    REQUIRE(t.bytes > (8u << 20));
    REQUIRE(m->upload_tree(snap, "ckpt-ranged", backend));
    const std::string uri = "s3://ckpt-ranged/" + backend;
    test::CliResult disk = test::run_cli({"inspect", snap});
    test::CliResult store = test::run_cli({"inspect", uri});
    INFO(backend << "\n" << store.err);
    CHECK(store.status == disk.status);
    CHECK(store.out == test::replaced(disk.out, snap, uri));
    const nlohmann::json st = last_stats(dir / "stats");
    INFO(st.dump() << " of " << t.bytes << " bytes in " << t.files << " files");
    CHECK(st["downloads"] == 0);
    // The meta data of each file, in blocks of 64 KiB at first: far from the state's bytes.
    CHECK(st["ranged_bytes"].get<uint64_t>() <= static_cast<uint64_t>(t.files) * (256u << 10));
    CHECK(st["ranged_bytes"].get<uint64_t>() * 8 < t.bytes);
    // A quick verify needs the listing only.
    test::CliResult verified = test::run_cli({"verify", uri});
    CHECK(verified.status == 0);
    CHECK(last_stats(dir / "stats")["ranged_reads"] == 0);
    CHECK(last_stats(dir / "stats")["downloads"] == 0);
  }
}

TEST_CASE("s3 dump restore and verify deep through a small cache evict and equal the disk runs", "[cli][s3]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-cache"));
  test::ScratchDir dir;
  env.set("CKPT_S3_STATS", dir / "stats");
  const std::string snap = dir / "snap";
  // Many SSTs of about 256 KiB per subtask, four subtasks: 4 MiB and more in all.
  test::run_cli_ok({"generate", "--backend", "rocksdb", "--keys", "40000", "--value-size", "80", "--states",
                    "value,map", "--parallelism", "4", "--sst-size", "262144", "--output", snap});
  const Tree t = state_files(snap);
  REQUIRE(t.files >= 16);
  REQUIRE(m->upload_tree(snap, "ckpt-cache", "snap"));
  const std::string uri = "s3://ckpt-cache/snap";
  const uint64_t cache = 1u << 20;
  REQUIRE(t.bytes > 3 * cache);
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"dump", "-j", "2"}, {"verify", "--deep", "-j", "2"}}) {
    std::vector<std::string> disk_args = command, store_args = command;
    disk_args.push_back(snap);
    store_args.insert(store_args.end(), {uri, "--cache-size", "1m"});
    test::CliResult disk = test::run_cli(disk_args);
    test::CliResult store = test::run_cli(store_args);
    INFO(command[0] << "\n" << store.err);
    REQUIRE(store.status == disk.status);
    CHECK(store.out == test::replaced(disk.out, snap, uri));
    const nlohmann::json st = last_stats(dir / "stats");
    INFO(st.dump() << " of " << t.bytes << " bytes in " << t.files << " files, largest " << t.largest);
    CHECK(st["downloads"].get<int>() >= t.files);
    CHECK(st["evictions"].get<int>() > 0);
    CHECK(st["prefetched"].get<int>() > 0);  // downloaded ahead of the reads
    // Beyond the bound only by the files being read at the moment: two subtasks at once.
    CHECK(st["peak_cached_bytes"].get<uint64_t>() <= cache + 2 * 2 * t.largest);
    CHECK(st["peak_cached_bytes"].get<uint64_t>() < t.bytes);
  }
  test::run_cli_ok({"restore", snap, "--output", dir / "restored-disk"});
  test::CliResult restored = test::run_cli({"restore", uri, "--cache-size", "1m", "--output", dir / "restored-store"});
  INFO(restored.err);
  REQUIRE(restored.status == 0);
  CHECK(test::tree_files(dir / "restored-store") == test::tree_files(dir / "restored-disk"));
  CHECK(last_stats(dir / "stats")["evictions"].get<int>() > 0);
  // Evictions happen in the staging tree only: the bucket's snapshot is as uploaded.
  CHECK(test::bucket_files(*m, "ckpt-cache", "snap") == test::tree_files(snap));
}

TEST_CASE("s3 --cache-size takes a size and refuses anything else with exit 2", "[cli][s3]") {
  for (const std::string bad : {"lots", "0", "-5m", ""}) {
    test::CliResult r = test::run_cli({"inspect", "s3://no-bucket/job", "--cache-size", bad});
    INFO(bad << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("--cache-size: '" + bad + "' is not a size") != std::string::npos);
  }
}
