// Every --json document, dump line and error object validates against its schema under
// formats/schemas (formats/json.md), on the sample savepoint, generated snapshots and Flink's,
// and the schemas are strict enough to reject a mutated document. The validator is Python's
// jsonschema (tests/tools/validate_json.py): without it these tests fail, never pass.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::CliResult;
using ckpt::test::run_cli;
using ckpt::test::sample_savepoint_dir;
using nlohmann::ordered_json;

namespace {

// Outputs collected under one directory, named <document>.<n>.json|ndjson for the validator.
class Outputs {
 public:
  std::string dir() const { return scratch_ / "out"; }
  Outputs() { fs::create_directories(dir()); }

  // The stdout of a run that must have succeeded (status 0, or 1 where problems are findings).
  void document(const std::string& document, const CliResult& r, std::initializer_list<int> statuses = {0}) {
    INFO(document << ": " << r.err);
    CHECK(std::find(statuses.begin(), statuses.end(), r.status) != statuses.end());
    add(document, r.out, "json");
  }
  void lines(const std::string& document, const CliResult& r, std::initializer_list<int> statuses = {0}) {
    INFO(document << ": " << r.err);
    CHECK(std::find(statuses.begin(), statuses.end(), r.status) != statuses.end());
    CHECK_FALSE(r.out.empty());
    add(document, r.out, "ndjson");
  }
  void add(const std::string& document, const std::string& text, const std::string& ext) {
    ckpt::test::write_file(dir() + "/" + document + "." + std::to_string(++n_) + "." + ext, text);
  }
  size_t count() const { return n_; }

  // Runs the validator; every file must come out as expected. Returns its report.
  std::string validate() const {
    CliResult v = ckpt::test::run_program({"python3", ckpt::test::source_dir() + "/tests/tools/validate_json.py",
                                           ckpt::test::source_dir() + "/formats/schemas", dir()},
                                          600);
    INFO(v.out << v.err);
    REQUIRE(v.status != 3);  // python3-jsonschema missing: a failure, not a pass
    CHECK(v.status == 0);
    size_t ok = 0;
    for (size_t at = v.out.find("ok "); at != std::string::npos; at = v.out.find("\nok ", at + 1)) ++ok;
    CHECK(ok == n_);
    return v.out;
  }

 private:
  ckpt::test::ScratchDir scratch_;
  size_t n_ = 0;
};

ordered_json parsed(const CliResult& r) { return ordered_json::parse(r.out); }

}  // namespace

