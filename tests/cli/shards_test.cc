// --shard K/N on dump, verify, restore, convert and edit, and `ckpt plan` (ckpt/plan.h): the
// parts of a dump concatenated are the dump; the parts of a convert or edit plus --finish are
// the output of one run, every file byte for byte.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace {

namespace fs = std::filesystem;
using ckpt::test::CliResult;
using ckpt::test::run_cli;
using ckpt::test::run_cli_ok;

std::string shard(int k, int n) { return std::to_string(k) + "/" + std::to_string(n); }

// Every file under `dir` by relative path, with its bytes.
std::map<std::string, std::string> tree(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[e.path().lexically_relative(dir).string()] = ckpt::test::read_file(e.path().string());
  return out;
}

// RocksDB draws a session id, a DB id and creation times at every run, which its SSTs and
// MANIFEST record: two conversions in one go differ there too. Those files are compared by
// size (which `_metadata` records, and `_metadata` is compared byte for byte) and the state
// they hold by dump; every other file byte for byte.
bool drawn_by_rocksdb(const std::string& name) {
  static const std::regex re(R"(^rocksdb-[0-9a-f]{32}-[0-9]+/([0-9]+\.sst|MANIFEST-[0-9]+)$)");
  return std::regex_match(name, re);
}

void check_same_tree(const std::string& a, const std::string& b) {
  const auto ta = tree(a), tb = tree(b);
  std::set<std::string> na, nb;
  for (const auto& [name, _] : ta) na.insert(name);
  for (const auto& [name, _] : tb) nb.insert(name);
  REQUIRE(na == nb);
  REQUIRE(na.count("_metadata") == 1);
  bool rocksdb = false;
  for (const auto& [name, bytes] : ta) {
    INFO(name);
    if (drawn_by_rocksdb(name)) {
      rocksdb = true;
      CHECK(bytes.size() == tb.at(name).size());
    } else {
      CHECK(bytes == tb.at(name));
    }
  }
  if (rocksdb) CHECK(run_cli_ok({"dump", a}).out == run_cli_ok({"dump", b}).out);
}

// The dump of each part, concatenated in part order.
std::string dump_in_parts(const std::string& snapshot, int n, std::vector<std::string> extra = {}) {
  std::string all;
  for (int k = 0; k < n; ++k) {
    std::vector<std::string> args = {"dump", snapshot, "--shard", shard(k, n), "-j", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    all += run_cli_ok(args).out;
  }
  return all;
}

void check_dump_parts(const std::string& snapshot, std::initializer_list<int> counts) {
  const std::string whole = run_cli_ok({"dump", snapshot}).out;
  for (int n : counts) {
    INFO(snapshot << " in " << n << " parts");
    CHECK(dump_in_parts(snapshot, n) == whole);
  }
}

// `command` (convert or edit, with its options) run in `n` parts plus --finish, and in one go.
void check_parts_equal_one_go(const std::vector<std::string>& command, const std::string& dir, int n) {
  const std::string one = dir + "/one", parted = dir + "/parted";
  std::vector<std::string> args = command;
  args.insert(args.end(), {"--output", one});
  run_cli_ok(args);
  for (int k = n; k-- > 0;) {  // any order
    args = command;
    args.insert(args.end(), {"--output", parted, "--shard", shard(k, n)});
    run_cli_ok(args);
    CHECK(fs::is_directory(parted + ".part-" + std::to_string(k) + "-of-" + std::to_string(n)));
    CHECK_FALSE(fs::exists(parted));
  }
  args = command;
  args.insert(args.end(), {"--output", parted, "--finish"});
  run_cli_ok(args);
  check_same_tree(one, parted);
  for (int k = 0; k < n; ++k)
    CHECK_FALSE(fs::exists(parted + ".part-" + std::to_string(k) + "-of-" + std::to_string(n)));
  CHECK(run_cli({"verify", "--deep", parted}).status == 0);
  fs::remove_all(one);
  fs::remove_all(parted);
}

struct Generated {
  ckpt::test::ScratchDir dir;
  std::string rocks = dir / "rocks", heap = dir / "heap", canonical = dir / "canonical";
  Generated() {
    for (auto [out, backend] : {std::pair{rocks, "rocksdb"}, {heap, "heap"}, {canonical, "canonical"}})
      run_cli_ok({"generate", "--output", out, "--backend", backend, "--operators", "3", "--parallelism", "4", "--keys",
                  "3000", "--states", "value,list,map", "--hot-key-groups", "3", "--hot-factor", "20"});
  }
};

}  // namespace

