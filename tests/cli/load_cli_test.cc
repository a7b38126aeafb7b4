// ckpt load from the command line: dump's output written back, and bad entries refused with
// exit status 2 naming the line, the member and what was expected, nothing written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::run_cli;
using ckpt::test::run_cli_ok;
using nlohmann::json;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The first keyed line of the sample's dump.
json first_keyed(const std::vector<std::string>& lines) {
  for (const std::string& l : lines) {
    json j = json::parse(l);
    if (j["kind"] == "keyed") return j;
  }
  FAIL("no keyed entry in the sample");
  return {};
}

}  // namespace

TEST_CASE("load writes the sample savepoint back from its dump - same entries and same heap bytes", "[cli]") {
  ckpt::test::ScratchDir s;
  const std::string sample = ckpt::test::sample_savepoint_dir();
  const std::string dumped = run_cli_ok({"dump", sample, "--format", "ndjson"}).out;
  ckpt::test::write_file(s / "entries.ndjson", dumped);
  auto r = run_cli_ok({"load", s / "entries.ndjson", "--like", sample, "--output", s / "out"});
  CHECK(ckpt::test::contains(r.out, "entries"));
  CHECK(run_cli_ok({"dump", s / "out", "--format", "ndjson"}).out == dumped);
  CHECK(run_cli({"verify", s / "out", "--deep"}).status == 0);
}

TEST_CASE("load refuses a bad entry with exit status 2 naming the line and member and writes nothing", "[cli]") {
  ckpt::test::ScratchDir s;
  const std::string sample = ckpt::test::sample_savepoint_dir();
  const std::vector<std::string> lines = lines_of(run_cli_ok({"dump", sample, "--format", "ndjson"}).out);
  const json keyed = first_keyed(lines);
  auto refused = [&](const std::string& bad, const std::string& says) {
    std::string text = lines.at(0) + "\n" + bad + "\n";
    ckpt::test::write_file(s / "bad.ndjson", text);
    for (const char* jobs : {"1", "3"}) {
      auto r = run_cli({"load", s / "bad.ndjson", "--like", sample, "--output", s / "out", "-j", jobs});
      INFO(r.err);
      CHECK(r.status == 2);
      CHECK(ckpt::test::contains(r.err, "bad.ndjson:2: " + says));
      CHECK_FALSE(fs::exists(s / "out"));
    }
  };
  refused("{not json", "expected a JSON object");
  json wrong_value = keyed;
  wrong_value["value"] = "many";
  refused(wrong_value.dump(), "value: expected a 64-bit integer, got \"many\"");
  json wrong_key = keyed;
  wrong_key["key"] = json::array({1, 2});
  refused(wrong_key.dump(), "key: expected");
  json no_state = keyed;
  no_state["state"] = "no-such-state";
  refused(no_state.dump(), "state: operator");
  json no_operator = keyed;
  no_operator["operator"] = std::string(32, '0');
  refused(no_operator.dump(), "operator: expected the id of an operator of the template");
}

TEST_CASE("load and edit --upsert read key rows as dump --plan names them - the fields in the order written",
          "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  ckpt::test::ScratchDir s;
  const std::string dir = ckpt::test::sql_corpus_dir() + "/stream-exec-expand_1/expand";
  const std::string sp = dir + "/savepoint", plan = dir + "/plan/expand.json";
  const std::string named = run_cli_ok({"dump", sp, "--plan", plan, "--format", "ndjson"}).out;
  // The key's columns, a, $f3 and $f4, are not in the order a JSON object's sorted names give.
  REQUIRE(ckpt::test::contains(named, "\"key\":{\"fields\":{\"a\":"));
  REQUIRE(ckpt::test::contains(named, "\"$f3\":"));
  ckpt::test::write_file(s / "named.ndjson", named);
  run_cli_ok({"load", s / "named.ndjson", "--like", sp, "--output", s / "out"});
  CHECK(run_cli_ok({"dump", s / "out", "--format", "ndjson"}).out ==
        run_cli_ok({"dump", sp, "--format", "ndjson"}).out);

  // An edit's upsert of a named line as dumped finds the entry it names: unchanged, none added
  // (a map state's entry, whose value bytes re-encode exactly).
  std::string keyed;
  for (const std::string& l : lines_of(named))
    if (ckpt::test::contains(l, "\"state\":\"distinctAcc_0\"") && ckpt::test::contains(l, "\"$f3\":")) keyed = l;
  REQUIRE_FALSE(keyed.empty());
  ckpt::test::write_file(s / "upsert.ndjson", keyed + "\n");
  const json edited =
      json::parse(run_cli_ok({"edit", sp, "--upsert", s / "upsert.ndjson", "--dry-run", "--json"}).out);
  INFO(edited.dump());
  REQUIRE(edited["entry_edits"].size() == 1);
  CHECK(edited["entry_edits"][0]["unchanged"] == 1);
  CHECK(edited["entry_edits"][0]["added"] == 0);
}

TEST_CASE("load reads lines across its 4 MiB blocks - a line longer than a block CRLF blank lines and no final newline",
          "[cli]") {
  ckpt::test::ScratchDir s;
  // Three values of 2.5 MB (lines of 5 MB hex, each longer than a block), and 12,000 short
  // lines (4.6 MB: blocks end inside lines).
  for (const auto& [keys, size] : {std::pair<const char*, const char*>{"3", "2500000"}, {"12000", "100"}}) {
    const std::string tmpl = s / (std::string("template-") + keys);
    run_cli_ok({"generate", "--backend", "heap", "--parallelism", "2", "--keys", keys, "--value-size", size,
                "--states", "value", "--seed", "5", "--output", tmpl});
    const std::string dumped = run_cli_ok({"dump", tmpl, "--format", "ndjson"}).out;
    const std::vector<std::string> lines = lines_of(dumped);
    REQUIRE(lines.size() == static_cast<size_t>(std::stoi(keys)));
    std::string text;
    for (size_t i = 0; i < lines.size(); ++i) {
      text += lines[i];
      if (i + 1 == lines.size()) break;  // no newline after the last line
      text += i % 2 ? "\r\n" : "\n";
      if (i == lines.size() / 2) text += " \t\r\n\n";  // blank lines are skipped, but counted
    }
    ckpt::test::write_file(s / "entries.ndjson", text);
    for (const char* jobs : {"1", "3"}) {
      INFO(keys << " keys, -j " << jobs);
      const std::string out = s / (std::string("out-") + keys + "-" + jobs);
      auto r = run_cli_ok({"load", s / "entries.ndjson", "--like", tmpl, "--output", out, "-j", jobs});
      CHECK(ckpt::test::contains(r.out, std::string("from ") + keys + " entries"));
      CHECK(run_cli_ok({"dump", out, "--format", "ndjson"}).out == dumped);
    }
  }
  // A bad line after the blank ones is named by its number in the file.
  const std::vector<std::string> lines = lines_of(run_cli_ok({"dump", s / "template-3", "--format", "ndjson"}).out);
  ckpt::test::write_file(s / "bad.ndjson", lines.at(0) + "\r\n\n  \n" + lines.at(1) + "\n{\"operator\":7}");
  auto r = run_cli({"load", s / "bad.ndjson", "--like", s / "template-3", "--output", s / "bad-out", "-j", "2"});
  CHECK(r.status == 2);
  CHECK(ckpt::test::contains(r.err, "bad.ndjson:5: operator: expected a string, got 7"));
}