TEST_CASE("every subcommand's --json validates against its schema on the sample and generated snapshots", "[cli]") {
  ckpt::test::ScratchDir s;
  Outputs o;
  const std::string rocks = s / "rocks", heap = s / "heap", chain = s / "chain", other = s / "other";
  o.document("generate",
             run_cli({"generate", "--json", "--output", rocks, "--keys", "200", "--states", "value,list,map"}));
  o.document("generate", run_cli({"generate", "--json", "--output", heap, "--backend", "heap", "--keys", "200"}));
  o.document("generate", run_cli({"generate", "--json", "--output", other, "--keys", "200", "--seed", "2"}));
  o.document("generate", run_cli({"generate", "--json", "--output", chain, "--chain", "3", "--keys", "200"}));
  for (const std::string& snapshot : {sample_savepoint_dir(), rocks, heap, chain + "/chk-3"}) {
    INFO(snapshot);
    o.document("inspect", run_cli({"inspect", "--json", snapshot}));
    o.document("inspect", run_cli({"inspect", "--json", "-v", "--count", "--uid", "no-such-uid", snapshot}));
    o.document("verify", run_cli({"verify", "--json", snapshot}));
    o.document("verify", run_cli({"verify", "--json", "--deep", "--uid", "no-such-uid", snapshot}));
    o.lines("dump", run_cli({"dump", snapshot}));
  }
  o.document("diff", run_cli({"diff", "--json", sample_savepoint_dir(), sample_savepoint_dir()}));
  o.document("diff", run_cli({"diff", "--json", "--keys", "--uid", "x", rocks, other}), {1});
  o.document("diff", run_cli({"diff", "--json", chain + "/chk-1", chain + "/chk-3"}), {1});
  o.lines("diff-line", run_cli({"diff", "--keys", "--format", "ndjson", rocks, other}), {1});
  o.document("gc", run_cli({"gc", "--json", chain, "--older-than", "0s"}));
  for (const std::string& path : {chain, sample_savepoint_dir(), heap}) {
    o.document("report", run_cli({"report", "--json", "-q", path}));
    o.document("report", run_cli({"report", "--json", "-q", "--fast", path}));
    o.document("advise", run_cli({"advise", "--json", "-q", "--tm-memory", "1m", path}));
  }
  o.document("restore", run_cli({"restore", "--json", sample_savepoint_dir(), "--output", s / "restored"}));
  o.document("restore", run_cli({"restore", "--json", rocks, "--output", s / "restored-rocks", "--subtask", "1"}));
  o.document("convert",
             run_cli({"convert", "--json", sample_savepoint_dir(), "--to", "rocksdb", "--output", s / "converted"}));
  ckpt::test::write_file(s / "entries.ndjson", run_cli({"dump", sample_savepoint_dir()}).out);
  o.document("load", run_cli({"load", "--json", s / "entries.ndjson", "--like", sample_savepoint_dir(), "--output",
                              s / "loaded"}));
  o.document("convert", run_cli({"convert", "--json", rocks, "--to", "canonical", "--output", s / "canonical"}));
  o.document("compact", run_cli({"compact", "--json", chain + "/chk-3", "--output", s / "compacted"}));
  const std::string keys = s / "keys.txt";
  ckpt::test::write_file(keys, "4\n999999\n");
  o.document("edit", run_cli({"edit", "--json", sample_savepoint_dir(), "--output", s / "edited", "--set-uid",
                              "bc76=src", "--drop-state", "20ba/count"}));
  // 999999 matches nothing: exit 1, with the whole document.
  o.document("edit",
             run_cli({"edit", "--json", sample_savepoint_dir(), "--dry-run", "--delete-keys", keys,
                      "--max-parallelism", "256"}),
             {1});
  o.document("edit", run_cli({"edit", "--json", rocks, "--output", s / "edited-rocks", "--to", "heap", "--set-id",
                              parsed(run_cli({"inspect", "--json", rocks}))["operators"][0]["id"].get<std::string>() +
                                  "=0123456789abcdef0123456789abcdef"}));
  // --upsert and --delete-where: entry_edits.
  ckpt::test::write_file(s / "upsert.ndjson",
                         "{\"operator\":\"20ba6b65f97481d5570070de90e4e791\",\"state\":\"count\",\"kind\":\"keyed\","
                         "\"key\":4,\"namespace\":\"VoidNamespace\",\"value\":5}\n");
  o.document("edit", run_cli({"edit", "--json", sample_savepoint_dir(), "--dry-run", "--upsert", s / "upsert.ndjson",
                              "--delete-where", "count=key = 8"}));
  o.document("relocate", run_cli({"relocate", "--json", chain + "/chk-3", "--output", s / "relocated", "--relative"}));
  o.document("plan", run_cli({"plan", "--json", rocks, "--shards", "3"}));
  o.document("plan", run_cli({"plan", "--json", sample_savepoint_dir(), "--shards", "7"}));
  o.document("convert",
             run_cli({"convert", "--json", rocks, "--to", "heap", "--output", s / "parted", "--shard", "0/2"}));
  // Failures under --json: the error object (every subcommand's, tests/cli/json_error_test.cc).
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"inspect", "--json", s / "absent"},
        {"verify", "--json", "--remap", "bad", sample_savepoint_dir()},
        {"restore", "--json", sample_savepoint_dir(), "--output", s / "none", "--subtask", "9"}}) {
    CliResult r = run_cli(args);
    CHECK(r.status == 2);
    o.add("error", r.out, "json");
  }
  o.validate();
}

