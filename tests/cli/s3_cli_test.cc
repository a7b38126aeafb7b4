// The commands on snapshots kept in a bucket of a loopback S3 server (moto): the same output as
// from the disk, byte for byte, with the snapshot named by its URI; keys with '=', '+', spaces
// and non-ASCII characters; outputs written to the bucket; a store that fails, given up on with
// exit status 2 naming the URI.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <vector>

#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/s3_fixtures.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;
using test::StoreEnvironment;

namespace {

// Where the corpus goes in the bucket: a prefix with the characters signers get wrong.
const char* const kBucketCorpusPrefix = "jobs/a=b+c d/\xC3\xA9t\xC3\xA9";

// The corpus split in two: one snapshot of each kind (the job, the backend, checkpoint or
// savepoint, canonical or native: the name without its Flink version) at its oldest and its
// newest Flink version, and the rest. The sample takes every path a bucket can take through the
// commands (layouts, file counts, metadata versions); the rest repeats them on more snapshots.
std::vector<std::string> corpus_part(bool sample) {
  static const std::regex version(R"(flink1\.(\d+)-)");
  std::map<std::string, std::map<int, std::string>> by_kind;  // kind -> Flink minor version -> snapshot
  for (const std::string& snapshot : test::corpus_snapshots()) {
    const std::string name = fs::path(snapshot).filename().string();
    std::smatch m;
    const int minor = std::regex_search(name, m, version) ? std::stoi(m[1].str()) : 0;
    by_kind[std::regex_replace(name, version, "flink-")][minor] = snapshot;
  }
  std::set<std::string> chosen;
  for (const auto& [kind, versions] : by_kind) {
    chosen.insert(versions.begin()->second);
    chosen.insert(versions.rbegin()->second);
  }
  std::vector<std::string> out;
  for (const std::string& snapshot : test::corpus_snapshots())
    if (chosen.count(snapshot) == static_cast<size_t>(sample)) out.push_back(snapshot);
  return out;
}

// Each snapshot uploaded to one bucket, and inspect, verify, dump, plan, report and advise of it
// there print what they print for it on disk, as does diff of each with the one before it.
void check_bucket_runs(const test::MotoServer& m, const std::vector<std::string>& snapshots) {
  REQUIRE(m.create_bucket("ckpt-corpus"));
  const std::string prefix = kBucketCorpusPrefix;
  int compared = 0;
  for (const std::string& snapshot : snapshots) {
    const std::string name = fs::path(snapshot).filename().string();
    const std::string uri = "s3://ckpt-corpus/" + prefix + "/" + name;
    REQUIRE(m.upload_tree(snapshot, "ckpt-corpus", prefix + "/" + name));
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"inspect"}, {"verify"}, {"verify", "--deep"}, {"dump"}, {"plan", "--shards", "3"},
          {"report", "--json"}, {"advise", "--json"}}) {
      std::vector<std::string> disk_args = command, store_args = command;
      disk_args.push_back(snapshot);
      store_args.push_back(uri);
      test::CliResult disk = test::run_cli(disk_args);
      test::CliResult store = test::run_cli(store_args);
      INFO(command[0] << " " << uri << "\n" << store.err);
      CHECK(store.status == disk.status);
      CHECK(store.out == test::replaced(disk.out, snapshot, uri));
      CHECK(store.err == test::replaced(disk.err, snapshot, uri));
      ++compared;
    }
  }
  CHECK(compared == 7 * static_cast<int>(snapshots.size()));
  // diff of two snapshots in the bucket: each with the one before it.
  for (size_t i = 1; i < snapshots.size(); ++i) {
    const std::string& da = snapshots[i - 1];
    const std::string& db = snapshots[i];
    const std::string ua = "s3://ckpt-corpus/" + prefix + "/" + fs::path(da).filename().string();
    const std::string ub = "s3://ckpt-corpus/" + prefix + "/" + fs::path(db).filename().string();
    test::CliResult disk = test::run_cli({"diff", da, db});
    test::CliResult store = test::run_cli({"diff", ua, ub});
    INFO("diff " << ua << " " << ub << "\n" << store.err);
    CHECK(store.status == disk.status);
    // The longer path first: one may be the other's prefix (chk-1, chk-10).
    const bool a_first = da.size() >= db.size();
    const std::string expected = a_first ? test::replaced(test::replaced(disk.out, da, ua), db, ub)
                                         : test::replaced(test::replaced(disk.out, db, ub), da, ua);
    CHECK(store.out == expected);
  }
}

}  // namespace

