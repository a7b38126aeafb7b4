// Snapshots in a bucket name their files by their URIs there, as Flink writes them
// ("s3://bucket/job/shared/<name>"): every writer's output to s3:// is read in place by verify
// --deep, and every command that reads state prints for a job in a bucket what it prints for
// the same job on a disk, but for the path prefix.
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

// `args` with "{J}" replaced by `job` (the job on a disk or in a bucket).
std::vector<std::string> spelled(const std::vector<std::string>& args, const std::string& job) {
  std::vector<std::string> out;
  for (const std::string& a : args) out.push_back(test::replaced(a, "{J}", job));
  return out;
}

}  // namespace

TEST_CASE("s3 writers name their outputs' files by their URIs in the bucket and each output verifies in place",
          "[cli][s3]") {
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-w"));
  const std::string job = "s3://ckpt-w/gen/job";
  test::CliResult gen = test::run_cli({"generate", "--chain", "3", "--keys", "40", "--states", "value,map",
                                       "--parallelism", "2", "--churn", "0.5", "--output", job});
  INFO(gen.err);
  REQUIRE(gen.status == 0);
  // The shared SSTs by their URIs in the bucket, as Flink names them; nothing of the staging.
  for (int c = 1; c <= 3; ++c) {
    auto meta = m->client()->get(s3::ObjectUri{"ckpt-w", "gen/job/chk-" + std::to_string(c) + "/_metadata"});
    REQUIRE(meta);
    CHECK(meta.value().find("s3://ckpt-w/gen/job/shared/") != std::string::npos);
    CHECK(meta.value().find("file:") == std::string::npos);
    CHECK(meta.value().find("ckpt-s3-") == std::string::npos);
  }
  CHECK(gen.out.find("ckpt-s3-") == std::string::npos);
  const std::string chk = job + "/chk-3";
  auto meta = decode_metadata(m->client()->get(s3::ObjectUri{"ckpt-w", "gen/job/chk-3/_metadata"}).value());
  REQUIRE(meta);
  const std::string op = operator_id_hex(meta.value().operators.at(0).id);

  const std::vector<std::vector<std::string>> writers = {
      {"convert", chk, "--to", "heap", "--output", "s3://ckpt-w/out/heap"},
      {"compact", chk, "--output", "s3://ckpt-w/out/compact"},
      {"edit", chk, "--drop-state", op + "/value-state", "--output", "s3://ckpt-w/out/edited"},
      {"relocate", chk, "--output", "s3://ckpt-w/out/relocated/_metadata"},
      {"convert", chk, "--to", "rocksdb", "--shard", "0/2", "--output", "s3://ckpt-w/out/parts"},
      {"convert", chk, "--to", "rocksdb", "--shard", "1/2", "--output", "s3://ckpt-w/out/parts"},
      {"convert", chk, "--to", "rocksdb", "--finish", "--output", "s3://ckpt-w/out/parts"},
  };
  for (const auto& args : writers) {
    test::CliResult w = test::run_cli(args);
    INFO(args[0] << " " << args.back() << "\n" << w.err);
    REQUIRE(w.status == 0);
    CHECK(w.out.find("ckpt-s3-") == std::string::npos);
  }
  std::vector<std::string> outputs;
  for (int c = 1; c <= 3; ++c) outputs.push_back(job + "/chk-" + std::to_string(c));
  for (const char* o : {"heap", "compact", "edited", "relocated", "parts"})
    outputs.push_back("s3://ckpt-w/out/" + std::string(o));
  // Every file each `_metadata` in the bucket names is there, with its size (a quick verify:
  // the listing answers); the chain is read whole.
  for (const std::string& out : outputs) {
    test::CliResult v = test::run_cli({"verify", out});
    INFO(out << "\n" << v.out << v.err);
    CHECK(v.status == 0);
    CHECK(v.out.find(": ok (quick") != std::string::npos);
  }
  test::CliResult deep = test::run_cli({"verify", "--deep", chk});
  INFO(deep.out << deep.err);
  CHECK(deep.status == 0);
  // What the outputs hold is what they were written from.
  const std::string dumped = test::run_cli_ok({"dump", chk}).out;
  CHECK(test::run_cli_ok({"dump", "s3://ckpt-w/out/parts"}).out == dumped);
  CHECK(test::run_cli_ok({"dump", "s3://ckpt-w/out/relocated/_metadata"}).out == dumped);
}

