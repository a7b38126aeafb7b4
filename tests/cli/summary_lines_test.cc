// What a command prints when it is done: counts with their nouns in the right number, the
// entries convert writes counted as verify and dump count them, the kind it wrote, and a line
// from report as from every other writer.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::run_cli;
using ckpt::test::run_cli_ok;
using nlohmann::json;

TEST_CASE("summaries count one of a thing in the singular", "[cli]") {
  ckpt::test::ScratchDir s;
  const std::string g = s / "g";
  std::vector<std::string> outputs;
  outputs.push_back(run_cli_ok({"generate", "--output", g, "--keys", "1", "--parallelism", "1", "--operators", "1",
                                "--states", "value", "-q"})
                        .out);
  outputs.push_back(run_cli_ok({"convert", g, "--to", "heap", "--output", s / "c", "-q"}).out);
  outputs.push_back(run_cli_ok({"verify", "--deep", g}).out);
  outputs.push_back(run_cli_ok({"restore", g, "--output", s / "r", "-q"}).out);
  outputs.push_back(run_cli_ok({"compact", g, "--output", s / "k", "-q"}).out);
  outputs.push_back(run_cli_ok({"plan", g, "--shards", "1"}).out);
  outputs.push_back(run_cli_ok({"edit", g, "--output", s / "e", "--dry-run", "-q"}).out);
  const std::regex plural_of_one(
      R"(\b1 (entries|files|subtasks|operators|checkpoints|snapshots|instances|RocksDB instances|problems|SSTs|sst files|paths|parts|bytes|orphans)\b)");
  for (const std::string& out : outputs) {
    INFO(out);
    CHECK_FALSE(std::regex_search(out, plural_of_one));
  }
  CHECK(ckpt::test::contains(outputs[0], "1 entry, "));
  CHECK(ckpt::test::contains(outputs[1], "1 subtask, 1 entry, "));
  CHECK(ckpt::test::contains(outputs[2], "(deep, 1 operator, 1 subtask, "));
  CHECK(ckpt::test::contains(outputs[3], ": 1 instance, "));
}

TEST_CASE("convert counts the operator state it writes as verify and dump count entries", "[cli]") {
  // The sample savepoint: 8 keyed entries and 3 elements of operator list state.
  ckpt::test::ScratchDir s;
  const std::string in = ckpt::test::sample_savepoint_dir();
  const json verified = json::parse(run_cli_ok({"verify", "--deep", "--json", in}).out);
  REQUIRE(verified["entry_count"] == 11);
  for (const char* to : {"rocksdb", "heap", "canonical"}) {
    INFO(to);
    const json converted = json::parse(run_cli_ok({"convert", in, "--to", to, "--output", s / to, "--json", "-q"}).out);
    CHECK(converted["entry_count"] == verified["entry_count"]);
    // The output holds what the summary says.
    const json again = json::parse(run_cli_ok({"verify", "--deep", "--json", s / to}).out);
    CHECK(again["entry_count"] == converted["entry_count"]);
  }
  const ckpt::test::CliResult text =
      run_cli_ok({"edit", in, "--output", s / "edited", "--drop-operator", "bc764cd8ddf7a0cff126f51c16239658", "-q"});
  CHECK(ckpt::test::contains(text.out, "8 entries"));
}

TEST_CASE("convert of Flink 1.9 and 1.12 savepoints says which kind it wrote", "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  ckpt::test::ScratchDir s;
  for (const char* name : {"new-stateful-udf-migration-itcase-flink1.9-savepoint",
                           "new-stateful-udf-migration-itcase-flink1.12-rocksdb-savepoint"}) {
    INFO(name);
    const std::string in = ckpt::test::corpus_dir() + "/" + name;
    const json native = json::parse(
        run_cli_ok({"convert", in, "--to", "rocksdb", "--output", s / (std::string(name) + "-r"), "--json", "-q"}).out);
    CHECK(native["kind"] == "savepoint-native");
    const ckpt::test::CliResult canonical =
        run_cli_ok({"convert", in, "--to", "canonical", "--output", s / (std::string(name) + "-c"), "-q"});
    CHECK(ckpt::test::contains(canonical.out, ": savepoint-canonical (canonical), "));
  }
}

TEST_CASE("report says what it wrote and prints only JSON with --json", "[cli]") {
  ckpt::test::ScratchDir s;
  const std::string page = s / "state.html";
  const ckpt::test::CliResult r = run_cli_ok({"report", ckpt::test::sample_savepoint_dir(), "--output", page, "-q"});
  CHECK(r.out ==
        page + ": HTML report of 2 operators, 1 snapshot, " + std::to_string(fs::file_size(page)) + " bytes\n");
  const ckpt::test::CliResult both =
      run_cli_ok({"report", ckpt::test::sample_savepoint_dir(), "--output", s / "again.html", "--json", "-q"});
  CHECK(json::parse(both.out).is_object());
}