TEST_CASE("ckpt plan: every subtask in exactly one part and the parts balanced by bytes", "[cli]") {
  Generated g;
  const nlohmann::json inspect = nlohmann::json::parse(run_cli_ok({"inspect", "--json", g.rocks}).out);
  std::set<std::pair<std::string, int>> subtasks;
  for (const auto& op : inspect["operators"])
    for (const auto& st : op["subtasks"]) subtasks.insert({op["id"].get<std::string>(), st["index"].get<int>()});
  REQUIRE(subtasks.size() == 12);
  for (int n : {1, 2, 3, 5, 7, 12, 13}) {
    INFO(n << " parts");
    const nlohmann::json plan =
        nlohmann::json::parse(run_cli_ok({"plan", g.rocks, "--shards", std::to_string(n), "--json"}).out);
    CHECK(plan["schema"] == "ckpt.plan/1");
    REQUIRE(plan["parts"].size() == static_cast<size_t>(n));
    std::multiset<std::pair<std::string, int>> seen;
    uint64_t total = 0, largest = 0;
    for (const auto& part : plan["parts"]) {
      CHECK(part["shard"] == std::to_string(part["index"].get<int>()) + "/" + std::to_string(n));
      uint64_t sum = 0;
      for (const auto& st : part["subtasks"]) {
        seen.insert({st["operator"].get<std::string>(), st["subtask"].get<int>()});
        sum += st["bytes"].get<uint64_t>();
      }
      CHECK(part["bytes"].get<uint64_t>() == sum);
      CHECK(part["subtask_count"].get<size_t>() == part["subtasks"].size());
      total += sum;
      largest = std::max(largest, sum);
    }
    CHECK(std::set<std::pair<std::string, int>>(seen.begin(), seen.end()) == subtasks);
    CHECK(seen.size() == subtasks.size());
    CHECK(total == plan["bytes"].get<uint64_t>());
    CHECK(total > 0);
    CHECK(largest <= total / n + plan["largest_subtask_bytes"].get<uint64_t>());
  }
  // The table names every part.
  const std::string table = run_cli_ok({"plan", g.rocks, "--shards", "13"}).out;
  CHECK(table.find("12 subtasks") != std::string::npos);
  CHECK(table.find("12/13 ") != std::string::npos);
}

TEST_CASE("dump --shard: the parts concatenated in order are the whole dump", "[cli]") {
  Generated g;
  for (const std::string& s : {g.rocks, g.heap, g.canonical}) check_dump_parts(s, {1, 2, 3, 7, 13});
  // With filters too: the parts of a filtered dump are the filtered dump.
  const std::string whole = run_cli_ok({"dump", g.rocks, "--state", "value-state"}).out;
  CHECK_FALSE(whole.empty());
  CHECK(dump_in_parts(g.rocks, 5, {"--state", "value-state"}) == whole);
}

TEST_CASE("a malformed --shard K/N is refused with exit 2", "[cli]") {
  Generated g;
  for (const char* bad : {"4/4", "1", "-1/4", "1/0", "x/4"}) {
    INFO(bad);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"dump", g.heap, "--shard", bad},
          {"verify", g.heap, "--shard", bad},
          {"convert", g.heap, "--to", "heap", "--output", g.dir / "x", "--shard", bad}}) {
      CliResult r = run_cli(args);
      CHECK(r.status == 2);
      CHECK(r.err.find("expected K/N") != std::string::npos);
    }
  }
  CHECK_FALSE(fs::exists(g.dir / "x"));
  CHECK(run_cli({"convert", g.heap, "--to", "heap", "--output", g.dir / "x", "--shard", "0/2", "--finish"}).status ==
        2);
}

