// Operator ids from uids (Flink's StreamGraphHasherV2), names from compiled SQL plans, and the
// one operator filter every command uses.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "ckpt/metadata.h"
#include "ckpt/names.h"
#include "format/flink_duration.h"
#include "support/murmur3.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

std::string hex(const std::array<uint8_t, 16>& bytes) { return operator_id_hex(bytes); }

OperatorState op_with(const std::string& id_hex, std::string uid = "", std::string name = "") {
  OperatorState op;
  REQUIRE(parse_operator_id(id_hex, &op.id));
  op.uid = std::move(uid);
  op.name = std::move(name);
  return op;
}

}  // namespace

TEST_CASE("murmur3_x64_128 gives Guava's murmur3_128 bytes", "[support]") {
  // Guava's own test vectors (Murmur3Hash128Test) and the empty input, whose hash is zero.
  CHECK(hex(murmur3_x64_128("")) == "00000000000000000000000000000000");
  CHECK(hex(murmur3_x64_128("The quick brown fox jumps over the lazy dog")) == "6c1b07bc7bbc4be347939ac4a93c437a");
  // Tails of every length 1..15 past a block go through both halves of the tail mix.
  CHECK(hex(murmur3_x64_128("hello")) == "029bbd41b3a7d8cb191dae486a901e5b");
  CHECK(hex(murmur3_x64_128("0123456789abcdef")) == "a7d14acf946de04bda08a7635c5bc387");
  CHECK(hex(murmur3_x64_128("0123456789abcdefXYZ")) == "1d904a6c0275d399f39cf8ea56e2694e");
}

TEST_CASE("an operator id is the murmur3 hash of its uid's UTF-8 bytes", "[format]") {
  // Ids Flink stored in a savepoint of the SQL planner's restore tests
  // (stream-exec-group-aggregate_1/agg-with-state-ttl-hint): node 55 GroupAggregate, 57 Sink.
  CHECK(operator_id_hex(operator_id_of_uid("55_group-aggregate")) == "20066aaa5f4902f5627b7c13fb0ab2a5");
  CHECK(operator_id_hex(operator_id_of_uid("57_sink")) == "2d990b87135466aa48588de9a63de3dd");
  CHECK(operator_id_hex(operator_id_of_uid("57_constraint-validator")) == "af00dd880cf8b4ee57b80c26f96d73ea");
  CHECK(operator_id_hex(operator_id_of_uid("52_source")) == "ee385bfd109bb8a5da52907ee2e0e72e");
  // Guava hashes the UTF-8 bytes of the string, not its UTF-16 chars.
  CHECK(operator_id_of_uid("\xc3\xbc") == murmur3_x64_128("\xc3\xbc"));
}

TEST_CASE("a compiled plan names each node's transformations with its description", "[format]") {
  const std::string plan = R"json({"flinkVersion":"1.19","nodes":[
    {"id":55,"type":"stream-exec-group-aggregate_1","description":"GroupAggregate(groupBy=[b])"},
    {"id":57,"type":"stream-exec-sink_1","description":"Sink(table=[t])"},
    {"id":9,"type":"stream-exec-calc_1","description":"Calc","configuration":{"table.exec.uid.format":"x-<type>-<version>-<id>_<transformation>"}}],
    "edges":[]})json";
  OperatorNames names;
  REQUIRE(names.add_plan(plan, "plan.json").ok());
  const OperatorName* agg = names.find(operator_id_of_uid("55_group-aggregate"));
  REQUIRE(agg);
  CHECK(agg->uid == "55_group-aggregate");
  CHECK(agg->description == "GroupAggregate(groupBy=[b])");
  CHECK(agg->plan_node == 55);
  const OperatorName* validator = names.find(operator_id_of_uid("57_constraint-validator"));
  REQUIRE(validator);
  CHECK(validator->description == "Sink(table=[t])");
  // A node's own uid format: <type> and <version> are its "type" split at the last '_'.
  const OperatorName* calc = names.find(operator_id_of_uid("x-stream-exec-calc-1-9_calc"));
  REQUIRE(calc);
  CHECK(calc->uid == "x-stream-exec-calc-1-9_calc");
  CHECK_FALSE(names.find(operator_id_of_uid("9_calc")));
  CHECK_FALSE(names.find(operator_id_of_uid("55_no-such-transformation")));
}

