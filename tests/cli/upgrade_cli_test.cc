// ckpt upgrade's command line: --check on a snapshot of built-in serializers, the refusals
// (--check with --output, neither, a target other than 2.x, a missing snapshot), its JSON
// document against formats/schemas/ckpt.upgrade.schema.json, and --output's lines and exit status.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using ckpt::test::CliResult;
using ckpt::test::run_cli;

TEST_CASE("upgrade --check prints a table and a schema-valid document for the sample savepoint", "[cli]") {
  const std::string sample = ckpt::test::sample_savepoint_dir();
  CliResult text = run_cli({"upgrade", sample, "--to", "2.x", "--check"});
  INFO(text.err);
  CHECK(text.status == 0);
  CHECK(text.out.rfind("OPERATOR", 0) == 0);
  CHECK(text.out.find("VERDICT  REASON\n") != std::string::npos);
  CHECK(text.out.find(" 0 unknown, 0 fail\n") != std::string::npos);
  CliResult doc = run_cli({"upgrade", sample, "--to", "2.x", "--check", "--json"});
  REQUIRE(doc.status == 0);
  nlohmann::json j = nlohmann::json::parse(doc.out);
  CHECK(j["schema"] == "ckpt.upgrade/1");
  CHECK(j["target"] == "2.x");
  CHECK(j["ok_count"] == j["state_count"]);
  CHECK(j["state_count"].get<int>() > 0);

  ckpt::test::ScratchDir s;
  std::filesystem::create_directories(s / "out");
  ckpt::test::write_file(s / "out/upgrade.1.json", doc.out);
  ckpt::test::write_file(s / "out/error.1.json",
                         run_cli({"upgrade", s / "absent", "--to", "2.x", "--check", "--json"}).out);
  // The rewrite's document: nothing legacy in the sample, so no state is touched.
  CliResult written = run_cli({"upgrade", sample, "--to", "2.x", "--output", s / "up", "--json"});
  INFO(written.err);
  REQUIRE(written.status == 0);
  nlohmann::json w = nlohmann::json::parse(written.out);
  CHECK(w["schema"] == "ckpt.upgrade-output/1");
  CHECK(w["output"] == s / "up");
  CHECK(w["state_count"] == 0);
  CHECK(w["file_count"].get<int>() > 0);
  ckpt::test::write_file(s / "out/upgrade-output.1.json", written.out);
  ckpt::test::write_file(s / "out/error.2.json",
                         run_cli({"upgrade", sample, "--to", "2.x", "--output", s / "up", "--json"}).out);
  CliResult v = ckpt::test::run_program({"python3", ckpt::test::source_dir() + "/tests/tools/validate_json.py",
                                         ckpt::test::source_dir() + "/formats/schemas", s / "out"},
                                        120);
  INFO(v.out << v.err);
  REQUIRE(v.status != 3);  // python3-jsonschema missing: a failure, not a pass
  CHECK(v.status == 0);
}

TEST_CASE("upgrade refuses --check with --output - neither of them - force without output and a target other than 2.x",
          "[cli]") {
  const std::string sample = ckpt::test::sample_savepoint_dir();
  ckpt::test::ScratchDir s;
  CliResult out = run_cli({"upgrade", sample, "--to", "2.x", "--check", "--output", s / "up"});
  CHECK(out.status == 2);
  CHECK(out.err.find("needs one of --check") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(s / "up"));
  CliResult no_check = run_cli({"upgrade", sample, "--to", "2.x"});
  CHECK(no_check.status == 2);
  CHECK(no_check.err.find("needs one of --check") != std::string::npos);
  CliResult force = run_cli({"upgrade", sample, "--to", "2.x", "--check", "--force"});
  CHECK(force.status == 2);
  CHECK(run_cli({"upgrade", sample, "--to", "2.x", "--check", "--key-serializers-from", sample}).status == 2);
  CliResult target = run_cli({"upgrade", sample, "--to", "3.x", "--check", "--json"});
  CHECK(target.status == 2);
  CHECK(nlohmann::json::parse(target.out)["error"]["code"] == "invalid_argument");
  CHECK(run_cli({"upgrade", sample, "--check"}).status == 2);  // --to is required
}