TEST_CASE("s3 reading commands print for a job in a bucket what they print for its copy on disk", "[cli][s3]") {
  auto m = test::unchecked_moto();
  test::StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-r"));
  test::ScratchDir dir;
  const std::string local = dir / "job";
  test::run_cli_ok({"generate", "--chain", "4", "--keys", "40", "--states", "value,map", "--parallelism", "2",
                    "--churn", "0.5", "--output", local});
  const std::string canonical = fs::weakly_canonical(local).string();
  // As long as the disk's URIs ("file:<dir>/job"): the `_metadata` files are as many bytes.
  const std::string prefix = "s3://ckpt-r/jobs/";
  REQUIRE(std::string("file:" + canonical).size() > prefix.size() + 4);
  const std::string uri = prefix + std::string(canonical.size() + 5 - prefix.size() - 4, 'x') + "/job";
  // The copy in the bucket as Flink writes it there: the `_metadata` files name the bucket.
  const std::string up = dir / "up";
  fs::copy(local, up, fs::copy_options::recursive);
  for (int c = 1; c <= 4; ++c) {
    const std::string name = "chk-" + std::to_string(c);
    fs::remove(up + "/" + name + "/_metadata");
    test::run_cli_ok({"relocate", local + "/" + name, "--output", up + "/" + name + "/_metadata", "--map",
                      "file:" + canonical + "=" + uri});
  }
  REQUIRE(m->upload_tree(up, "ckpt-r", uri.substr(std::string("s3://ckpt-r/").size())));
  auto named_as_uri = [&](std::string text) {
    text = test::replaced(text, "file:" + canonical, uri);
    text = test::replaced(text, canonical, uri);
    return test::replaced(text, local, uri);
  };

  // Each reading command, with the status the disk run has.
  const std::vector<std::pair<std::vector<std::string>, int>> commands = {
      {{"inspect", "{J}/chk-4"}, 0},
      {{"inspect", "-v", "{J}/chk-4"}, 0},
      {{"inspect", "--json", "--count", "{J}/chk-4"}, 0},
      {{"inspect", "{J}"}, -1},  // a job directory: whatever the disk run says
      {{"verify", "{J}/chk-4"}, 0},
      {{"verify", "--deep", "--json", "{J}/chk-4"}, 0},
      {{"dump", "{J}/chk-4"}, 0},
      {{"dump", "--format", "table", "{J}/chk-2"}, 0},
      {{"diff", "{J}/chk-3", "{J}/chk-4"}, 1},
      {{"diff", "--keys", "{J}/chk-3", "{J}/chk-4"}, 1},
      {{"report", "--json", "{J}"}, 0},
      {{"report", "--json", "{J}/chk-4"}, 0},
      {{"advise", "--json", "{J}"}, 0},
      {{"plan", "--shards", "2", "{J}/chk-4"}, 0},
      {{"gc", "{J}"}, 0},
      {{"relocate", "--relative", "{J}/chk-4", "--output", "{O}"}, 0},
      {{"restore", "{J}/chk-4", "--output", "{O}"}, 0},
  };
  int n = 0;
  for (const auto& [command, status] : commands) {
    // Outputs of the reading commands that write (restore, relocate) go to the disk.
    const std::string disk_out = dir / ("disk-" + std::to_string(n)), store_out = dir / ("store-" + std::to_string(n));
    ++n;
    std::vector<std::string> disk_args = spelled(command, local), store_args = spelled(command, uri);
    for (std::string& a : disk_args) a = test::replaced(a, "{O}", disk_out);
    for (std::string& a : store_args) a = test::replaced(a, "{O}", store_out);
    test::CliResult disk = test::run_cli(disk_args);
    test::CliResult store = test::run_cli(store_args);
    INFO(store_args[0] << " " << store_args[1] << "\n" << store.err);
    if (status >= 0) CHECK(disk.status == status);
    CHECK(store.status == disk.status);
    CHECK(store.out == named_as_uri(test::replaced(disk.out, disk_out, store_out)));
    CHECK(store.err == named_as_uri(test::replaced(disk.err, disk_out, store_out)));
    if (command[0] == "restore") CHECK(test::tree_files(store_out) == test::tree_files(disk_out));
  }
}
