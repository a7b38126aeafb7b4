// dump --key: a point lookup gives exactly the entries of that key that the full dump has, in
// the same order, on Flink's own snapshots; and it reads only the key's key group.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckpt/dump.h"
#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "testlib/cli_run.h"
#include "testlib/damaged_key_group.h"
#include "testlib/test_support.h"
#include "testlib/dump_lines.h"

using namespace ckpt;

namespace {

struct KeyDumpLines : DumpSink {
  std::vector<std::string> lines;
  std::vector<std::string> problems;
  bool wants_ndjson() const override { return true; }
  void entry(const Entry& e) override { lines.push_back(to_ndjson(e)); }
  void ndjson(std::string_view text) override {
    size_t at = 0;
    while (at < text.size()) {
      size_t nl = text.find('\n', at);
      lines.emplace_back(text.substr(at, nl - at));
      at = nl + 1;
    }
  }
  void problem(const Error& e) override { problems.push_back(e.to_string()); }
};

Result<DumpSummary> dump_keys(const std::string& dir, const std::vector<std::string>& keys, KeyDumpLines& out) {
  DumpOptions options;
  options.keys = test::keys_of(keys);
  options.jobs = 2;
  return dump_snapshot(dir, options, out);
}

// The key of a keyed or timer line, as the compact JSON text dump printed; "" for other lines.
std::string key_of(const std::string& line) {
  nlohmann::json j = nlohmann::json::parse(line);
  if (j["kind"] != "keyed" && j["kind"] != "timer") return "";
  if (!j.contains("key")) return "";
  return j["key"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Up to three distinct keys of the dump: its first, middle and last keyed entries'.
std::vector<std::string> sample_keys(const std::vector<std::string>& lines) {
  std::vector<std::string> keys;
  for (const std::string& line : lines) {
    std::string k = key_of(line);
    if (!k.empty() && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  if (keys.size() <= 3) return keys;
  return {keys.front(), keys[keys.size() / 2], keys.back()};
}

// Checks one snapshot; false if it has no keyed entry to look up.
bool check_lookups(const std::string& dir) {
  KeyDumpLines all;
  auto whole = dump_keys(dir, {}, all);
  if (!whole.ok()) return false;  // dump's own tests cover what does not dump
  std::vector<std::string> keys = sample_keys(all.lines);
  if (keys.empty()) return false;
  for (const std::string& key : keys) {
    INFO(dir << " key " << key);
    std::vector<std::string> expected;
    for (const std::string& line : all.lines)
      if (key_of(line) == key) expected.push_back(line);
    KeyDumpLines one;
    auto found = dump_keys(dir, {key}, one);
    REQUIRE(found.ok());
    CHECK(found->unmatched_keys.empty());
    CHECK(one.lines == expected);
  }
  // Several keys at once: the union, in dump order.
  std::vector<std::string> expected;
  for (const std::string& line : all.lines)
    if (std::find(keys.begin(), keys.end(), key_of(line)) != keys.end()) expected.push_back(line);
  KeyDumpLines many;
  std::vector<std::string> asked = keys;
  asked.push_back("\"ckpt-no-such-key\"");
  auto found = dump_keys(dir, asked, many);
  REQUIRE(found.ok());
  CHECK(many.lines == expected);
  CHECK(found->unmatched_keys == std::vector<Value>{Value::string("ckpt-no-such-key")});
  return true;
}

}  // namespace

TEST_CASE("dump --key on every flink corpus snapshot gives the full dump's entries of that key", "[corpus][ops]") {
  CKPT_REQUIRE_SHARED();
  size_t checked = 0;
  for (const std::string& dir : test::corpus_snapshots()) checked += check_lookups(dir);
  // Every keyed snapshot of the corpus that dumps (57 of 107: heap, RocksDB, canonical and native
  // savepoints, Flink 1.8-1.20); the others hold operator state only.
  CHECK(checked >= 55);
}

TEST_CASE("dump --key on every flink-sql savepoint gives the full dump's entries of that key", "[corpus][ops]") {
  // RowData keys: the key group comes from the row's hashCode (BinaryRowData hashes its bytes).
  CKPT_REQUIRE_SHARED();
  size_t checked = 0;
  for (const std::string& dir : test::sql_corpus_snapshots()) checked += check_lookups(dir);
  CHECK(checked >= 40);
}

TEST_CASE("dump --key reads only the key group Flink assigns the key", "[ops]") {
  // A heap savepoint whose key group 5 of subtask 0 is overwritten: a full dump fails there, a
  // lookup of a key of another key group never reads those bytes and succeeds.
  test::ScratchDir tmp;
  const std::string sp = tmp / "sp";
  test::write_heap_savepoint_of_16_key_groups(sp);

  KeyDumpLines all;
  REQUIRE(dump_keys(sp, {}, all).ok());
  std::string elsewhere, inside;  // a key outside key group 5, one inside
  for (const std::string& line : all.lines) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["key_group"] == 5 && inside.empty()) inside = j["key"].dump();
    if (j["key_group"] == 9 && elsewhere.empty()) elsewhere = j["key"].dump();
  }
  REQUIRE(!inside.empty());
  REQUIRE(!elsewhere.empty());
  KeyDumpLines before;
  REQUIRE(dump_keys(sp, {elsewhere}, before).ok());
  REQUIRE(!before.lines.empty());

  test::overwrite_key_group(sp, 5);

  KeyDumpLines broken;
  CHECK(!dump_keys(sp, {}, broken).ok());
  CHECK(!dump_keys(sp, {inside}, broken).ok());
  KeyDumpLines after;
  auto found = dump_keys(sp, {elsewhere}, after);
  REQUIRE(found.ok());
  CHECK(after.lines == before.lines);
}

TEST_CASE("ckpt dump --key: an unmatched key is a warning and exit 1 and a key that is not JSON is a usage error",
          "[cli]") {
  const std::string sample = test::source_dir() + "/testdata/sample-savepoint";
  auto all = test::run_cli_ok({"dump", sample});
  std::string key;
  for (size_t at = 0; at < all.out.size() && key.empty();) {
    size_t nl = all.out.find('\n', at);
    key = key_of(all.out.substr(at, nl - at));
    at = nl + 1;
  }
  REQUIRE(!key.empty());
  auto hit = test::run_cli({"dump", sample, "--key", key});
  CHECK(hit.status == 0);
  CHECK(hit.out.find("\"key\":" + key) != std::string::npos);
  auto miss = test::run_cli({"dump", sample, "--key", key, "--key", "\"ckpt-no-such-key\""});
  CHECK(miss.status == 1);
  CHECK(miss.out == hit.out);
  CHECK(miss.err.find("no entry has key \"ckpt-no-such-key\"") != std::string::npos);
  auto bad = test::run_cli({"dump", sample, "--key", "not json"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("is not JSON") != std::string::npos);
}
