// ckpt load --spec: a savepoint bootstrapped from a spec alone (no template snapshot), for a
// DataStream job with a POJO state and for a SQL GROUP BY job, in each keyed layout, read back by
// ckpt (dump, query's named columns, verify --deep); and a bad spec refused with exit status 2.
#include <catch2/catch.hpp>

#include <algorithm>
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

constexpr const char* kOrdersSpec = R"({"operators": [
  {"uid": "orders", "parallelism": 2, "max_parallelism": 128, "key": "BIGINT",
   "states": [{"name": "order", "kind": "value", "type": "POJO com.acme.Order {id: BIGINT, items: LIST<STRING>, note: STRING}"},
              {"name": "seen", "kind": "list", "type": "LIST<TUPLE<BIGINT, STRING>>"},
              {"name": "tags", "kind": "map", "type": "MAP<STRING, INT>"}]}]})";

// Lines name the operator by its uid: Flink's hash of it is the id dump prints.
constexpr const char* kOrdersLines =
    R"({"uid":"orders","state":"order","kind":"keyed","key":1,"namespace":"VoidNamespace","value":{"class":"com.acme.Order","fields":{"id":1,"items":["a","b"],"note":null}}}
{"uid":"orders","state":"seen","kind":"keyed","key":1,"namespace":"VoidNamespace","value":[[1,"a"],[2,"b"]]}
{"uid":"orders","state":"order","kind":"keyed","key":2,"namespace":"VoidNamespace","value":{"class":"com.acme.Order","fields":{"id":2,"items":[],"note":"x"}}}
{"uid":"orders","state":"tags","kind":"keyed","key":2,"namespace":"VoidNamespace","user_key":"k","value":7}
)";

// A SQL GROUP BY's accumulator state (Flink 1.x names the operator "<n>_group-aggregate").
constexpr const char* kAggregateSpec = R"({"operators": [
  {"uid": "4_group-aggregate", "parallelism": 1, "key": "ROW<b BIGINT>",
   "states": [{"name": "accState", "kind": "value", "type": "ROW<cnt BIGINT NOT NULL, s BIGINT, c BIGINT NOT NULL, min_c STRING>"}]}]})";
constexpr const char* kAggregateLines =
    R"({"uid":"4_group-aggregate","state":"accState","kind":"keyed","key":{"kind":"+I","fields":[1]},"namespace":"VoidNamespace","value":{"kind":"+I","fields":[3,10,3,"abc"]}}
{"uid":"4_group-aggregate","state":"accState","kind":"keyed","key":{"kind":"+I","fields":[2]},"namespace":"VoidNamespace","value":{"kind":"+I","fields":[1,null,0,null]}}
)";

std::vector<json> dumped(const std::string& dir) {
  std::vector<json> out;
  std::istringstream in(run_cli_ok({"dump", dir, "--format", "ndjson"}).out);
  for (std::string l; std::getline(in, l);) out.push_back(json::parse(l));
  return out;
}

// query's CSV ends its records with CRLF (RFC 4180).
std::string csv_of(const std::vector<std::string>& args) {
  std::string out = run_cli_ok(args).out, lf;
  for (char c : out)
    if (c != '\r') lf += c;
  return lf;
}

// Loads one line per key and value into `state` of operator `uid` (the spec's) in each keyed
// layout: verify --deep passes and dump prints the same keys and values back.
void check_spec_round_trip(const ckpt::test::ScratchDir& s, const std::string& spec, const char* uid, const char* state,
                           const std::vector<json>& keys, const std::vector<json>& values) {
  ckpt::test::write_file(s / "spec.json", spec);
  std::string lines;
  std::vector<json> want;
  for (size_t i = 0; i < values.size(); ++i) {
    lines +=
        json{{"uid", uid},        {"state", state}, {"kind", "keyed"}, {"key", keys[i]}, {"namespace", "VoidNamespace"},
             {"value", values[i]}}
            .dump() +
        "\n";
    want.push_back(json::array({keys[i], values[i]}));
  }
  std::sort(want.begin(), want.end());
  ckpt::test::write_file(s / "lines.ndjson", lines);
  for (const char* to : {"heap", "rocksdb", "canonical"}) {
    INFO(to);
    const std::string out = s / to;
    run_cli_ok({"load", s / "lines.ndjson", "--spec", s / "spec.json", "--to", to, "--output", out});
    auto verified = run_cli({"verify", out, "--deep"});
    INFO(verified.out << verified.err);
    CHECK(verified.status == 0);
    std::vector<json> got;
    for (const json& l : dumped(out)) got.push_back(json::array({l["key"], l["value"]}));
    std::sort(got.begin(), got.end());
    CHECK(got == want);
  }
}

}  // namespace

