// The Flink 1.3 and 1.5 savepoints of ../shared/testdata/flink-old (their README says what each
// job wrote): every one dumps with its keyed entries, heap and RocksDB twins dump the same, and
// the values are what Flink's test jobs put there.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testlib/dump_lines.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string old_dir() { return ckpt::test::shared_dir() + "/testdata/flink-old"; }

std::vector<json> entries(const std::string& name) {
  std::vector<json> out;
  for (const auto& line : ckpt::test::dump_lines(old_dir() + "/" + name)) out.push_back(json::parse(line));
  return out;
}

std::vector<json> of_state(const std::vector<json>& all, const std::string& state) {
  std::vector<json> out;
  for (const auto& e : all)
    if (e["state"] == state) out.push_back(e);
  return out;
}

// The fields dump prints, sorted; a processing-time timer's timestamp is the wall clock of the
// run that wrote it: the twins, written by two runs, agree on everything else.
std::vector<std::string> comparable(const std::vector<json>& all) {
  std::vector<std::string> out;
  for (const auto& e : all) {
    json kept;
    for (const char* field :
         {"operator", "subtask", "state", "kind", "key_group", "key", "namespace", "user_key", "value"})
      if (e.contains(field)) kept[field] = e[field];
    if (e["state"].get<std::string>().starts_with("_timer_state/processing_")) kept.erase("value");
    out.push_back(kept.dump());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("Flink 1.3 and 1.5 savepoints dump their keyed entries and heap and RocksDB twins agree", "[state][corpus]") {
  CKPT_REQUIRE_SHARED();
  if (!fs::exists(old_dir())) CKPT_SKIP("no " << old_dir());
  const std::vector<std::pair<std::string, std::string>> twins = {
      {"stateful-udf-migration-itcase-flink1.3-savepoint", "stateful-udf-migration-itcase-flink1.3-rocksdb-savepoint"},
      {"stateful-scala2.10-udf-migration-itcase-flink1.3-jobmanager-savepoint",
       "stateful-scala2.10-udf-migration-itcase-flink1.3-rocksdb-savepoint"},
      {"new-stateful-broadcast-udf-migration-itcase-flink1.5-savepoint",
       "new-stateful-broadcast-udf-migration-itcase-flink1.5-rocksdb-savepoint"},
      {"stateful-scala-with-broadcast2.11-udf-migration-itcase-flink1.5-jobmanager-savepoint",
       "stateful-scala-with-broadcast2.11-udf-migration-itcase-flink1.5-rocksdb-savepoint"},
  };
  for (const auto& [heap, rocks] : twins) {
    INFO(heap);
    auto h = entries(heap);
    CHECK(!h.empty());
    CHECK(comparable(h) == comparable(entries(rocks)));
  }
}

TEST_CASE("Flink 1.3 keyed state of Tuple keys reads as the test jobs wrote it", "[state][corpus]") {
  CKPT_REQUIRE_SHARED();
  if (!fs::exists(old_dir())) CKPT_SKIP("no " << old_dir());
  // KeyedJob: keyBy(0) over (x, x) for x in 0..9, a ListState "values" of x; count windows of
  // one purge their contents; the maps' operator state is "first<i>" / "second<i>".
  auto complex = entries("complexKeyed-flink1.3");
  auto values = of_state(complex, "values");
  std::set<int> keys;
  for (const auto& e : values) {
    CHECK(e["key"].size() == 1);
    CHECK(e["value"] == json::array({e["key"][0]}));
    keys.insert(e["key"][0].get<int>());
  }
  CHECK(keys == std::set<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  std::set<std::string> names;
  for (const auto& e : of_state(complex, "_default_")) names.insert(e["value"].get<std::string>());
  CHECK(names ==
        std::set<std::string>{"first0", "first1", "first2", "first3", "second0", "second1", "second2", "second3"});
  // StatefulJobSavepointMigrationITCase: Tuple1<Long> keys, a VALUE state of the key's Long in
  // four operators; the timely one keeps event- and processing-time timers, in raw keyed state
  // of the pre-versioned form with Java-serialized serializers.
  auto udf = entries("stateful-udf-migration-itcase-flink1.3-savepoint");
  auto state = of_state(udf, "state-name");
  CHECK(state.size() == 16);
  for (const auto& e : state) CHECK(e["value"] == e["key"][0]);
  auto timers = of_state(udf, "_timer_state/event_timer");
  CHECK(timers.size() == 4);
  for (const auto& t : timers) CHECK(t["namespace"] == t["key"][0]);
}

TEST_CASE("Scala API state of Flink 1.3 and 1.5 reads field by field without the job's classes", "[state][corpus]") {
  CKPT_REQUIRE_SHARED();
  if (!fs::exists(old_dir())) CKPT_SKIP("no " << old_dir());
  for (const char* name : {"stateful-scala2.10-udf-migration-itcase-flink1.3-jobmanager-savepoint",
                           "stateful-scala-with-broadcast2.11-udf-migration-itcase-flink1.5-jobmanager-savepoint"}) {
    INFO(name);
    auto all = entries(name);
    // StatefulFlatMapper over (k, k), k in 0..3, keyed by a Long through Kryo (the key type is
    // generic): CustomCaseClass(k.toString, 2k) alone, nested, in a List, Option and Left; Try of
    // (k.toString, 5k); Failure(RuntimeException); Right((3k).toString); enumOneState set to
    // ONE, then THREE; enumThreeState never set.
    auto cases = of_state(all, "caseClassState");
    CHECK(cases.size() == 4);
    for (const auto& e : cases) {
      int64_t k = e["key"].get<int64_t>();
      json pair = json::array({std::to_string(k), 2 * k});
      CHECK(e["value"] == pair);
      INFO(k);
      auto same_key = [&](const std::string& state) {
        for (const auto& o : of_state(all, state))
          if (o["key"] == k) return o["value"];
        return json("missing");
      };
      CHECK(same_key("caseClassWithNestingState") == json::array({k, pair}));
      CHECK(same_key("collectionState") == json::array({pair}));
      CHECK(same_key("optionState") == pair);
      CHECK(same_key("optionNoneState").is_null());
      CHECK(same_key("eitherLeftState") == json{{"left", pair}});
      CHECK(same_key("eitherRightState") == json{{"right", std::to_string(3 * k)}});
      CHECK(same_key("tryState") == json{{"success", json::array({std::to_string(k), 5 * k})}});
      CHECK(same_key("tryFailureState")["failure"]["class"] == "java.lang.RuntimeException");
      CHECK(same_key("enumOneState") == "THREE");
    }
    CHECK(of_state(all, "enumThreeState").empty());
    auto source = of_state(all, "sourceState");
    CHECK(!source.empty());
    for (const auto& e : source) CHECK(e["value"] == json::array({"Here be dragons!", 123}));
  }
}

TEST_CASE("a Flink 1.5 savepoint holds what the same job wrote with Flink 1.10", "[state][corpus]") {
  CKPT_REQUIRE_SHARED();
  if (!fs::exists(old_dir())) CKPT_SKIP("no " << old_dir());
  const std::string later =
      ckpt::test::expected_dir() + "/new-stateful-broadcast-udf-migration-itcase-flink1.10-savepoint.ndjson";
  if (!fs::exists(later)) CKPT_SKIP("no " << later);
  auto old = entries("new-stateful-broadcast-udf-migration-itcase-flink1.5-savepoint");
  std::vector<json> newer;
  std::ifstream in(later);
  for (std::string line; std::getline(in, line);) newer.push_back(json::parse(line));
  // The job's broadcast-state-2 values and broadcast-state-3 keys changed from String to Long
  // between the two versions; the rest is the same data.
  for (const char* state : {"broadcast-state-1", "source-state"}) {
    INFO(state);
    auto a = comparable(of_state(old, state));
    CHECK(!a.empty());
    CHECK(a == comparable(of_state(newer, state)));
  }
}
