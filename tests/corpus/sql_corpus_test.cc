// The savepoints Flink's SQL planner tests wrote (../shared/testdata/flink-sql): the table
// runtime's state decoded without a hex value, agreeing with flink-sql-expected, and carried
// through verify --deep, convert and diff --keys.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "ckpt/convert.h"
#include "ckpt/diff.h"
#include "ckpt/verify.h"
#include "testlib/dump_lines.h"
#include "testlib/dump_values.h"
#include "testlib/test_support.h"

using namespace ckpt;
using nlohmann::json;
using test::is_opaque;
namespace fs = std::filesystem;

namespace {

// Values whose bytes no serializer of Flink's (or the JDK's) wrote, by "<test>|<state>", with
// the reason ckpt gives. These jobs keep no user class or Kryo value in state: none.
const std::map<std::string, std::string> kUserCodeValues = {};

std::vector<json> dump_json(const std::string& dir) {
  std::vector<json> out;
  for (const std::string& line : test::dump_lines(dir)) out.push_back(json::parse(line));
  return out;
}

// "<family>/<test>" of ".../flink-sql/<family>/<test>/savepoint" (with "/<version>" where a
// test keeps an older savepoint too): where flink-sql-expected mirrors it.
std::string test_name(const std::string& dir) {
  return fs::path(dir).parent_path().lexically_relative(test::sql_corpus_dir()).generic_string();
}

void collect_opaque(const json& v, std::vector<std::string>& whys) {
  if (is_opaque(v)) {
    whys.push_back(v["why"].get<std::string>());
  } else if (v.is_structured()) {
    for (const auto& c : v) collect_opaque(c, whys);
  }
}

// The reference adds the stored bytes of each top-level row ("binary_row", for reference only).
json without_binary_row(json v) {
  if (v.is_object()) {
    v.erase("binary_row");
    for (auto& [k, c] : v.items()) c = without_binary_row(c);
  } else if (v.is_array()) {
    for (auto& c : v) c = without_binary_row(c);
  }
  return v;
}

std::string identity_without_binary_row(json e) {
  e.erase("value");
  e.erase("mode");
  if (e.value("kind", "") == "timer") e["kind"] = "keyed";
  return without_binary_row(std::move(e)).dump();
}

bool is_named_structure(const json& v) {
  return v.is_object() && v.size() == 2 && v.contains("class") && v.contains("fields") && v["fields"].is_object();
}

// ckpt names a STRUCTURED_TYPE's attributes ({"class", "fields": {name: value}}, as a POJO);
// the reference prints the row that stores them ({"kind", "fields": [values]}). The attribute
// order is in the logical type, not in a JSON object, so the attribute values are matched as
// a multiset. Everything else must be equal.
bool same_value(const json& mine, const json& ref) {
  if (is_named_structure(mine) && ref.is_object() && ref.contains("fields") && ref["fields"].is_array()) {
    if (ref.value("kind", "") != "+I" || mine["fields"].size() != ref["fields"].size()) return false;
    std::vector<bool> used(ref["fields"].size(), false);
    for (const auto& [name, m] : mine["fields"].items()) {
      bool found = false;
      for (size_t i = 0; i < used.size() && !found; ++i)
        if (!used[i] && same_value(m, ref["fields"][i])) used[i] = found = true;
      if (!found) return false;
    }
    return true;
  }
  if (mine.is_object() && ref.is_object()) {
    if (mine.size() != ref.size()) return false;
    for (const auto& [k, r] : ref.items())
      if (!mine.contains(k) || !same_value(mine[k], r)) return false;
    return true;
  }
  if (mine.is_array() && ref.is_array()) {
    if (mine.size() != ref.size()) return false;
    for (size_t i = 0; i < ref.size(); ++i)
      if (!same_value(mine[i], ref[i])) return false;
    return true;
  }
  return mine == ref;
}

size_t count_named(const json& v) {
  size_t n = is_named_structure(v) ? 1 : 0;
  if (v.is_structured())
    for (const auto& c : v) n += count_named(c);
  return n;
}

std::multiset<std::string> lines_of(const std::string& dir) {
  std::multiset<std::string> out;
  for (const json& e : dump_json(dir)) out.insert(e.dump());
  return out;
}

}  // namespace