// The rest of the corpus is the [slow] test below: together they take every corpus snapshot.
TEST_CASE("s3 inspect verify dump plan report advise and diff of sampled corpus snapshots equal the disk output",
          "[cli][s3][corpus]") {
  CKPT_REQUIRE_SHARED();
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  StoreEnvironment env(m->endpoint(), m->credentials());
  const std::vector<std::string> sample = corpus_part(true);
  CHECK(sample.size() * 2 < test::corpus_snapshots().size());
  check_bucket_runs(*m, sample);
  // A snapshot named by its _metadata object, and s3a:// spelled for the same bucket.
  const std::string prefix = kBucketCorpusPrefix;
  const std::string first = sample.front();
  const std::string first_uri = "s3a://ckpt-corpus/" + prefix + "/" + fs::path(first).filename().string();
  test::CliResult by_file = test::run_cli({"inspect", first_uri + "/_metadata"});
  CHECK(by_file.status == test::run_cli({"inspect", first + "/_metadata"}).status);
  CHECK(by_file.out == test::replaced(test::run_cli({"inspect", first + "/_metadata"}).out, first, first_uri));
  test::CliResult missing = test::run_cli({"inspect", "s3://ckpt-corpus/no/such/snapshot"});
  CHECK(missing.status == 2);
  CHECK(missing.err.find("s3://ckpt-corpus/no/such/snapshot/") != std::string::npos);
}

TEST_CASE("s3 inspect verify dump plan report advise and diff of the other corpus snapshots equal the disk output",
          "[cli][s3][corpus][slow]") {
  CKPT_REQUIRE_SHARED();
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  StoreEnvironment env(m->endpoint(), m->credentials());
  const std::vector<std::string> rest = corpus_part(false);
  CHECK(rest.size() + corpus_part(true).size() == test::corpus_snapshots().size());
  check_bucket_runs(*m, rest);
}

TEST_CASE("s3 convert and generate write their output to a bucket with _metadata last", "[cli][s3]") {
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-out"));
  test::ScratchDir dir;
  test::run_cli_ok({"generate", "--backend", "rocksdb", "--keys", "50", "--states", "value,map", "--parallelism", "2",
                    "--output", dir / "gen"});
  test::CliResult gen = test::run_cli({"generate", "--backend", "rocksdb", "--keys", "50", "--states", "value,map",
                                       "--parallelism", "2", "--output", "s3://ckpt-out/gen/snap"});
  INFO(gen.err);
  REQUIRE(gen.status == 0);
  test::CliResult from_store = test::run_cli({"dump", "s3://ckpt-out/gen/snap"});
  REQUIRE(from_store.status == 0);
  CHECK(from_store.out == test::run_cli_ok({"dump", dir / "gen"}).out);

  test::run_cli_ok({"convert", dir / "gen", "--to", "heap", "--output", dir / "heap"});
  test::CliResult conv =
      test::run_cli({"convert", "s3://ckpt-out/gen/snap", "--to", "heap", "--output", "s3://ckpt-out/heap/snap"});
  INFO(conv.err);
  REQUIRE(conv.status == 0);
  test::CliResult verify = test::run_cli({"verify", "--deep", "s3://ckpt-out/heap/snap"});
  CHECK(verify.status == 0);
  CHECK(test::run_cli_ok({"dump", "s3://ckpt-out/heap/snap"}).out == test::run_cli_ok({"dump", dir / "heap"}).out);
  // The converted _metadata uploaded is the disk conversion's, byte for byte.
  auto c = m->client();
  auto uploaded = c->get(s3::ObjectUri{"ckpt-out", "heap/snap/_metadata"});
  REQUIRE(uploaded);
  CHECK(uploaded.value() == test::read_file(dir / "heap/_metadata"));
  // gc scans a job in a bucket (LastModified as the age), the same report as on the disk.
  test::run_cli_ok({"generate", "--chain", "2", "--keys", "40", "--states", "value,map", "--output", dir / "job"});
  REQUIRE(m->upload_tree(dir / "job", "ckpt-out", "job"));
  test::CliResult scan = test::run_cli({"gc", "s3://ckpt-out/job"});
  INFO(scan.err);
  CHECK(scan.status == 0);
  CHECK(scan.out == test::replaced(test::run_cli_ok({"gc", dir / "job"}).out, dir / "job", "s3://ckpt-out/job"));
  // Every file is referenced (chk-1 is retained): --apply deletes nothing (s3_gc_test.cc deletes).
  const size_t objects = m->client()->list(s3::ObjectUri{"ckpt-out", "job/"}).value().objects.size();
  test::CliResult apply = test::run_cli({"gc", "s3://ckpt-out/job", "--apply", "--older-than", "0s"});
  CHECK(apply.status == 0);
  CHECK(m->client()->list(s3::ObjectUri{"ckpt-out", "job/"}).value().objects.size() == objects);
  // An output that exists is refused, as on a disk.
  test::CliResult again =
      test::run_cli({"convert", "s3://ckpt-out/gen/snap", "--to", "heap", "--output", "s3://ckpt-out/heap/snap"});
  CHECK(again.status == 2);
  CHECK(again.err.find("output exists") != std::string::npos);
}