// Every layout to every layout in 3 parts, and the edge counts (one part; more parts than
// subtasks, so some parts are empty) for one pair; the [slow] test below takes the edge counts
// for every pair (minutes under ASan, which skips [slow]).
TEST_CASE("convert in parts and --finish writes what convert in one go writes byte for byte", "[cli]") {
  Generated g;
  for (const std::string& input : {g.rocks, g.heap, g.canonical})
    for (const char* to : {"heap", "canonical", "rocksdb"}) {
      INFO(input << " --to " << to << " in 3 parts");
      check_parts_equal_one_go({"convert", input, "--to", to}, g.dir.path(), 3);
    }
  for (int n : {1, 13}) {
    INFO(g.heap << " --to rocksdb in " << n << " parts");
    check_parts_equal_one_go({"convert", g.heap, "--to", "rocksdb"}, g.dir.path(), n);
  }
}

TEST_CASE("convert in 1 and 13 parts writes what convert in one go writes for every pair of layouts", "[cli][slow]") {
  Generated g;
  for (const std::string& input : {g.rocks, g.heap, g.canonical})
    for (const char* to : {"heap", "canonical", "rocksdb"})
      for (int n : {1, 13}) {
        INFO(input << " --to " << to << " in " << n << " parts");
        check_parts_equal_one_go({"convert", input, "--to", to}, g.dir.path(), n);
      }
}

TEST_CASE("edit in parts and --finish writes what edit in one go writes byte for byte", "[cli]") {
  Generated g;
  const nlohmann::json inspect = nlohmann::json::parse(run_cli_ok({"inspect", "--json", g.heap}).out);
  const std::string first = inspect["operators"][0]["id"], second = inspect["operators"][1]["id"];
  for (const std::vector<std::string>& edit : {std::vector<std::string>{"edit", g.heap, "--drop-operator", first},
                                               {"edit", g.rocks, "--max-parallelism", "256"},
                                               {"edit", g.rocks, "--set-uid", second + "=renamed", "--to", "canonical"},
                                               {"edit", g.canonical, "--drop-state", second + "/map-state"}}) {
    for (int n : {2, 5}) {
      INFO(edit[2] << " " << edit[3] << " in " << n << " parts");
      check_parts_equal_one_go(edit, g.dir.path(), n);
    }
  }
}

// Part k of n of `edit` (writing `out`) run; what its `_part.json` says it found.
static nlohmann::json edit_part_found(std::vector<std::string> edit, const std::string& out, int k, int n) {
  edit.insert(edit.end(), {"--shard", shard(k, n)});
  run_cli_ok(edit);
  return nlohmann::json::parse(ckpt::test::read_file(out + ".part-" + std::to_string(k) + "-of-" + std::to_string(n) +
                                                     "/_part.json"))["found"];
}