TEST_CASE("the schemas reject documents with a renamed - missing - unknown or mistyped member", "[cli]") {
  ckpt::test::ScratchDir s;
  Outputs o;
  ordered_json inspect = parsed(run_cli({"inspect", "--json", sample_savepoint_dir()}));
  ordered_json verify = parsed(run_cli({"verify", "--json", sample_savepoint_dir()}));
  ordered_json restore = parsed(run_cli({"restore", "--json", sample_savepoint_dir(), "--output", s / "r"}));
  ordered_json error = parsed(run_cli({"inspect", "--json", s / "absent"}));
  REQUIRE(inspect["schema"] == "ckpt.inspect/1");
  REQUIRE(error["schema"] == "ckpt.error/1");
  auto bad = [&](const std::string& document, ordered_json doc) { o.add(document, doc.dump(), "invalid.json"); };
  // The old spellings (inspect's `metadata`, verify's count `operators`) are gone.
  ordered_json renamed = inspect;
  renamed["metadata"] = renamed["snapshot"];
  renamed.erase("snapshot");
  bad("inspect", renamed);
  ordered_json unknown = inspect;
  unknown["operators"][0]["bogus"] = 1;
  bad("inspect", unknown);
  ordered_json versionless = inspect;
  versionless.erase("schema");
  bad("inspect", versionless);
  ordered_json major = inspect;
  major["schema"] = "ckpt.inspect/2";
  bad("inspect", major);
  ordered_json counts = verify;
  counts["operators"] = counts["operator_count"];
  bad("verify", counts);
  ordered_json mistyped = verify;
  mistyped["clean"] = "yes";
  bad("verify", mistyped);
  ordered_json range = restore;
  range["instances"][0]["key_group_range"] = {1, 2, 3};
  bad("restore", range);
  ordered_json code = error;
  code["error"]["code"] = "corrupt";
  bad("error", code);
  o.add("dump", "{\"operator\":\"nothex\",\"subtask\":0,\"state\":\"s\",\"kind\":\"keyed\",\"value\":1}",
        "invalid.json");
  // And the unmutated ones pass, so a rejection above is the mutation's.
  o.add("inspect", inspect.dump(), "json");
  o.add("verify", verify.dump(), "json");
  o.add("restore", restore.dump(), "json");
  o.add("error", error.dump(), "json");
  // Each mutation is rejected where it was made, not for something else in the document.
  const std::string report = o.validate();
  for (const char* why : {"inspect.1.invalid.json: rejected: document 0 at /: 'snapshot' is a required",
                          "inspect.2.invalid.json: rejected: document 0 at /operators/0: Additional properties",
                          "inspect.3.invalid.json: rejected: document 0 at /: 'schema' is a required",
                          "inspect.4.invalid.json: rejected: document 0 at /schema:",
                          "verify.5.invalid.json: rejected: document 0 at /: Additional properties",
                          "verify.6.invalid.json: rejected: document 0 at /clean:",
                          "restore.7.invalid.json: rejected: document 0 at /instances/0/key_group_range:",
                          "error.8.invalid.json: rejected: document 0 at /error/code:",
                          "dump.9.invalid.json: rejected: document 0 at /operator:"}) {
    INFO(why);
    CHECK(report.find(why) != std::string::npos);
  }
}

TEST_CASE("inspect verify diff and the writers --json and dump lines validate against their schemas on Flink snapshots",
          "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  ckpt::test::ScratchDir s;
  Outputs o;
  std::vector<std::string> snapshots = ckpt::test::corpus_snapshots();
  for (const std::string& sql : ckpt::test::sql_corpus_snapshots()) snapshots.push_back(sql);
  REQUIRE(snapshots.size() > 100);
  for (size_t i = 0; i < snapshots.size(); ++i) {
    const std::string& dir = snapshots[i];
    INFO(dir);
    o.document("inspect", run_cli({"inspect", "--json", "-v", dir}));
    o.document("verify", run_cli({"verify", "--json", dir}), {0, 1});
    CliResult dump = run_cli({"dump", "--limit", "50", dir});
    // Snapshots whose values need the job's classes still print lines; some hold no entries.
    if (dump.status == 0 && !dump.out.empty()) o.lines("dump", dump);
    if (i > 0) o.document("diff", run_cli({"diff", "--json", snapshots[i - 1], dir}), {0, 1});
    o.document("report", run_cli({"report", "--json", "-q", dir}));
    o.document("advise", run_cli({"advise", "--json", "-q", "--tm-memory", "1g", dir}));
  }
  // The writers on a RocksDB savepoint and a heap one of Flink's.
  for (const std::string& name :
       {std::string("new-stateful-broadcast-udf-migration-itcase-flink1.17-rocksdb-savepoint"),
        std::string("new-stateful-broadcast-udf-migration-itcase-flink1.17-hashmap-savepoint")}) {
    const std::string dir = ckpt::test::corpus_dir() + "/" + name;
    INFO(dir);
    o.document("inspect", run_cli({"inspect", "--json", "--count", dir}));
    o.document("verify", run_cli({"verify", "--json", "--deep", dir}));
    o.document("restore", run_cli({"restore", "--json", dir, "--output", s / (name + ".restored")}));
    o.document("convert", run_cli({"convert", "--json", dir, "--to", "heap", "--output", s / (name + ".heap")}));
    o.document("relocate", run_cli({"relocate", "--json", dir, "--output", s / (name + ".metadata")}));
    const std::string first = parsed(run_cli({"inspect", "--json", dir}))["operators"][0]["id"];
    o.document("edit", run_cli({"edit", "--json", dir, "--output", s / (name + ".edited"), "--set-uid", first + "=renamed",
                                "--max-parallelism", "256"}));
  }
  const std::string checkpoint =
      ckpt::test::corpus_dir() + "/new-stateful-broadcast-udf-migration-itcase-flink1.17-rocksdb-checkpoint";
  o.document("compact", run_cli({"compact", "--json", checkpoint, "--output", s / "compacted"}));
  o.document("restore", run_cli({"restore", "--json", checkpoint, "--output", s / "checkpoint.restored"}));
  CHECK(o.count() > 300);
  o.validate();
}
