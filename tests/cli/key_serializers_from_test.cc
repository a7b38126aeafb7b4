// --key-serializers-from on dump and diff, as on convert and restore: a changelog handle with
// no materialized part names no key serializer (Flink takes it from the job), so its keys print
// as hex; another snapshot of the job supplies it, and the entries then equal those Flink's
// RocksDB backend wrote in the same job. convert's refusal names the flag.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using ckpt::test::run_cli;

namespace {

// A flat-map operator of the job: keyed value state in change logs only, no timers.
const char* kFlatMap = "d5c8b168c6cbfe8c507a10f88b325243";

std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  std::sort(out.begin(), out.end());
  return out;
}

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("dump and diff take --key-serializers-from for change logs that name no key serializer", "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  const std::string clog = ckpt::test::corpus_dir() + "/" + ckpt::test::kUdfMigrationChangelog;
  const std::string rocks = ckpt::test::corpus_dir() + "/" + ckpt::test::kUdfMigrationRocks;
  auto plain = run_cli({"dump", clog, "--operator", kFlatMap});
  REQUIRE(plain.status == 0);
  CHECK(count(plain.out, "changelog without key serializer snapshot") == 4);
  auto keyed = run_cli({"dump", clog, "--operator", kFlatMap, "--key-serializers-from", rocks});
  REQUIRE(keyed.status == 0);
  CHECK(count(keyed.out, "\"hex\"") == 0);
  auto flink = run_cli({"dump", rocks, "--operator", kFlatMap});
  REQUIRE(flink.status == 0);
  CHECK(sorted_lines(keyed.out).size() == 4);
  CHECK(sorted_lines(keyed.out) == sorted_lines(flink.out));

  // diff --keys: without the key serializers the flat-map's entries differ in their keys only.
  auto differs = run_cli({"diff", "--keys", "--state", "state-name", clog, rocks});
  CHECK(differs.out.find("d5c8b168 'state-name': 0 same, 4 added, 4 removed") != std::string::npos);
  auto same = run_cli({"diff", "--keys", "--state", "state-name", clog, rocks, "--key-serializers-from", rocks});
  CHECK(same.out.find("d5c8b168 'state-name': 4 same, 0 added, 0 removed, 0 changed") != std::string::npos);
  CHECK(same.out.find("dab25811 'state-name': 4 same, 0 added, 0 removed, 0 changed") != std::string::npos);

  ckpt::test::ScratchDir s;
  auto refused = run_cli({"convert", clog, "--to", "rocksdb", "--output", s / "out"});
  CHECK(refused.status == 2);
  CHECK(refused.err.find("--key-serializers-from SNAPSHOT") != std::string::npos);
}
