// The type text of a load spec, read into the snapshots Flink's serializers write: POJO fields in
// PojoTypeInfo's order (by name), SQL rows with their logical types, and bad text refused at its offset.
#include <catch2/catch.hpp>

#include "ops/load/spec_types.h"

using namespace ckpt;

TEST_CASE("load spec types list POJO fields by name as PojoTypeInfo orders them", "[ops]") {
  auto s = spec_type_snapshot("POJO com.acme.Order {note: STRING, id: BIGINT, items: LIST<STRING>}");
  REQUIRE(s.ok());
  CHECK(s->form == SnapshotForm::kPojo);
  CHECK(s->type_class == "com.acme.Order");
  CHECK(s->field_names == std::vector<std::string>{"id", "items", "note"});
  REQUIRE(s->nested.size() == 3);
  CHECK(s->nested[1].display_name() == "ListSerializer");
  REQUIRE(s->nested[1].nested.size() == 1);
  CHECK(s->nested[1].nested[0].display_name() == "StringSerializer");
  CHECK(s->display_name() == "PojoSerializer<com.acme.Order>");
}

TEST_CASE("load spec types write SQL rows with their logical types and nullability", "[ops]") {
  auto s = spec_type_snapshot("ROW<`id` BIGINT NOT NULL, name VARCHAR(10), ok BOOLEAN, n INT, d DOUBLE>");
  REQUIRE(s.ok());
  CHECK(s->form == SnapshotForm::kRowData);
  REQUIRE(s->logical_types_decoded);
  REQUIRE(s->logical_types.size() == 5);
  CHECK(s->logical_types[0].root == "BIGINT");
  CHECK_FALSE(s->logical_types[0].nullable);
  CHECK(s->logical_types[1].root == "VARCHAR");
  CHECK(s->logical_types[1].length == 10);
  CHECK(s->logical_types[1].nullable);
  CHECK(s->logical_types[3].root == "INTEGER");
  std::vector<std::string> fields;
  for (const SerializerSnapshot& n : s->nested) fields.push_back(n.display_name());
  CHECK(fields == std::vector<std::string>{"LongSerializer", "StringDataSerializer", "BooleanSerializer",
                                           "IntSerializer", "DoubleSerializer"});
  auto t = spec_type_snapshot("TUPLE<INT, STRING, MAP<STRING, BYTES>>");
  REQUIRE(t.ok());
  CHECK(t->display_name() == "TupleSerializer<Tuple3>");
  REQUIRE(t->nested.size() == 3);
  REQUIRE(t->nested[2].nested.size() == 2);
  CHECK(t->nested[2].nested[1].display_name() == "BytePrimitiveArraySerializer");
}

TEST_CASE("load spec types refuse bad type text naming the offset and what was expected", "[ops]") {
  auto bad = [](const char* text, const std::string& says) {
    auto s = spec_type_snapshot(text);
    REQUIRE_FALSE(s.ok());
    INFO(s.error().message);
    CHECK(s.error().message.find(says) != std::string::npos);
  };
  bad("BIGNUM", "at 0: expected BOOLEAN, TINYINT");
  bad("MAP<STRING>", "expected MAP with 2 type(s)");
  bad("POJO com.acme.X {a: INT, a: BIGINT}", "field 'a' named twice");
  bad("ROW<a LIST<INT>>", "ROW field 'a': LIST is not written as a SQL type yet");
  bad("BIGINT NOT", "expected NULL after NOT");
  bad("VARCHAR(0)", "expected a length of 1 to 2147483647");
}
