// Every example command of the man pages (and so of --help, whose footer repeats them: see
// man_help_test.cc) runs against a small world of generated snapshots and must succeed: an
// example whose operator, state, key or path matches nothing fails here, not in a user's hands.
//
// The world stands in for the examples' names: the snapshot paths they use exist in it (as
// links to generated snapshots), and names no generated job can have (the hex id of someone's
// operator, an HDFS mount) are replaced by the world's before the command runs, by the table in
// world_names(). Sizes of `ckpt generate` are made small. What an example pipes or redirects
// its output into is left out. Examples on s3:// URIs are run by the object-store tests
// (tests/cli/s3_*), which start a store; the SQL example runs where Flink's SQL savepoints are.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Example {
  std::string page;
  std::string command;  // "ckpt ...", continuation lines joined
};

// The `    ckpt ...` lines of every page's EXAMPLES, with their `\` continuations.
std::vector<Example> man_examples() {
  std::vector<Example> out;
  std::vector<std::string> pages = {"ckpt"};
  for (const auto& c : ckpt::cli::commands()) pages.push_back(std::string("ckpt-") + c.name);
  for (const std::string& page : pages) {
    std::istringstream in(ckpt::test::read_file(ckpt::test::source_dir() + "/man/" + page + ".1.md"));
    bool inside = false;
    std::string line, pending;
    while (std::getline(in, line)) {
      if (line.rfind("## ", 0) == 0) inside = line == "## EXAMPLES";
      if (!inside) continue;
      if (!pending.empty()) {
        pending += " " + line.substr(line.find_first_not_of(' '));
      } else if (line.rfind("    ckpt ", 0) == 0) {
        pending = line.substr(4);
      } else {
        continue;
      }
      if (!pending.empty() && pending.back() == '\\') {
        pending.pop_back();
        continue;
      }
      out.push_back({page, pending});
      pending.clear();
    }
  }
  return out;
}

// Shell words of `command` up to a pipe, redirection, `||` or comment (quotes removed).
std::vector<std::string> shell_words(const std::string& command) {
  std::vector<std::string> out;
  std::string w;
  bool has = false;
  char quote = 0;
  for (size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        w += c;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      has = true;
    } else if (c == ' ') {
      if (has) out.push_back(w);
      w.clear();
      has = false;
    } else if (c == '|' || c == '>' || c == '#') {
      break;
    } else {
      w += c;
      has = true;
    }
  }
  if (has) out.push_back(w);
  return out;
}

// cwd for the examples' relative paths, restored after.
struct InDirectory {
  fs::path before = fs::current_path();
  explicit InDirectory(const std::string& dir) { fs::current_path(dir); }
  ~InDirectory() { fs::current_path(before); }
};

std::string op_id(const std::string& snapshot, size_t index) {
  json j = json::parse(ckpt::test::run_cli_ok({"inspect", "--json", snapshot}).out);
  return j["operators"].at(index)["id"].get<std::string>();
}

void link_dir(const std::string& target, const std::string& name) {
  fs::create_directories(fs::path(name).parent_path().empty() ? "." : fs::path(name).parent_path());
  fs::create_directory_symlink(fs::absolute(target), name);
}