TEST_CASE("every flink-sql savepoint dumps with every value decoded", "[ops][corpus][sql]") {
  // All 95 dump without an error, and no value is left as hex where one
  // of Flink's serializers wrote it (RowData of every field type, ExternalSerializer, RAW,
  // ArrayData, MapData, SortedMap, timers, stream records): hex stays only for user code,
  // each listed in kUserCodeValues with its reason.
  CKPT_REQUIRE_SHARED();
  auto dirs = test::sql_corpus_snapshots();
  REQUIRE(dirs.size() == 95);
  size_t entries = 0, opaque = 0;
  for (const std::string& dir : dirs) {
    INFO(dir);
    for (const json& e : dump_json(dir)) {
      ++entries;
      std::vector<std::string> whys;
      for (const char* part : {"key", "namespace", "user_key", "value"})
        if (e.contains(part)) collect_opaque(e[part], whys);
      for (const auto& why : whys) {
        INFO(e.dump());
        auto listed = kUserCodeValues.find(test_name(dir) + "|" + e["state"].get<std::string>());
        REQUIRE(listed != kUserCodeValues.end());
        CHECK(listed->second == why);
        ++opaque;
      }
    }
  }
  CHECK(entries == 1228);
  CHECK(opaque == 0);
}

TEST_CASE("flink-sql dumps agree with the independent decoding in flink-sql-expected", "[ops][corpus][sql]") {
  // The same entries (operator, subtask, state, key group, key, namespace, user key) with the
  // same values, binary_row left aside. Structured types are the one difference of shape (see
  // same_value()): the accumulators of the aggregate-function tests, 26 values in 5 savepoints.
  CKPT_REQUIRE_SHARED();
  size_t compared = 0, named = 0;
  for (const std::string& dir : test::sql_corpus_snapshots()) {
    INFO(dir);
    std::map<std::string, std::vector<json>> mine, expected;
    for (json& e : dump_json(dir)) {
      std::string id = identity_without_binary_row(e);
      mine[id].push_back(std::move(e["value"]));
    }
    std::ifstream in(test::sql_expected_dir() + "/" + test_name(dir) + "/savepoint.ndjson");
    REQUIRE(in);
    for (std::string line; std::getline(in, line);) {
      json e = json::parse(line);
      std::string id = identity_without_binary_row(e);
      expected[id].push_back(without_binary_row(std::move(e["value"])));
    }
    REQUIRE(mine.size() == expected.size());
    for (const auto& [id, values] : expected) {
      INFO(id);
      auto it = mine.find(id);
      REQUIRE(it != mine.end());
      // Operator list states repeat an identity per element, which the reference collapses.
      for (const json& want : values) {
        INFO(want.dump());
        bool found = false;
        for (const json& got : it->second) found = found || same_value(got, want);
        CHECK(found);
        ++compared;
      }
      for (const json& got : it->second) named += count_named(got);
    }
  }
  CHECK(compared == 1218);  // every line of the reference
  CHECK(named == 26);
}

TEST_CASE("flink-sql savepoints pass verify --deep with every stream decoded", "[ops][corpus][sql]") {
  // Nothing is a problem and nothing is left unchecked: every value's serializer is understood.
  CKPT_REQUIRE_SHARED();
  for (const std::string& dir : test::sql_corpus_snapshots()) {
    INFO(dir);
    VerifyOptions options;
    options.deep = true;
    auto r = verify_snapshot(dir, options);
    REQUIRE(r.ok());
    CHECK(r->clean());
    CHECK(r->unchecked.empty());
  }
}

TEST_CASE("flink-sql savepoints convert to every layout and dump to the same entries", "[ops][corpus][sql]") {
  // RocksDB native, heap native and canonical: the converted savepoint dumps line for line to
  // what the original dumps to.
  CKPT_REQUIRE_SHARED();
  for (const std::string& dir : test::sql_corpus_snapshots()) {
    INFO(dir);
    auto original = lines_of(dir);
    for (ConvertTarget to : {ConvertTarget::kRocksDb, ConvertTarget::kHeap, ConvertTarget::kCanonical}) {
      INFO(convert_target_name(to));
      test::ScratchDir scratch;
      ConvertOptions options;
      options.to = to;
      options.output = scratch / "out";
      auto r = convert_snapshot(dir, options);
      REQUIRE(r.ok());
      CHECK(lines_of(options.output) == original);
    }
  }
}

TEST_CASE("diff --keys finds every flink-sql savepoint equal to itself", "[ops][corpus][sql]") {
  // Every keyed entry decodes on both sides and compares equal; no structural difference.
  CKPT_REQUIRE_SHARED();
  size_t with_keys = 0;
  for (const std::string& dir : test::sql_corpus_snapshots()) {
    INFO(dir);
    DiffOptions options;
    options.keys = true;
    auto r = diff_snapshots(dir, dir, options, nullptr);
    REQUIRE(r.ok());
    CHECK(r->structure.empty());
    CHECK_FALSE(r->keys_differ());
    uint64_t same = 0;
    for (const KeyDiffCounts& k : r->keys) same += k.same;
    if (same > 0) ++with_keys;
  }
  CHECK(with_keys > 60);
}