TEST_CASE("every transformation Flink's SQL planner names is tried and hashed to the id Flink gives", "[format]") {
  // The names of formats/metadata.md §5.1 (the ExecNodes' transformation constants, Flink 1.15
  // to 2.x), each with the id of uid "7_<name>" as StreamGraphHasherV2 computes it: murmur3_128
  // (seed 0) of the UTF-8 bytes, computed apart with a Python port of Guava's Murmur3_128HashFunction
  // that gives this file's corpus ids above.
  const std::map<std::string, std::string> ids = {
      {"source", "9060f0f8c6b13f63059cb9d0aa10447e"},
      {"values", "94dee10339cfce1952a1fd5060fe4142"},
      {"sink", "792b9e60d7040d375d28ca009025bef6"},
      {"constraint-validator", "b7b6183e7bd59bb18891a507d39961b2"},
      {"partitioner", "656355bbd53ff0210014c6cc0f9f029d"},
      {"upsert-materialize", "4be44b2e3419440816c3c337061fd521"},
      {"timestamp-inserter", "20485c9a776f3c9cbe05448d8e108523"},
      {"row-kind-setter", "fa2640a675ca1e6719bf250c3b79d965"},
      {"calc", "b67f0e9fa542cc807c234fd77ffd26a7"},
      {"async-calc", "0d99be23299b78e86242cedcc7ebd9d9"},
      {"python-calc", "38da96c9bcb32b45b3bb530cd17f67fd"},
      {"python-async-calc", "e467de11ad7ded62b440808af7ffa7e6"},
      {"correlate", "6b9ab12269dc22005e0227895ecc3d82"},
      {"async-correlate", "4bcbf1b54a3d2d839415d580ad4d5353"},
      {"python-correlate", "0d307c5c3d1dc5691154bbf798009f57"},
      {"expand", "f750de8482f250d959516c5a954171ed"},
      {"lookup-join", "0e74b9171c9503a23e565fe89d256eda"},
      {"lookup-join-materialize", "74637d1296f41e85e73c49f35b00d5b2"},
      {"match", "4659e60c210543ec6fb96eb726d04e24"},
      {"window", "f6e5d6d3e11f23d0361a8f10893a2a27"},
      {"changelog-normalize", "f8ebe0b7cfaf488f787f0d5e2ca06595"},
      {"drop-update-before", "582c8cdbe2e12763b70f2907fb29dd7e"},
      {"deduplicate", "0a58c382f82644b239e76b543725c16f"},
      {"window-deduplicate", "a4abc4dcf2deb937db264d70625c3d34"},
      {"group-aggregate", "9878261212ff7323b5a1216d79950862"},
      {"local-group-aggregate", "a39c43e79eb46614f4ccb5d6a1729118"},
      {"global-group-aggregate", "67effe4c13ed28383adba5cf3eab6191"},
      {"incremental-group-aggregate", "4fb6ca974d5ea2a46ffc89ec25f9a98b"},
      {"bundled-group-aggregate", "764f82b864899f56cd509dbe4db2b5a8"},
      {"python-group-aggregate", "2f8db5ad3c8c95141bdb297d87798365"},
      {"group-table-aggregate", "e1f1e506da928a0ec4628f5c3ad74ee0"},
      {"group-window-aggregate", "bcf9e8a8c901b7e488bca0765b266230"},
      {"over-aggregate", "ab04955480e96ecd82374fbfb45be3ae"},
      {"python-over-aggregate", "25f7384c90f613f74d77e62391449afc"},
      {"window-aggregate", "3e2f1ddcff4ae8376b30394263e0ed9b"},
      {"local-window-aggregate", "26a92ae34de51ea4797ee90437fba136"},
      {"global-window-aggregate", "1a9b91eee3652c76c959eab640f5eb1f"},
      {"join", "7c2e2faa042538c9c6536014ee065870"},
      {"window-join", "fd0e87df4f5d474050d6226870448133"},
      {"temporal-join", "c867fd395af3f70ae622de85a775774f"},
      {"interval-join", "e14cbdacfd6d72bd8b8b647cabd036ee"},
      {"filter-left", "61c2a37e2a6f212a80486df486a3c8fb"},
      {"filter-right", "798d35e2360e48ef782a185acf72d0d2"},
      {"pad-left", "f8fbb623931f61281b3b55ad7c1bde00"},
      {"pad-right", "85ede9b7148c5478f85d787a77b2506c"},
      {"delta-join", "feec65d8950ad932d4511696db49f521"},
      {"multi-join", "c87cd4f1e0c65050c9e6ee2503cd59b9"},
      {"lateral-snapshot-join", "946580a0281a7498271da66d6189ec65"},
      {"rank", "b00195d9fd0a95229f5eb30ff4b7f052"},
      {"window-rank", "e3f39f7be84addd2ab42ad4bfac0d422"},
      {"sort", "8a24d9a6562a46e9209b8cd585420722"},
      {"sort-limit", "2ed1b2fb8eb950621d207de7b060f13d"},
      {"temporal-sort", "72a2dfe92da1b51116ee13975f644f00"},
      {"limit", "12ea459bb29b76624e1fda83ddb0ad21"},
      {"watermark-assigner", "ee05a99541debc73f6387ae795e9660c"},
      {"mini-batch-assigner", "b8ccfddff21c69f56b517fad14c00892"},
      {"process", "86001f77d60f2f00d948c59c4be97e87"},
      {"ml-predict-table-function", "a140f9b017a8c928bd43d398513c1395"},
      {"ml-predict", "2ae6bae69a846d420fa3986c9286b29a"},
      {"vector-search-table-function", "a1861e556660d46633835ea83d39bedd"},
  };
  const std::vector<std::string>& tried = sql_transformation_names();
  CHECK(std::set<std::string>(tried.begin(), tried.end()).size() == tried.size());
  std::set<std::string> expected;
  for (const auto& [name, id] : ids) expected.insert(name);
  CHECK(std::set<std::string>(tried.begin(), tried.end()) == expected);
  OperatorNames names;
  REQUIRE(names.add_plan(R"({"nodes":[{"id":7,"type":"stream-exec-x_1","description":"X"}]})", "plan.json").ok());
  for (const auto& [name, id] : ids) {
    INFO(name);
    CHECK(operator_id_hex(operator_id_of_uid("7_" + name)) == id);
    OperatorState op = op_with(id);
    CHECK(names.uid_of(op) == "7_" + name);
  }
}