TEST_CASE("upgrade output prints each state and exits 1 while a state is left unchanged", "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  const std::string old = ckpt::test::shared_dir() + "/testdata/flink-old/";
  if (!std::filesystem::exists(old)) CKPT_SKIP("no " << old);
  ckpt::test::ScratchDir s;
  // Every legacy snapshot of this one has a current form: exit 0, then --check finds none.
  CliResult all = run_cli({"upgrade", old + "complexKeyed-flink1.3", "--to", "2.x", "--output", s / "a"});
  INFO(all.out << all.err);
  CHECK(all.status == 0);
  CHECK(all.out.find("rewritten 01203aa9a12dc1ec725e03853dd7c8f2 window-contents: keyed") != std::string::npos);
  CHECK(all.out.find("5 states rewritten, 0 left unchanged, 0 dropped") != std::string::npos);
  CliResult again = run_cli({"upgrade", old + "complexKeyed-flink1.3", "--to", "2.x", "--output", s / "a"});
  CHECK(again.status == 2);  // the output exists
  CHECK(run_cli({"upgrade", old + "complexKeyed-flink1.3", "--to", "2.x", "--output", s / "a", "--force"}).status == 0);
  CliResult doc = run_cli({"upgrade", old + "complexKeyed-flink1.3", "--to", "2.x", "--output", s / "j", "--json"});
  REQUIRE(doc.status == 0);
  nlohmann::json j = nlohmann::json::parse(doc.out);
  CHECK(j["rewritten_count"] == 5);
  CHECK(j["left_count"] == 0);
  bool window = false;
  for (const auto& st : j["states"])
    if (st["operator"] == "01203aa9a12dc1ec725e03853dd7c8f2" && st["state"] == "window-contents")
      window = st["action"] == "rewritten" && st["keyed"] == true && st["reason"].is_null();
  CHECK(window);
  CliResult check = run_cli({"upgrade", s / "a", "--to", "2.x", "--check", "--json"});
  CHECK(check.out.find("legacy-config") == std::string::npos);
  // Scala case classes under a Kryo key: left as they were, listed with why, exit 1.
  CliResult scala = run_cli({"upgrade", old + "stateful-scala2.10-udf-migration-itcase-flink1.3-jobmanager-savepoint",
                             "--to", "2.x", "--output", s / "b"});
  INFO(scala.out << scala.err);
  CHECK(scala.status == 1);
  CHECK(scala.out.find("left d1392353922252257afa15351a98bae9 optionNoneState: keyed (the key serializer:") !=
        std::string::npos);
  CHECK(std::filesystem::exists(s / "b/_metadata"));
  nlohmann::json left = nlohmann::json::parse(
      run_cli({"upgrade", old + "stateful-scala2.10-udf-migration-itcase-flink1.3-jobmanager-savepoint", "--to", "2.x",
               "--output", s / "c", "--json"})
          .out);
  CHECK(left["left_count"].get<int>() > 0);
  for (const auto& st : left["states"])
    if (st["action"] == "left") CHECK(st["reason"].is_string());
}

TEST_CASE("upgrade output of a changelog checkpoint naming no key serializer takes it from key-serializers-from",
          "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  const std::string flink = ckpt::test::shared_dir() + "/testdata/flink/";
  const std::string in = flink + "new-stateful-udf-migration-itcase-flink1.17-hashmap-checkpoint";
  const std::string keys = flink + "new-stateful-udf-migration-itcase-flink1.17-hashmap-savepoint";
  if (!std::filesystem::exists(in)) CKPT_SKIP("no " << in);
  ckpt::test::ScratchDir s;
  CliResult refused = run_cli({"upgrade", in, "--to", "2.x", "--output", s / "a"});
  CHECK(refused.status == 2);
  CHECK(refused.err.find("--key-serializers-from") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(s / "a"));
  CliResult up = run_cli({"upgrade", in, "--to", "2.x", "--output", s / "a", "--key-serializers-from", keys});
  INFO(up.out << up.err);
  REQUIRE(up.status == 0);
  CHECK(run_cli({"verify", "--deep", s / "a"}).status == 0);
  CliResult a = run_cli({"dump", in, "--key-serializers-from", keys});
  CliResult b = run_cli({"dump", s / "a"});
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  auto lines = [](const std::string& text) {
    std::multiset<std::string> out;
    std::istringstream is(text);
    for (std::string line; std::getline(is, line);) out.insert(line);
    return out;
  };
  CHECK_FALSE(a.out.empty());
  CHECK(lines(a.out) == lines(b.out));
}
