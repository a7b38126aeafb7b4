// ckpt edit --upsert, --delete-where and --keep-where on Flink's own snapshots (a heap and a
// RocksDB savepoint of the udf job, a SQL group-aggregate savepoint): an upsert of two keys
// changed and one new is exactly what diff --keys shows and the output verifies --deep; a
// predicate drops exactly the entries it matches; bad lines and predicates write nothing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/diff.h"
#include "ckpt/edit.h"
#include "ckpt/verify.h"
#include "testlib/dump_lines.h"
#include "testlib/edit_checks.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

constexpr const char* kUdfOperator = "d5c8b168c6cbfe8c507a10f88b325243";
constexpr const char* kSqlOperator = "23eaad2bb152dd975bbc63554c2ca61f";

std::string udf_snapshot(const char* layout) {
  return test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-" + layout;
}
std::string sql_snapshot() {
  return test::sql_corpus_dir() + "/stream-exec-group-aggregate_1/group-aggregate-simple/savepoint";
}

// A value-state line of the udf job (Tuple1<Long> keys, Long values).
std::string udf_line(int key, int value) {
  return fmt::format(R"({{"operator":"{}","state":"state-name","kind":"keyed","key":[{}],"namespace":"VoidNamespace","value":{}}})",
                     kUdfOperator, key, value);
}
// An accState line of the SQL job (a row key, the aggregate's accumulator row).
std::string sql_line(int key, int count, const char* text) {
  return fmt::format(
      R"({{"operator":"{}","state":"accState","kind":"keyed","key":{{"fields":[{}],"kind":"+I"}},"namespace":"VoidNamespace","value":{{"fields":[{},{},1,"{}"],"kind":"+I"}}}})",
      kSqlOperator, key, key, count, text);
}

struct Case {
  std::string snapshot;
  std::string op, state;
  std::string lines;
};

Result<EditSummary> upsert(const std::string& snapshot, const std::string& lines, const std::string& output) {
  std::istringstream in(lines);
  EditOptions o;
  o.output = output;
  o.upsert = &in;
  o.upsert_name = "upsert.ndjson";
  return edit_snapshot(snapshot, o);
}

}  // namespace

TEST_CASE("edit --upsert of two changed keys and a new one is exactly what diff --keys shows", "[ops][corpus][sql]") {
  // Heap, RocksDB native and a SQL savepoint: the counts say 2 upserted and 1 added, diff --keys
  // shows 2 changed and 1 added in that state and nothing else, the output verifies --deep.
  CKPT_REQUIRE_SHARED();
  const std::vector<Case> cases = {
      {udf_snapshot("hashmap-savepoint"), kUdfOperator, "state-name",
       udf_line(3, 300) + "\n" + udf_line(1, 100) + "\n" + udf_line(7, 7) + "\n"},
      {udf_snapshot("rocksdb-savepoint-native"), kUdfOperator, "state-name",
       udf_line(3, 300) + "\n\n" + udf_line(1, 100) + "\r\n" + udf_line(7, 7) + "\n"},
      {sql_snapshot(), kSqlOperator, "accState",
       sql_line(2, 9, "Hello") + "\n" + sql_line(1, 5, "Hi") + "\n" + sql_line(3, 1, "Hey") + "\n"},
  };
  for (const Case& c : cases) {
    INFO(c.snapshot);
    test::ScratchDir tmp;
    auto r = upsert(c.snapshot, c.lines, tmp / "out");
    if (!r.ok()) FAIL(r.error().to_string());
    REQUIRE(r->entry_edits.size() == 1);
    CHECK(r->entry_edits[0].operator_id == c.op);
    CHECK(r->entry_edits[0].state == c.state);
    CHECK(r->entry_edits[0].upserted == 2);
    CHECK(r->entry_edits[0].added == 1);
    CHECK(r->entry_edits[0].deleted == 0);
    DiffOptions d;
    d.keys = true;
    auto diff = diff_snapshots(c.snapshot, tmp / "out", d, nullptr);
    REQUIRE(diff.ok());
    CHECK(diff->structure.empty());
    for (const KeyDiffCounts& k : diff->keys) {
      INFO(k.operator_id << " " << k.state);
      if (k.operator_id == c.op && k.state == c.state) {
        CHECK(k.changed == 2);
        CHECK(k.added == 1);
        CHECK(k.removed == 0);
      } else {
        CHECK_FALSE(k.differs());
      }
    }
    VerifyOptions v;
    v.deep = true;
    auto verified = verify_snapshot(tmp / "out", v);
    REQUIRE(verified.ok());
    CHECK(verified->problems.empty());
    // Upserted again with the values it now has: nothing would change.
    std::istringstream lines(c.lines);
    EditOptions o;
    o.dry_run = true;
    o.upsert = &lines;
    o.upsert_name = "upsert.ndjson";
    auto again = edit_snapshot(tmp / "out", o);
    REQUIRE(again.ok());
    REQUIRE(again->entry_edits.size() == 1);
    CHECK(again->entry_edits[0].unchanged == 3);
    CHECK(again->entry_edits[0].upserted + again->entry_edits[0].added == 0);
  }
}