TEST_CASE("a process table function's own uid in the plan names its operator", "[format]") {
  // StreamExecProcessTableFunction keeps a uid given in SQL as the node's "uid" and uses it
  // instead of the format's "<id>_process".
  OperatorNames names;
  REQUIRE(names
              .add_plan(R"({"nodes":[{"id":3,"type":"stream-exec-process-table-function_1",
      "description":"PTF","uid":"my-ptf"}]})",
                        "plan.json")
              .ok());
  const OperatorName* own = names.find(operator_id_of_uid("my-ptf"));
  REQUIRE(own);
  CHECK(own->uid == "my-ptf");
  CHECK(own->plan_node == 3);
  CHECK(names.find(operator_id_of_uid("3_process")));
}

TEST_CASE("a plan without nodes is refused naming the file", "[format]") {
  OperatorNames names;
  Status s = names.add_plan(R"({"nodes":[{"type":"x"}]})", "bad.json");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().to_string().find("bad.json") != std::string::npos);
  CHECK(s.error().to_string().find("integer \"id\"") != std::string::npos);
  CHECK_FALSE(names.add_plan("[1,", "x.json").ok());
  CHECK_FALSE(names.add_plan("{}", "x.json").ok());
}

TEST_CASE("uids given alone name their operators and the others are unmatched", "[format]") {
  Metadata m;
  m.operators.push_back(op_with(operator_id_hex(operator_id_of_uid("my-source"))));
  m.operators.push_back(op_with("0123456789abcdef0123456789abcdef", "stored-uid", "Stored Name"));
  OperatorNames names;
  names.add_uid("my-source");
  names.add_uid("gone");
  CHECK(names.uid_of(m.operators[0]) == "my-source");
  CHECK(names.description_of(m.operators[0]).empty());
  CHECK(names.uid_of(m.operators[1]) == "stored-uid");  // V5+ stores it
  CHECK(names.unmatched(m) == std::vector<std::string>{"gone"});
  std::vector<NamedOperator> named;
  append_named_operators(m, names, &named);
  REQUIRE(named.size() == 2);
  CHECK(named[0].uid == "my-source");
  CHECK(named[1].uid == "stored-uid");

  test::ScratchDir dir;
  test::write_file(dir / "uids", "a\r\n\nmy-source\n");
  OperatorNames from_file;
  REQUIRE(from_file.add_uids_file(dir / "uids").ok());
  CHECK(from_file.unmatched(m) == std::vector<std::string>{"a"});
  CHECK_FALSE(from_file.add_uids_file(dir / "absent").ok());
}