TEST_CASE("load --spec bootstraps a DataStream job with a POJO state in each layout", "[cli]") {
  ckpt::test::ScratchDir s;
  ckpt::test::write_file(s / "spec.json", kOrdersSpec);
  ckpt::test::write_file(s / "lines.ndjson", kOrdersLines);
  for (const char* to : {"heap", "rocksdb", "canonical"}) {
    INFO(to);
    const std::string out = s / to;
    run_cli_ok({"load", s / "lines.ndjson", "--spec", s / "spec.json", "--to", to, "--output", out});
    CHECK(run_cli({"verify", out, "--deep"}).status == 0);
    std::vector<json> lines = dumped(out);
    REQUIRE(lines.size() == 4);
    // Flink's operator id for uid "orders" (murmur3_128 of the uid), key 1 in key group 86.
    CHECK(lines[0]["operator"] == "bc4197a480c92c793190a9f8c0afc54c");
    CHECK(lines[0]["key_group"] == 86);
    CHECK(lines[0]["subtask"] == 1);
    std::string csv = csv_of({"query", out, "--uid", "orders", "--format", "csv",
                              "SELECT key, id, items, note FROM \"orders.order\" ORDER BY key"});
    CHECK(csv == "key,id,items,note\n1,1,\"[\"\"a\"\",\"\"b\"\"]\",\n2,2,[],x\n");
    csv = csv_of(
        {"query", out, "--uid", "orders", "--format", "csv", "SELECT key, user_key, value FROM \"orders.tags\""});
    CHECK(csv == "key,user_key,value\n2,k,7\n");
  }
}

TEST_CASE("load --spec bootstraps a SQL GROUP BY state whose key and accumulator are rows", "[cli]") {
  ckpt::test::ScratchDir s;
  ckpt::test::write_file(s / "spec.json", kAggregateSpec);
  ckpt::test::write_file(s / "lines.ndjson", kAggregateLines);
  for (const char* to : {"heap", "rocksdb", "canonical"}) {
    INFO(to);
    const std::string out = s / to;
    run_cli_ok({"load", s / "lines.ndjson", "--spec", s / "spec.json", "--to", to, "--output", out});
    CHECK(run_cli({"verify", out, "--deep"}).status == 0);
    std::vector<json> lines = dumped(out);
    REQUIRE(lines.size() == 2);
    // The operator Flink's planner names 4_group-aggregate; the key rows' key groups as Flink's
    // (stream-exec-group-aggregate_1 of the SQL corpus keeps b = 2 in 93, b = 1 in 94).
    CHECK(lines[0]["operator"] == "23eaad2bb152dd975bbc63554c2ca61f");
    CHECK(lines[0]["key_group"] == 93);
    CHECK(lines[0]["value"]["fields"] == json::array({1, nullptr, 0, nullptr}));
    CHECK(lines[1]["key_group"] == 94);
    CHECK(lines[1]["value"]["fields"] == json::array({3, 10, 3, "abc"}));
  }
}

TEST_CASE("load --spec bootstraps SQL rows with DECIMAL and TIMESTAMP fields - their values as dump prints them",
          "[cli]") {
  // A window aggregate's accumulator: decimals of 64 bits and beyond, timestamps of millisecond
  // and nanosecond precision (a rowtime attribute among them), nulls; read back equal.
  ckpt::test::ScratchDir s;
  const std::vector<json> values = {
      json::parse(R"({"kind":"+I","fields":[{"unscaled":12345,"scale":2},{"unscaled":"-1234567890123456789012","scale":4},{"millis":1700000000123,"nano_of_milli":0},{"millis":1700000000123,"nano_of_milli":456789},{"millis":5,"nano_of_milli":0}]})"),
      json::parse(R"({"kind":"+I","fields":[null,null,null,null,{"millis":-1,"nano_of_milli":0}]})")};
  const std::vector<json> keys = {json::parse(R"({"kind":"+I","fields":["apple"]})"),
                                  json::parse(R"({"kind":"+I","fields":["pear"]})")};
  check_spec_round_trip(s, R"({"operators": [{"uid": "win", "parallelism": 1, "key": "ROW<item STRING>",
  "states": [{"name": "acc", "kind": "value", "type": "ROW<price DECIMAL(10, 2), big DECIMAL(20, 4), ts TIMESTAMP(3) *ROWTIME*, t9 TIMESTAMP(9), lt TIMESTAMP_LTZ(3) NOT NULL>"}]}]})",
                        "win", "acc", keys, values);
}