TEST_CASE("edit --delete-where and --keep-where drop exactly the entries their predicate matches", "[ops][corpus][sql]") {
  // The dump of the output is the input's less the entries the predicate picks (counted from
  // the dump), diff --keys shows only those states, and the output verifies --deep.
  CKPT_REQUIRE_SHARED();
  for (const char* layout : {"hashmap-savepoint", "rocksdb-savepoint-native"}) {
    const std::string in = udf_snapshot(layout);
    INFO(in);
    test::ScratchDir tmp;
    EditOptions o;
    o.output = tmp / "out";
    // Timers and the windowed operators' state (numeric namespaces) are left alone.
    o.delete_where = {{"state-name", "value >= 2 AND namespace = 'VoidNamespace'"}};
    auto r = edit_snapshot(in, o);
    if (!r.ok()) FAIL(r.error().to_string());
    test::ExpectedEdit e;
    e.removed = [](const Entry& d) {
      return d.state == "state-name" && d.ns && d.ns->as_string() == "VoidNamespace" && d.value.as_int() >= 2;
    };
    uint64_t deleted = 0;
    for (const EditSummary::EntryEdits& n : r->entry_edits) {
      e.changed_states.insert({n.operator_id, n.state});
      deleted += n.deleted;
    }
    size_t removed = 0;
    test::check_edit(in, o.output, e, &removed);
    CHECK(removed == 4);
    CHECK(deleted == removed);
  }
  const std::string sql = sql_snapshot();
  test::ScratchDir tmp;
  EditOptions o;
  o.output = tmp / "out";
  o.keep_where = {{"accState", "f3 = 'Hi' OR json_extract(key, '$.fields[0]') = 2"}};
  auto r = edit_snapshot(sql, o);
  if (!r.ok()) FAIL(r.error().to_string());
  CHECK(r->entry_edits.empty());  // both of its entries match: no state changed
  o.keep_where = {{"accState", "f3 = 'Hi'"}};
  o.output = tmp / "out2";
  r = edit_snapshot(sql, o);
  if (!r.ok()) FAIL(r.error().to_string());
  test::ExpectedEdit e;
  e.removed = [](const Entry& d) { return d.state == "accState" && d.value.json().find("\"Hi\"") == std::string::npos; };
  e.changed_states.insert({kSqlOperator, "accState"});
  size_t removed = 0;
  test::check_edit(sql, o.output, e, &removed);
  CHECK(removed == 1);
}