TEST_CASE("operators are selected by id or prefix or uid or name", "[format]") {
  Metadata m;
  m.operators.push_back(op_with("abcd0000000000000000000000000001"));
  m.operators.push_back(op_with("abcd0000000000000000000000000002", "", "Window"));
  m.operators.push_back(op_with(operator_id_hex(operator_id_of_uid("18_group-aggregate"))));
  auto ids = [&](std::string_view filter) {
    Result<std::vector<const OperatorState*>> r = select_operators(m, filter);
    std::vector<std::string> out;
    if (r.ok())
      for (const OperatorState* op : *r) out.push_back(operator_id_hex(op->id));
    return out;
  };
  CHECK(ids("ABCD0000000000000000000000000001") == std::vector<std::string>{"abcd0000000000000000000000000001"});
  CHECK(ids("abcd00000000000000000000000000").empty());  // a prefix of two
  CHECK(ids("abcd000000000000000000000000000").empty());
  CHECK(ids("Window") == std::vector<std::string>{"abcd0000000000000000000000000002"});
  CHECK(ids("18_group-aggregate") ==
        std::vector<std::string>{operator_id_hex(operator_id_of_uid("18_group-aggregate"))});
  const std::string third = operator_id_hex(operator_id_of_uid("18_group-aggregate"));
  CHECK(ids(third.substr(0, 6)) == std::vector<std::string>{third});
  CHECK(ids(third.substr(0, 3)).empty());  // too short to be a prefix

  Result<std::vector<const OperatorState*>> ambiguous = select_operators(m, "abcd");
  REQUIRE_FALSE(ambiguous.ok());
  CHECK(ambiguous.error().to_string().find("fits 2 operators") != std::string::npos);
  Result<std::vector<const OperatorState*>> none = select_operators(m, "nothing-here");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == ErrorCode::kNotFound);
  CHECK(operator_matches(m.operators[0], "abcd"));
  CHECK_FALSE(operator_matches(m.operators[0], "Window"));
}

TEST_CASE("durations parse as Flink's TimeUtils reads a compiled plan's state TTL", "[format]") {
  // The planner writes TimeUtils.formatWithHighestUnit: "<n> <unit>"; users write "30s".
  CHECK(parse_flink_duration_ms("0 ms").value() == 0);
  CHECK(parse_flink_duration_ms("1 s").value() == 1000);
  CHECK(parse_flink_duration_ms("4 d").value() == 4 * 86'400'000LL);
  CHECK(parse_flink_duration_ms("15min").value() == 900'000);
  CHECK(parse_flink_duration_ms("15m").value() == 900'000);
  CHECK(parse_flink_duration_ms("2 HOURS").value() == 7'200'000);
  CHECK(parse_flink_duration_ms("1500").value() == 1500);  // no unit: milliseconds
  CHECK(parse_flink_duration_ms("1999 micros").value() == 1);  // cut as Duration.toMillis does
  CHECK(parse_flink_duration_ms("999999 ns").value() == 0);
  for (const char* bad : {"", "ms", "-1 s", "1 fortnight", "1.5 s", "99999999999999999999 ms", "9223372036854775 d"}) {
    INFO(bad);
    auto r = parse_flink_duration_ms(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidArgument);
    CHECK(r.error().message.find(std::string("'") + bad + "'") != std::string::npos);
  }
}

TEST_CASE("a compiled plan's state array is read per node and malformed ones are refused", "[format]") {
  OperatorNames names;
  REQUIRE(names
              .add_plan(R"({"nodes":[{"id":7,"type":"stream-exec-join_1","state":[{"index":1,"ttl":"4 d","name":"rightState"},
                             {"index":0,"ttl":"1 d","name":"leftState"}]},{"id":8,"type":"stream-exec-calc_1"}]})",
                        "plan.json")
              .ok());
  const OperatorName* join = names.find(operator_id_of_uid("7_join"));
  REQUIRE(join);
  CHECK(join->state_ttls_ms == std::vector<int64_t>{86'400'000, 4 * 86'400'000LL});
  const OperatorName* calc = names.find(operator_id_of_uid("8_calc"));
  REQUIRE(calc);
  CHECK(calc->state_ttls_ms.empty());
  for (const char* bad : {R"({"nodes":[{"id":1,"state":{"index":0}}]})",
                          R"({"nodes":[{"id":1,"state":[{"index":0,"ttl":"1 s"},{"index":0,"ttl":"2 s"}]}]})",
                          R"({"nodes":[{"id":1,"state":[{"index":1,"ttl":"1 s"}]}]})",
                          R"({"nodes":[{"id":1,"state":[{"index":0,"ttl":5}]}]})",
                          R"({"nodes":[{"id":1,"state":[{"index":0,"ttl":"soon"}]}]})"}) {
    INFO(bad);
    OperatorNames n;
    Status st = n.add_plan(bad, "bad.json");
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().file == "bad.json");
    CHECK(st.error().message.find("node 1: \"state\"") != std::string::npos);
  }
}