TEST_CASE("s3 commands give up on a failing store with exit 2 naming the URI", "[cli][s3][faults]") {
  std::string why;
  auto stand_in = test::StandIn::start(&why);
  INFO(why);
  REQUIRE(stand_in);
  StoreEnvironment env(stand_in->url(), s3::Credentials{"AKID", "SECRET", "", ""});
  test::CliResult r = test::run_cli({"inspect", "--path-style", "s3://flaky/job/chk-1"});
  CHECK(r.status == 2);
  INFO(r.err);
  CHECK(r.err.find("s3://flaky/job/chk-1/") != std::string::npos);
  CHECK(r.err.find("HTTP 500 InternalError") != std::string::npos);
  CHECK(r.err.find("gave up after 6 attempts") != std::string::npos);
  test::CliResult bad = test::run_cli({"inspect", "--connections", "0", "s3://flaky/x"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--connections") != std::string::npos);
}

TEST_CASE("s3 over plain http loads no libcurl and through a proxy variable goes by libcurl with the same output",
          "[cli][s3]") {
  // Plain http:// is carried by Boost.Beast (s3/plain_http.cc); a proxy variable hands the
  // request to libcurl, which honours it (no_proxy=* here: none applies). The loader's log
  // names every library it maps. (The signatures the plain transport sends are checked by moto
  // in tests/unit/s3_client_test.cc: moto refuses correct ones of a listing under a prefix.)
  CKPT_REQUIRE_MOTO();
  auto m = test::unchecked_moto();
  StoreEnvironment env(m->endpoint(), m->credentials());
  REQUIRE(m->create_bucket("ckpt-http"));
  const std::string sample = test::sample_savepoint_dir();
  REQUIRE(m->upload_tree(sample, "ckpt-http", "sp"));
  const std::string uri = "s3://ckpt-http/sp";
  const std::string ckpt = "'" + test::build_dir() + "/tools/ckpt'";
  const test::CliResult local = test::run_cli({"dump", sample});
  REQUIRE(local.status == 0);
  REQUIRE(local.out.size() > 100);
  for (const bool proxied : {false, true}) {
    INFO((proxied ? "through libcurl" : "plain"));
    const std::string vars = proxied ? "all_proxy=http://127.0.0.1:1 no_proxy='*' " : "";
    const test::CliResult traced = test::run_shell(vars + "LD_DEBUG=files " + ckpt + " dump " + uri + " 2>&1 >/dev/null");
    INFO(traced.out.substr(traced.out.size() - std::min<size_t>(traced.out.size(), 2000)));
    REQUIRE(traced.status == 0);
    CHECK(traced.out.find("librocksdb") != std::string::npos);  // the log is there
    CHECK((traced.out.find("libcurl") != std::string::npos) == proxied);
    const test::CliResult dumped = test::run_shell(vars + ckpt + " dump " + uri);
    INFO(dumped.err);
    REQUIRE(dumped.status == 0);
    CHECK(dumped.out == local.out);
  }
}

TEST_CASE("an s3 prefix given to --remap or --map is a mapping and nothing is fetched", "[cli][s3]") {
  // `verify chk-42 --remap s3://bucket/flink=local-copy` reads a downloaded copy: no store is
  // contacted (no credentials are set here, so any request would fail) and the output is the
  // disk run's.
  ckpt::test::ScratchDir s;
  const std::string sample = ckpt::test::source_dir() + "/testdata/sample-savepoint";
  auto plain = ckpt::test::run_cli({"verify", sample});
  auto remapped = ckpt::test::run_cli({"verify", sample, "--remap", "s3://bucket/flink=" + (s / "copy")});
  INFO(remapped.err);
  CHECK(remapped.status == plain.status);
  CHECK(remapped.out == plain.out);
  auto eq = ckpt::test::run_cli({"verify", sample, "--remap=s3a://bucket/flink=" + (s / "copy")});
  CHECK(eq.status == plain.status);
  auto relocated =
      ckpt::test::run_cli({"relocate", sample, "-o", s / "m", "--map", "s3://nowhere=/x", "--map", "s3://a=s3://b"});
  INFO(relocated.err);
  CHECK(relocated.status == 0);
  CHECK(relocated.err.find("credentials") == std::string::npos);
}