TEST_CASE("load --spec bootstraps SQL rows with DATE TIME bytes CHAR and nested ROW fields - read back as loaded",
          "[cli]") {
  // A key row of a date and a CHAR(3), a value row of every other new field type: TIME(3),
  // BYTES, VARBINARY(n), BINARY(n) (inline and in the variable part), CHAR(n), a nested ROW
  // holding a ROW with a description; nulls at each level. Dump prints the loaded values back,
  // verify --deep reads every value, in each layout.
  ckpt::test::ScratchDir s;
  const std::vector<json> keys = {json::parse(R"({"kind":"+I","fields":[19700,"abc"]})"),
                                  json::parse(R"({"kind":"+I","fields":[-1,null]})"),
                                  json::parse(R"({"kind":"+I","fields":[0,"xyz"]})")};
  const std::vector<json> values = {
      json::parse(
          R"({"kind":"+I","fields":[19700,45296789,{"bytes":"00ff"},{"bytes":"0102030405060708090a0b"},{"bytes":"deadbeef"},"abcde",{"kind":"+I","fields":[7,{"kind":"+I","fields":["a longer string than seven bytes",86399000]}]}]})"),
      json::parse(
          R"({"kind":"+I","fields":[null,null,null,null,{"bytes":"00000000"},null,{"kind":"+I","fields":[null,null]}]})"),
      json::parse(
          R"({"kind":"+I","fields":[-719162,0,{"bytes":""},{"bytes":"41"},{"bytes":"01020304"},"été",{"kind":"+I","fields":[-1,{"kind":"+I","fields":[null,0]}]}]})")};
  check_spec_round_trip(s, R"({"operators": [{"uid": "types", "parallelism": 2,
  "key": "ROW<day DATE NOT NULL, code CHAR(3)>",
  "states": [{"name": "v", "kind": "value", "type": "ROW<d DATE, t TIME(3), b BYTES, vb VARBINARY(16), bn BINARY(4) NOT NULL, c CHAR(5), n ROW<x INT, s ROW<z STRING 'zed', t TIME>> NOT NULL>"}]}]})",
                        "types", "v", keys, values);
}

TEST_CASE("load --spec refuses a bad spec with exit status 2 naming the member and writes nothing", "[cli]") {
  ckpt::test::ScratchDir s;
  ckpt::test::write_file(s / "lines.ndjson", kOrdersLines);
  auto refused = [&](const std::string& spec, const std::string& says) {
    ckpt::test::write_file(s / "spec.json", spec);
    auto r = run_cli({"load", s / "lines.ndjson", "--spec", s / "spec.json", "--output", s / "out"});
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(ckpt::test::contains(r.err, says));
    CHECK_FALSE(fs::exists(s / "out"));
  };
  refused("[1]", "spec.json: the spec: expected a JSON object");
  refused(
      R"({"operators":[{"uid":"orders","key":"BIGINT","states":[{"name":"order","kind":"value","type":"LIST<BIGINT"}]}]})",
      "operators[0].states[0].type: type \"LIST<BIGINT\", at 11: expected ',' or '>'");
  refused(R"({"operators":[{"uid":"orders","key":"BIGINT","states":[{"name":"seen","kind":"list","type":"BIGINT"}]}]})",
          "operators[0].states[0].type: expected LIST<T> for a list state");
  refused(
      R"({"operators":[{"uid":"orders","key":"BIGINT","states":[{"name":"order","kind":"folding","type":"BIGINT"}]}]})",
      "operators[0].states[0].kind: expected value, list, map, reducing or aggregating");
  // The spec is good, the lines are not: a state the spec lacks.
  refused(
      R"({"operators":[{"uid":"orders","key":"BIGINT","states":[{"name":"other","kind":"value","type":"BIGINT"}]}]})",
      "lines.ndjson:1: state: operator bc4197a480c92c793190a9f8c0afc54c");
  auto both = run_cli({"load", s / "lines.ndjson", "--output", s / "out"});
  CHECK(both.status == 2);
  CHECK(ckpt::test::contains(both.err, "expected a template (--like SNAPSHOT) or a spec (--spec SPEC.json)"));
}
