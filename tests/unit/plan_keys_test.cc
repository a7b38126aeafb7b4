// Key columns from compiled plans built by hand after the planner's JSON (ExecNode
// @JsonProperty fields), and key rows named after them.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "ckpt/names.h"
#include "format/plan_keys.h"
#include "ops/engine/key_names.h"

using namespace ckpt;
using nlohmann::json;

TEST_CASE("row type names come from both forms a compiled plan writes", "[unit][format]") {
  // Proves the string form (backquoted names, `` inside one, nested rows, parameters, comments)
  // and the object form ({"fields":[{"name":..}]}) of a plan's outputType.
  CHECK(plan_row_field_names(json("ROW<`b` BIGINT, `a` INT, `$f2` BOOLEAN NOT NULL, `c` VARCHAR(2147483647)>")) ==
        std::vector<std::string>{"b", "a", "$f2", "c"});
  CHECK(
      plan_row_field_names(json("ROW<`we``ird` ROW<`x` INT, `y` MAP<INT, VARCHAR(3)>>, `d` DECIMAL(10, 2) 'a, b>'>")) ==
      std::vector<std::string>{"we`ird", "d"});
  CHECK(plan_row_field_names(
            json::parse(R"({"type":"ROW","fields":[{"name":"price","fieldType":"INT"},{"name":"ts"}]})")) ==
        std::vector<std::string>{"price", "ts"});
  CHECK(plan_row_field_names(json("INT")).empty());
  CHECK(plan_row_field_names(json("ROW<`a` INT")).empty());  // unterminated
  CHECK(plan_row_field_names(json(7)).empty());
}

TEST_CASE("a plan fixes the key columns of aggregates - joins and ranks from their inputs", "[unit][format]") {
  // Proves the key specs: "grouping", joinSpec.leftKeys of the first input, partition.fields;
  // indexes outside the input's row or repeated names name nothing.
  json plan = json::parse(R"({"nodes":[
    {"id":1,"type":"stream-exec-table-source-scan_1","outputType":"ROW<`user` VARCHAR(10), `amount` BIGINT, `region` INT>"},
    {"id":2,"type":"stream-exec-exchange_1","outputType":"ROW<`user` VARCHAR(10), `amount` BIGINT, `region` INT>"},
    {"id":3,"type":"stream-exec-group-aggregate_1","grouping":[2,0],"outputType":"ROW<`region` INT, `user` VARCHAR(10), `s` BIGINT>"},
    {"id":4,"type":"stream-exec-table-source-scan_1","outputType":{"type":"ROW","fields":[{"name":"region_id","fieldType":"INT"}]}},
    {"id":5,"type":"stream-exec-join_1","joinSpec":{"joinType":"INNER","leftKeys":[0],"rightKeys":[0]},"outputType":"ROW<`x` INT>"},
    {"id":6,"type":"stream-exec-rank_1","partition":{"fields":[1]},"outputType":"ROW<`x` INT>"},
    {"id":7,"type":"stream-exec-group-aggregate_1","grouping":[5],"outputType":"ROW<`x` INT>"},
    {"id":8,"type":"stream-exec-join_1","joinSpec":{"leftKeys":[0,0],"rightKeys":[0,1]},"outputType":"ROW<`x` INT>"},
    {"id":9,"type":"stream-exec-calc_1","outputType":"ROW<`x` INT>"}],
   "edges":[{"source":1,"target":2},{"source":2,"target":3},{"source":3,"target":5},{"source":4,"target":5},
            {"source":2,"target":6},{"source":2,"target":7},{"source":2,"target":8},{"source":4,"target":8},
            {"source":2,"target":9}]})");
  auto keys = plan_key_columns(plan);
  CHECK(keys[3] == std::vector<std::string>{"region", "user"});
  CHECK(keys[5] == std::vector<std::string>{"region"});  // the left input's column 0
  CHECK(keys[6] == std::vector<std::string>{"amount"});
  CHECK(keys.count(7) == 0);  // index 5 is outside the input's three columns
  CHECK(keys.count(8) == 0);  // two key columns of one name
  CHECK(keys.count(9) == 0);  // a calc keeps no keyed state
  CHECK(keys.count(1) == 0);

  OperatorNames names;
  REQUIRE(names.add_plan(plan.dump(), "plan.json").ok());
  const OperatorName* agg = names.find(operator_id_of_uid("3_group-aggregate"));
  REQUIRE(agg);
  CHECK(agg->key_columns == std::vector<std::string>{"region", "user"});
}

TEST_CASE("a key row is named only when it is a row of as many fields as there are names", "[unit][ops]") {
  // Proves name_row_fields keeps the key's column order and leaves other values as they were.
  CHECK(name_row_fields(R"({"fields":[3,"eu"],"kind":"+I"})", {"region", "user"}) ==
        R"({"fields":{"region":3,"user":"eu"},"kind":"+I"})");
  CHECK(name_row_fields(R"({"fields":[null,{"a":1}],"kind":"-U"})", {"z", "a"}) ==
        R"({"fields":{"z":null,"a":{"a":1}},"kind":"-U"})");
  CHECK(name_row_fields(R"({"fields":[3],"kind":"+I"})", {"region", "user"}) == R"({"fields":[3],"kind":"+I"})");
  CHECK(name_row_fields("42", {"x"}) == "42");
  CHECK(name_row_fields(R"({"hex":"00","why":"kryo"})", {"x", "y"}) == R"({"hex":"00","why":"kryo"})");
}
