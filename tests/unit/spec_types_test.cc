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

TEST_CASE("load spec types write DECIMAL and TIMESTAMP fields of SQL rows with precision and scale and time attribute",
          "[ops]") {
  auto s = spec_type_snapshot(
      "ROW<p DECIMAL(10, 2), d DECIMAL, big DECIMAL(38), ts TIMESTAMP(3) *ROWTIME* NOT NULL, t TIMESTAMP, "
      "lt timestamp_ltz(9) *proctime*>");
  REQUIRE(s.ok());
  REQUIRE(s->logical_types_decoded);
  REQUIRE(s->logical_types.size() == 6);
  const auto& t = s->logical_types;
  CHECK(t[0].root == "DECIMAL");
  CHECK(t[0].precision == 10);
  CHECK(t[0].scale == 2);
  CHECK(t[1].precision == 10);  // DecimalType's defaults
  CHECK(t[1].scale == 0);
  CHECK(t[2].precision == 38);
  CHECK(t[2].scale == 0);
  CHECK(t[3].root == "TIMESTAMP_WITHOUT_TIME_ZONE");
  CHECK(t[3].precision == 3);
  CHECK(t[3].timestamp_kind == "ROWTIME");
  CHECK_FALSE(t[3].nullable);
  CHECK(t[4].precision == 6);
  CHECK(t[4].timestamp_kind == "REGULAR");
  CHECK(t[5].root == "TIMESTAMP_WITH_LOCAL_TIME_ZONE");
  CHECK(t[5].precision == 9);
  CHECK(t[5].timestamp_kind == "PROCTIME");
  REQUIRE(s->nested.size() == 6);
  CHECK(s->nested[0].display_name() == "DecimalDataSerializer$DecimalSerializer");
  CHECK(s->nested[0].parameters == std::vector<int32_t>{10, 2});
  CHECK(s->nested[3].display_name() == "TimestampDataSerializer");
  CHECK(s->nested[3].parameters == std::vector<int32_t>{3});
  CHECK(s->nested[5].parameters == std::vector<int32_t>{9});
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
  bad("ROW<a DECIMAL(39, 2)>", "at 14: expected a precision of 1 to 38");
  bad("ROW<a DECIMAL(5, 6)>", "at 17: expected a scale of 0 to 5");
  bad("ROW<a TIMESTAMP(10)>", "expected a precision of 0 to 9");
  bad("ROW<a TIMESTAMP(3) *EVENTTIME*>", "expected ROWTIME or PROCTIME after '*'");
  bad("DECIMAL(10, 2)", "DECIMAL: a SQL type, written only as a field of a ROW");
  bad("LIST<TIMESTAMP(3)>", "TIMESTAMP: a SQL type, written only as a field of a ROW");
}
