// Under --json a failure is also a JSON object on stdout (formats/json.md §3): a script that
// reads stdout learns the stable code, the file and the offset, for every subcommand with
// --json; the exit status stays 2 and standard error keeps its message.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::CliResult;
using ckpt::test::run_cli;
using nlohmann::json;

namespace {

// The one object on stdout; the text error still on stderr.
json error_of(const CliResult& r) {
  INFO(r.out << r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("ckpt: error: ") != std::string::npos);
  json j = json::parse(r.out);  // throws (fails the test) unless stdout is exactly one document
  CHECK(j["schema"] == "ckpt.error/1");
  CHECK(j.size() == 2);
  CHECK(j["error"]["message"].is_string());
  CHECK_FALSE(j["error"]["message"].get<std::string>().empty());
  return j["error"];
}

// A copy of the sample savepoint whose _metadata is cut after `keep` bytes.
std::string truncated_sample(const ckpt::test::ScratchDir& s, size_t keep) {
  const std::string dir = s / "truncated";
  fs::copy(ckpt::test::source_dir() + "/testdata/sample-savepoint", dir, fs::copy_options::recursive);
  fs::resize_file(dir + "/_metadata", keep);
  return dir;
}

}  // namespace

TEST_CASE("a truncated _metadata under --json is a corruption object naming the file and offset", "[cli][corrupt]") {
  ckpt::test::ScratchDir s;
  const std::string bad = truncated_sample(s, 24);
  const std::string sample = ckpt::test::source_dir() + "/testdata/sample-savepoint";
  const std::vector<std::vector<std::string>> runs = {
      {"inspect", "--json", bad},
      {"verify", "--json", bad},
      {"verify", "--json", "--deep", bad},
      {"diff", "--json", sample, bad},
      {"restore", "--json", bad, "--output", s / "restored"},
      {"convert", "--json", bad, "--to", "rocksdb", "--output", s / "converted"},
      {"compact", "--json", bad, "--output", s / "compacted"},
      {"relocate", "--json", bad, "--output", s / "relocated"},
  };
  for (const auto& args : runs) {
    INFO(args[0]);
    json e = error_of(run_cli(args));
    CHECK(e["code"] == "corruption");
    REQUIRE(e["file"].is_string());
    CHECK(e["file"].get<std::string>().ends_with("_metadata"));
    CHECK(e["file"].get<std::string>().find("truncated") != std::string::npos);
    REQUIRE(e["offset"].is_number_unsigned());
    CHECK(e["offset"].get<uint64_t>() <= 24);
  }
  CHECK_FALSE(fs::exists(s / "restored"));
  CHECK_FALSE(fs::exists(s / "converted"));
}

TEST_CASE("gc and generate failures under --json are error objects with their codes", "[cli]") {
  ckpt::test::ScratchDir s;
  // A job directory whose only checkpoint's _metadata is cut short.
  fs::create_directories(s / "job/shared");
  fs::copy(truncated_sample(s, 24), s / "job/chk-1", fs::copy_options::recursive);
  json gc = error_of(run_cli({"gc", "--json", s / "job"}));
  CHECK(gc["code"] == "corruption");
  CHECK(gc["file"].get<std::string>().ends_with("chk-1/_metadata"));

  json missing = error_of(run_cli({"gc", "--json", s / "no-such-job"}));
  CHECK(missing["code"] != "corruption");
  CHECK(missing["offset"].is_null());

  json backend = error_of(run_cli({"generate", "--json", "--output", s / "g", "--backend", "leveldb"}));
  CHECK(backend["code"] == "invalid_argument");
  CHECK(backend["message"].get<std::string>().find("leveldb") != std::string::npos);
  CHECK_FALSE(fs::exists(s / "g"));
}

TEST_CASE("filters that match nothing and bad flags under --json are error objects", "[cli]") {
  ckpt::test::ScratchDir s;
  const std::string sample = ckpt::test::source_dir() + "/testdata/sample-savepoint";
  json subtask = error_of(run_cli({"restore", "--json", sample, "--output", s / "r", "--subtask", "9"}));
  CHECK(subtask["code"] == "not_found");
  CHECK(subtask["message"].get<std::string>().find("has subtasks 0-1") != std::string::npos);
  json state = error_of(run_cli({"diff", "--json", "--keys", "--state", "nope", sample, sample}));
  CHECK(state["code"] == "not_found");
  json op = error_of(run_cli({"inspect", "--json", "--remap", "no-equals-sign", sample}));
  CHECK(op["code"] == "invalid_argument");
  CHECK(op["file"].is_null());
  // A command line ckpt cannot parse: the usage code.
  json usage = error_of(run_cli({"verify", "--json", "--no-such-flag", sample}));
  CHECK(usage["code"] == "usage");
  CHECK(usage["message"].get<std::string>().find("--no-such-flag") != std::string::npos);
  // Without --json, stdout stays empty on failure.
  CliResult text = run_cli({"inspect", s / "absent"});
  CHECK(text.status == 2);
  CHECK(text.out.empty());
}