TEST_CASE("edit in parts: --finish refuses a --drop-state or --expire state no part has and writes nothing", "[cli]") {
  Generated g;
  const nlohmann::json inspect = nlohmann::json::parse(run_cli_ok({"inspect", "--json", g.heap}).out);
  const std::string second = inspect["operators"][1]["id"];
  const std::string out = g.dir / "out";
  struct Case {
    std::vector<std::string> operation;
    std::string error;
  };
  for (const Case& c : {Case{{"--drop-state", second + "/no-such-state"},
                             "--drop-state: operator " + second + " has no state 'no-such-state'"},
                        Case{{"--expire", "no-such-state=1000", "--now", "0"},
                             "--expire: no operator has a keyed state 'no-such-state'"}}) {
    INFO(c.error);
    std::vector<std::string> edit = {"edit", g.heap, "--output", out};
    edit.insert(edit.end(), c.operation.begin(), c.operation.end());
    // In one go: refused at the end of the run.
    CliResult one = run_cli(edit);
    CHECK(one.status == 2);
    CHECK(one.err.find(c.error) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
    // Each part sees only its subtasks and cannot tell; --finish sees what every part found.
    for (int k = 0; k < 3; ++k) CHECK(edit_part_found(edit, out, k, 3) == nlohmann::json::array());
    std::vector<std::string> finish = edit;
    finish.push_back("--finish");
    CliResult finished = run_cli(finish);
    CHECK(finished.status == 2);
    CHECK(finished.err.find(c.error) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
    for (int k = 0; k < 3; ++k) {
      CHECK(fs::is_directory(out + ".part-" + std::to_string(k) + "-of-3"));
      fs::remove_all(out + ".part-" + std::to_string(k) + "-of-3");
    }
  }
  // A state some parts have and others not: found by the union. Operator `second`'s four
  // subtasks lie in some of the 13 parts only (12 subtasks in all).
  std::vector<std::string> edit = {"edit", g.heap, "--output", out, "--drop-state", second + "/map-state"};
  int without = 0;
  for (int k = 0; k < 13; ++k) {
    const nlohmann::json found = edit_part_found(edit, out, k, 13);
    if (found.empty()) ++without;
    else CHECK(found == nlohmann::json::array({"drop-state " + second + "/map-state"}));
  }
  CHECK(without >= 9);
  edit.push_back("--finish");
  run_cli_ok(edit);
  CHECK(run_cli({"verify", "--deep", out}).status == 0);
  const std::string prefix = "{\"operator\":\"" + second + "\",";
  int kept = 0, dropped = 0;
  std::istringstream lines(run_cli_ok({"dump", out}).out);
  for (std::string line; std::getline(lines, line);) {
    const bool map_state = line.find("\"state\":\"map-state\"") != std::string::npos;
    if (line.rfind(prefix, 0) == 0) dropped += map_state;
    else kept += map_state;
  }
  CHECK(dropped == 0);
  CHECK(kept > 0);  // the other operators' map states stay
}

TEST_CASE("convert --finish refuses missing and damaged parts and writes nothing", "[cli]") {
  Generated g;
  const std::string out = g.dir / "out";
  CliResult none = run_cli({"convert", g.heap, "--to", "rocksdb", "--output", out, "--finish"});
  CHECK(none.status == 2);
  CHECK(none.err.find("no part of") != std::string::npos);
  for (int k : {0, 2}) run_cli_ok({"convert", g.heap, "--to", "rocksdb", "--output", out, "--shard", shard(k, 3)});
  CliResult missing = run_cli({"convert", g.heap, "--to", "rocksdb", "--output", out, "--finish"});
  CHECK(missing.status == 2);
  CHECK(missing.err.find("missing: 1/3") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  run_cli_ok({"convert", g.heap, "--to", "rocksdb", "--output", out, "--shard", "1/3"});
  // A file of part 1 gone (a part directory tampered with after it was published).
  const std::string part = out + ".part-1-of-3";
  std::string victim;
  for (const auto& e : fs::recursive_directory_iterator(part))
    if (e.is_regular_file() && e.path().extension() == ".sst") victim = e.path().string();
  REQUIRE_FALSE(victim.empty());
  fs::remove(victim);
  CliResult damaged = run_cli({"convert", g.heap, "--to", "rocksdb", "--output", out, "--finish"});
  CHECK(damaged.status == 2);
  CHECK(damaged.err.find(part) != std::string::npos);
  CHECK(damaged.err.find("missing") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  for (int k = 0; k < 3; ++k) CHECK(fs::is_directory(out + ".part-" + std::to_string(k) + "-of-3"));
  // Parts of another count beside them: refused, not mixed.
  run_cli_ok({"convert", g.heap, "--to", "rocksdb", "--output", out, "--shard", "0/2"});
  CliResult mixed = run_cli({"convert", g.heap, "--to", "rocksdb", "--output", out, "--finish"});
  CHECK(mixed.status == 2);
  CHECK(mixed.err.find("different numbers (2, 3)") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  // Parts of another command line (another target): the files differ, --finish notices.
  fs::remove_all(out + ".part-0-of-2");
  for (int k = 0; k < 3; ++k) fs::remove_all(out + ".part-" + std::to_string(k) + "-of-3");
  for (int k = 0; k < 2; ++k) run_cli_ok({"convert", g.heap, "--to", "heap", "--output", out, "--shard", shard(k, 2)});
  CliResult foreign = run_cli({"convert", g.heap, "--to", "rocksdb", "--output", out, "--finish"});
  CHECK(foreign.status == 2);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("verify --deep --shard finds a damaged file in the part that owns it only", "[cli]") {
  Generated g;
  const int n = 3;
  const nlohmann::json plan = nlohmann::json::parse(run_cli_ok({"plan", g.rocks, "--shards", "3", "--json"}).out);
  for (int k = 0; k < n; ++k) CHECK(run_cli({"verify", "--deep", g.rocks, "--shard", shard(k, n)}).status == 0);
  // Damage an SST of the last subtask of part 1 (the generator writes the instance of subtask
  // S of operator O as rocksdb-O-S/, as convert does): a block checksum only --deep reads.
  const auto& owned = plan["parts"][1]["subtasks"].back();
  const std::string instance =
      g.rocks + "/rocksdb-" + owned["operator"].get<std::string>() + "-" + std::to_string(owned["subtask"].get<int>());
  std::string victim;
  for (const auto& e : fs::directory_iterator(instance))
    if (e.path().extension() == ".sst") victim = e.path().string();
  REQUIRE_FALSE(victim.empty());
  std::string bytes = ckpt::test::read_file(victim);
  REQUIRE(bytes.size() > 100);
  bytes[bytes.size() / 3] ^= 0x5a;
  bytes[bytes.size() / 3 + 1] ^= 0x77;
  ckpt::test::write_file(victim, bytes);
  CHECK(run_cli({"verify", "--deep", g.rocks}).status == 1);
  for (int k = 0; k < n; ++k) {
    INFO("part " << k);
    CliResult r = run_cli({"verify", "--deep", g.rocks, "--shard", shard(k, n)});
    CHECK(r.status == (k == 1 ? 1 : 0));
    CHECK((r.out.find("checksum-mismatch") != std::string::npos) == (k == 1));
  }
  // A file cut short: the quick checks of the owning part find it, without --deep.
  const std::string meta = instance + ".meta";
  ckpt::test::write_file(meta, ckpt::test::read_file(meta).substr(1));
  for (int k = 0; k < n; ++k) CHECK(run_cli({"verify", g.rocks, "--shard", shard(k, n)}).status == (k == 1 ? 1 : 0));
}

TEST_CASE("restore --shard: the parts' instances are those of one restore", "[cli]") {
  Generated g;
  auto instances = [](const CliResult& r) {
    std::multiset<std::pair<std::string, int>> out;
    if (r.out.empty()) return out;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    for (const auto& i : doc["instances"]) out.insert({i["operator"].get<std::string>(), i["subtask"].get<int>()});
    return out;
  };
  for (const std::string& s : {g.rocks, g.heap}) {
    const auto whole = instances(run_cli_ok({"restore", s, "--json", "--output", g.dir / "whole"}));
    REQUIRE(whole.size() == 12);
    for (int n : {2, 5, 13}) {
      std::multiset<std::pair<std::string, int>> parts;
      for (int k = 0; k < n; ++k) {
        const std::string out = g.dir / ("part-" + std::to_string(k));
        const auto got = instances(run_cli_ok({"restore", s, "--json", "--output", out, "--shard", shard(k, n)}));
        parts.insert(got.begin(), got.end());
        // Each instance as one restore wrote it: the same keys.
        for (const auto& [op, subtask] : got) {
          const std::string dir = "/" + op + "/subtask-" + std::to_string(subtask);
          CHECK(fs::is_directory(out + dir));
        }
        fs::remove_all(out);
      }
      CHECK(parts == whole);
    }
    fs::remove_all(g.dir / "whole");
  }
}

TEST_CASE("Flink's snapshots: dump in parts is the dump and convert in parts is convert", "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  ckpt::test::ScratchDir scratch(ckpt::test::memory_temp_dir());
  std::vector<std::string> snapshots = ckpt::test::corpus_snapshots();
  const std::vector<std::string> sql = ckpt::test::sql_corpus_snapshots();
  for (size_t i = 0; i < sql.size(); i += 10) snapshots.push_back(sql[i]);
  size_t dumped = 0, converted = 0;
  for (size_t i = 0; i < snapshots.size(); ++i) {
    const std::string& s = snapshots[i];
    INFO(s);
    CliResult whole = run_cli({"dump", s});
    if (whole.status != 0) continue;  // a snapshot dump cannot read whole is no test of parts
    for (int n : {2, 3, 7}) CHECK(dump_in_parts(s, n) == whole.out);
    ++dumped;
    if (i % 4 != 0) continue;
    const std::string one = scratch / "one";
    if (run_cli({"convert", s, "--to", "canonical", "--output", one}).status != 0) continue;
    fs::remove_all(one);
    check_parts_equal_one_go({"convert", s, "--to", i % 8 == 0 ? "rocksdb" : "canonical"}, scratch.path(), 3);
    ++converted;
  }
  CHECK(dumped > 80);
  CHECK(converted > 15);
}