// Builds the world in the current directory; returns the replacements of the examples' names.
std::vector<std::pair<std::string, std::string>> world_names() {
  using ckpt::test::run_cli_ok;
  // A job's retained checkpoints (the examples' chk-41 and chk-42) and another job.
  run_cli_ok({"generate", "-q", "--output", "world-job", "--chain", "2", "--operators", "2", "--parallelism", "2",
              "--keys", "300", "--states", "value,list,map"});
  run_cli_ok({"generate", "-q", "--output", "world-job-2", "--chain", "2", "--keys", "100", "--seed", "9"});
  // A savepoint with TTL state, two of its operators given the uids the examples use.
  run_cli_ok({"generate", "-q", "--output", "world-sp", "--operators", "3", "--parallelism", "4", "--keys", "300",
              "--states", "value,list,map", "--ttl-span", "30d"});
  run_cli_ok({"edit", "-q", "world-sp", "--set-uid", op_id("world-sp", 0) + "=enrich-orders", "--set-uid",
              op_id("world-sp", 1) + "=rules-op", "--output", "savepoint-1"});
  const std::string unnamed = op_id("savepoint-1", 2);
  for (const char* name : {"savepoint-1234", "savepoint-1f2b5d-0a1b2c3d4e5f", "savepoint-3f1a2b-0123456789ab"})
    link_dir("savepoint-1", name);
  fs::create_directories("backup");
  fs::copy("savepoint-1", "backup/savepoint-3f1a2b-0123456789ab", fs::copy_options::recursive);
  // The same state in the heap's and RocksDB's layouts.
  run_cli_ok({"generate", "-q", "--output", "savepoint-heap", "--backend", "heap", "--keys", "300"});
  run_cli_ok({"convert", "-q", "savepoint-heap", "--to", "rocksdb", "--output", "savepoint-rocksdb"});
  std::ofstream("erase.txt") << "\"user-0000000042\"\n\"user-0000000077\"\n";
  // What ckpt-load(1)'s examples read: a savepoint's own entries.
  std::ofstream("entries.ndjson") << run_cli_ok({"dump", "savepoint-1"}).out;
  // What ckpt-edit(1)'s --upsert examples read: one key's value, and a key the savepoint lacks.
  const std::string poison =
      run_cli_ok({"dump", "savepoint-1", "--key", "\"user-0000000042\"", "--state", "value-state"}).out;
  std::ofstream("poison.ndjson") << poison;
  json backfill = json::parse(poison.substr(0, poison.find('\n')));
  backfill["key"] = "user-0000099999";
  std::ofstream("backfill.ndjson") << backfill.dump() << "\n";
  // What ckpt-load(1)'s bootstrap example reads: a spec and lines naming the operator by uid.
  std::ofstream("orders-spec.json")
      << R"({"operators": [{"uid": "orders", "parallelism": 2, "key": "BIGINT", "states": [{"name": "order", )"
      << R"("kind": "value", "type": "POJO com.acme.Order {id: BIGINT, items: LIST<STRING>}"}]}]})";
  std::ofstream("orders.ndjson")
      << R"({"uid":"orders","state":"order","kind":"keyed","key":7,"namespace":"VoidNamespace",)"
      << R"("value":{"class":"com.acme.Order","fields":{"id":7,"items":["a"]}}})"
      << "\n";
  fs::create_directories("zfunc");
  fs::create_directories("relocated");
  const std::string chain_op = op_id("world-job/chk-2", 0), world = fs::current_path().string();
  // The job's checkpoint as copied from HDFS and from a bucket: its files named by their URIs
  // there, found again by --remap.
  for (const auto& [copy, uri] :
       {std::pair{"hdfs-copy", "hdfs://nn:8020/flink/checkpoints"}, std::pair{"s3-copy", "s3://bucket/flink"}}) {
    fs::create_directories(std::string(copy) + "/relocated");
    run_cli_ok({"relocate", "world-job/chk-2", "--output", std::string(copy) + "/relocated/_metadata", "--map",
                "file:" + world + "/world-job=" + uri});
  }
  return {
      // Paths of other machines.
      {"/checkpoints/7f3c2a...", "world-job"},
      {"/flink/checkpoints/7d3e1f00c0ffee/chk-4711", "chk-42"},
      {"/flink/savepoints/compacted-4711", "compacted-4711"},
      {"/flink/checkpoints/7d3e1f00c0ffee", "world-job"},
      {"/flink/checkpoints/9a0b2c00d15ea5e", "world-job-2"},
      {"ls /flink/checkpoints --json", "ls " + world + " --json"},
      {"savepoint-3f0c1e-ab12cd34ef56", "world-job/chk-2"},
      {"s3-mount/checkpoints/7d3e1f00c0ffee", "world-job"},
      {"/data/flink/checkpoints/4a8b.../chk-42", "chk-42"},
      {"s3-copy/chk-42", "s3-copy/relocated"},
      {"=s3-copy", "=" + world + "/world-job"},
      {"chk-42 --remap hdfs://", "hdfs-copy/relocated --remap hdfs://"},
      {"/mnt/backup", world + "/world-job"},
      {"/mnt/ckpt/chk-42", "chk-42"},
      {"/mnt/out/sp", "sp-parts"},
      {"/tmp/_metadata", "relocated/_metadata"},
      {"/tmp/state", "restored"},
      {"/tmp/kg", "restored-kg"},
      {"/backup", world + "/backup"},
      {"~/.zfunc/_ckpt", "zfunc/_ckpt"},
      // The job's checkpoints (a chain's files are found from its own directory).
      {"chk-41", "world-job/chk-1"},
      {"chk-42", "world-job/chk-2"},
      // Names of another job's operators, states and keys.
      {"41e91aae0bee218c44306cf7d21940ad", chain_op},
      {"20ba6b65f97481d5570070de90e4e791", chain_op},
      {"state = 'counts'", "state = 'value-state'"},
      {"my-uid", chain_op},
      {"9f3c1a2b7d6e5f40a1b2c3d4e5f60718=enrich-orders", unnamed + "=enrich-payments"},
      {"2b9c4f0e", unnamed.substr(0, 8)},
      {"_timer_state/event_timer", "list-state"},
      {"--state counts", "--state value-state"},
      {"seen-ids", "value-state"},
      {"accState", "value-state"},
      {"rules-op/rules", "rules-op/map-state"},
      {"\"user-7\"", "\"user-0000000007\""},
      // Sizes a test can afford.
      {"--keys 1000000", "--keys 500"},
      {"--keys 100000", "--keys 500"},
  };
}