TEST_CASE("edit --upsert and --delete-where refuse bad lines and predicates naming them and write nothing",
          "[ops][corpus][sql]") {
  // Each message names the input and line, the member and what was expected (or the predicate
  // and the state's columns); the output directory never appears.
  CKPT_REQUIRE_SHARED();
  const std::string sql = sql_snapshot();
  const std::string good = sql_line(2, 9, "Hello") + "\n";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {good + "not json\n", "upsert.ndjson:2: expected a JSON object"},
      {R"({"operator":"23eaad2bb152dd975bbc63554c2ca61f","state":"accState","kind":"keyed","key":{"fields":[2],"kind":"+I"},"namespace":"VoidNamespace","value":{"fields":["x",9,3,"Hello"],"kind":"+I"}})",
       "upsert.ndjson:1: value.fields[0]: expected a 64-bit integer"},
      {R"({"operator":"23eaad2bb152dd975bbc63554c2ca61f","state":"accState","kind":"keyed","key":{"fields":[2,3],"kind":"+I"},"namespace":"VoidNamespace","value":{"fields":[2,9,3,"Hello"],"kind":"+I"}})",
       "upsert.ndjson:1: key.fields: expected an array of 1 fields"},
      {good + R"({"operator":"23eaad2bb152dd975bbc63554c2ca61f","state":"nope","kind":"keyed","key":{"fields":[2],"kind":"+I"},"namespace":"VoidNamespace","value":1})",
       "upsert.ndjson:2: state: operator 23eaad2bb152dd975bbc63554c2ca61f of the snapshot has no keyed state 'nope'"},
  };
  for (const auto& [lines, message] : bad) {
    INFO(lines);
    test::ScratchDir tmp;
    auto r = upsert(sql, lines, tmp / "out");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidArgument);
    CHECK_THAT(r.error().to_string(), Catch::Contains(message));
    CHECK_FALSE(fs::exists(tmp / "out"));
  }
  const std::vector<std::pair<std::string, std::string>> predicates = {
      {"nope = 1", "no such column: nope"}, {"f3 = ) (", "syntax error"}, {"1; DROP TABLE x", "--delete-where accState=1; DROP TABLE x: "}};
  for (const auto& [predicate, message] : predicates) {
    INFO(predicate);
    test::ScratchDir tmp;
    EditOptions o;
    o.output = tmp / "out";
    o.delete_where = {{"accState", predicate}};
    auto r = edit_snapshot(sql, o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidArgument);
    CHECK_THAT(r.error().to_string(), Catch::Contains(message));
    CHECK_FALSE(fs::exists(tmp / "out"));
  }
  EditOptions o;
  o.dry_run = true;
  o.keep_where = {{"no-such-state", "1"}};
  auto r = edit_snapshot(sql, o);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().to_string(), Catch::Contains("--keep-where: no operator has a keyed state 'no-such-state'"));
}

TEST_CASE("edit --delete-where and --keep-where on a LIST state drop exactly the elements their predicate matches",
          "[ops][corpus][sql]") {
  // One row per element, as the query table has them: the lists of the output are the input's
  // less the elements matched, kept in order as read; a list left empty goes; nothing else changes.
  CKPT_REQUIRE_SHARED();
  const std::string in =
      test::sql_corpus_dir() + "/stream-exec-group-aggregate_1/group-aggregate-udf-with-merge/savepoint";
  const std::string list_state = "agg1$list";
  struct Rule {
    bool keep;
    std::string predicate;
    std::function<bool(const nlohmann::json& element, size_t index)> stays;
  };
  const std::vector<Rule> rules = {
      {false, "value LIKE '%World%'",
       [](const nlohmann::json& v, size_t) { return v.get<std::string>().find("World") == std::string::npos; }},
      {true, "list_index = 0 OR f0 = 3", [](const nlohmann::json&, size_t i) { return i == 0; }},
      {false, "length(value) = 3", [](const nlohmann::json& v, size_t) { return v.get<std::string>().size() != 3; }},
  };
  for (const Rule& rule : rules) {
    INFO(rule.predicate);
    test::ScratchDir tmp;
    EditOptions o;
    o.output = tmp / "out";
    (rule.keep ? o.keep_where : o.delete_where) = {{list_state, rule.predicate}};
    auto r = edit_snapshot(in, o);
    if (!r.ok()) FAIL(r.error().to_string());
    std::vector<std::string> expected;
    uint64_t dropped = 0;
    for (const std::string& line : test::dump_lines(in)) {
      nlohmann::json j = nlohmann::json::parse(line);
      if (j["state"] != list_state) {
        expected.push_back(line);
        continue;
      }
      const bool key3 = j["key"]["fields"][0] == 3;
      nlohmann::json left = nlohmann::json::array();
      for (size_t i = 0; i < j["value"].size(); ++i) {
        if (rule.stays(j["value"][i], i) || (rule.keep && key3)) left.push_back(j["value"][i]);
        else ++dropped;
      }
      if (left.empty()) continue;
      j["value"] = left;
      expected.push_back(j.dump());
    }
    CHECK(dropped > 0);
    // As sets: a rewrite writes a key group's states in the proxy's order.
    std::multiset<nlohmann::json> got_set, expected_set;
    for (const std::string& l : test::dump_lines(o.output)) got_set.insert(nlohmann::json::parse(l));
    for (const std::string& l : expected) expected_set.insert(nlohmann::json::parse(l));
    CHECK(got_set == expected_set);
    REQUIRE(r->entry_edits.size() == 1);
    CHECK(r->entry_edits[0].state == list_state);
    CHECK(r->entry_edits[0].deleted == dropped);
    VerifyOptions v;
    v.deep = true;
    auto verified = verify_snapshot(o.output, v);
    REQUIRE(verified.ok());
    CHECK(verified->problems.empty());
  }
}

TEST_CASE("edit --upsert of operator state replaces a broadcast entry by its key and appends list elements",
          "[ops][corpus]") {
  // A broadcast entry given with a key subtask 0 has gets the new value, one with a new key is
  // added, one as it is stays unchanged; a union-list element is appended to subtask 0's list.
  // Every other entry, and every stream the lines do not touch, is as it was.
  CKPT_REQUIRE_SHARED();
  const std::string in = test::corpus_dir() + "/new-stateful-broadcast-udf-migration-itcase-flink1.19-hashmap-savepoint";
  const std::vector<std::string> lines = {
      R"({"operator":"12d7d939fd56473cac7cff0603179a41","subtask":0,"state":"broadcast-state-1","kind":"operator","key":0,"value":4242})",
      R"({"operator":"12d7d939fd56473cac7cff0603179a41","subtask":0,"state":"broadcast-state-2","kind":"operator","key":"brand-new","value":7})",
      R"({"operator":"12d7d939fd56473cac7cff0603179a41","subtask":0,"state":"broadcast-state-1","kind":"operator","key":1,"value":1})",
      R"({"operator":"1f2b5df5a66154aca61fcb26193792be","subtask":0,"state":"source-state","kind":"operator","value":"one more dragon"})",
  };
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  test::ScratchDir tmp;
  auto r = upsert(in, text, tmp / "out");
  if (!r.ok()) FAIL(r.error().to_string());
  std::map<std::string, EditSummary::EntryEdits> by_state;
  for (const EditSummary::EntryEdits& e : r->entry_edits) by_state[e.state] = e;
  CHECK(by_state["broadcast-state-1"].upserted == 1);
  CHECK(by_state["broadcast-state-1"].unchanged == 1);
  CHECK(by_state["broadcast-state-2"].added == 1);
  CHECK(by_state["source-state"].added == 1);
  // The output's dump: the input's with entry (0, key 0) changed and two entries more.
  std::multiset<std::string> before, after;
  for (const std::string& l : test::dump_lines(in)) before.insert(l);
  for (const std::string& l : test::dump_lines(tmp / "out")) after.insert(l);
  const std::string old_entry =
      R"({"operator":"12d7d939fd56473cac7cff0603179a41","subtask":0,"state":"broadcast-state-1","kind":"operator","key":0,"value":0})";
  REQUIRE(before.count(old_entry) == 1);
  before.erase(old_entry);
  before.insert(lines[0]);
  before.insert(lines[1]);
  before.insert(lines[3]);
  CHECK(after == before);
  VerifyOptions v;
  v.deep = true;
  auto verified = verify_snapshot(tmp / "out", v);
  REQUIRE(verified.ok());
  CHECK(verified->problems.empty());
  // A subtask the template has no operator state in is refused, naming the line.
  auto bad = upsert(in,
                    R"({"operator":"1f2b5df5a66154aca61fcb26193792be","subtask":9,"state":"source-state","kind":"operator","value":"x"})",
                    tmp / "bad");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().to_string(), Catch::Contains("upsert.ndjson:1: subtask: subtask 9 of operator"));
  CHECK_FALSE(fs::exists(tmp / "bad"));
}