std::string with_names(std::string text, const std::vector<std::pair<std::string, std::string>>& names) {
  for (const auto& [from, to] : names)
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  return text;
}

// The --output (-o) of an example, replaced by each run: several examples write the same one.
void remove_output(const std::vector<std::string>& args) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--output" || args[i] == "-o") {
      std::error_code ec;
      fs::remove_all(args[i + 1], ec);
    }
}

}  // namespace

TEST_CASE("every example of the man pages and --help runs and matches what it names", "[docs][cli]") {
  const std::vector<Example> all = man_examples();
  REQUIRE(all.size() >= 40);
  ckpt::test::ScratchDir s;
  InDirectory in(s.path());
  const auto names = world_names();
  size_t ran = 0;
  for (const Example& e : all) {
    INFO(e.page << ": " << e.command);
    bool in_store = false;  // a snapshot or output in a bucket: tests/cli/s3_*, with a store
    for (const std::string& w : shell_words(e.command))
      in_store |= w.starts_with("s3://") && w.find('=') == std::string::npos;
    if (in_store) continue;
    std::string command = with_names(e.command, names);
    if (e.command.find("--plan plan.json") != std::string::npos) {
      // A SQL job's savepoint and its compiled plan.
      if (!ckpt::test::shared_available()) continue;
      const std::string dir = ckpt::test::sql_corpus_dir() + "/stream-exec-group-aggregate_1/agg-with-state-ttl-hint";
      command = with_names(
          e.command, {{"savepoint-1", dir + "/savepoint"}, {"plan.json", dir + "/plan/agg-with-state-ttl-hint.json"}});
    }
    // A part per pod: every K of N, then the step that assembles them.
    std::vector<std::string> runs;
    if (command.find("$JOB_COMPLETION_INDEX/8") != std::string::npos) {
      for (int k = 0; k < 8; ++k) runs.push_back(with_names(command, {{"$JOB_COMPLETION_INDEX", std::to_string(k)}}));
    } else {
      runs.push_back(command);
    }
    for (const std::string& run : runs) {
      std::vector<std::string> args = shell_words(run);
      REQUIRE(args.size() >= 2);
      REQUIRE(args.front() == "ckpt");
      args.erase(args.begin());
      if (run.find("--shard") == std::string::npos && run.find("--finish") == std::string::npos) remove_output(args);
      ckpt::test::CliResult r = ckpt::test::run_cli(args);
      INFO(run << "\nstatus " << r.status << "\n" << r.err.substr(0, 2000));
      // diff's 1 says the snapshots differ, which its examples compare for.
      if (args.front() == "diff")
        CHECK(r.status <= 1);
      else
        CHECK(r.status == 0);
      CHECK(r.err.find("warning") == std::string::npos);  // e.g. a --remap or uid that names nothing
      ++ran;
    }
  }
  CHECK(ran >= 35);
}
