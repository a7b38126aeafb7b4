// The type text of a load spec, read into the snapshots Flink's serializers write: POJO fields in
// PojoTypeInfo's order (by name), SQL rows with their logical types, and bad text refused at its offset.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ops/load/spec_types.h"
#include "testlib/java_streams.h"
#include "testlib/table_bytes.h"

using namespace ckpt;

namespace {

// The snapshot a spec writes for the ROW `type`, its logical types read back.
SerializerSnapshot spec_row(const char* type) {
  auto s = spec_type_snapshot(type);
  INFO(type << ": " << (s.ok() ? "" : s.error().to_string()));
  REQUIRE(s.ok());
  REQUIRE(s->form == SnapshotForm::kRowData);
  REQUIRE(s->logical_types_decoded);
  return *s;
}

}  // namespace

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
  const SerializerSnapshot s = spec_row(
      "ROW<p DECIMAL(10, 2), d DECIMAL, big DECIMAL(38), ts TIMESTAMP(3) *ROWTIME* NOT NULL, t TIMESTAMP, "
      "lt timestamp_ltz(9) *proctime*>");
  const auto& t = s.logical_types;
  REQUIRE(t.size() == 6);
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
  REQUIRE(s.nested.size() == 6);
  CHECK(s.nested[0].display_name() == "DecimalDataSerializer$DecimalSerializer");
  CHECK(s.nested[0].parameters == std::vector<int32_t>{10, 2});
  CHECK(s.nested[3].display_name() == "TimestampDataSerializer");
  CHECK(s.nested[3].parameters == std::vector<int32_t>{3});
  CHECK(s.nested[5].parameters == std::vector<int32_t>{9});
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
  bad("ROW<a LIST<INT>>", "type \"ROW<a LIST<INT>>\", at 6: ROW field 'a': LIST is not written as a SQL type yet");
  bad("BIGINT NOT", "expected NULL after NOT");
  bad("VARCHAR(0)", "expected a length of 1 to 2147483647");
  bad("ROW<a DECIMAL(39, 2)>", "at 14: expected a precision of 1 to 38");
  bad("ROW<a DECIMAL(5, 6)>", "at 17: expected a scale of 0 to 5");
  bad("ROW<a TIMESTAMP(10)>", "expected a precision of 0 to 9");
  bad("ROW<a TIMESTAMP(3) *EVENTTIME*>", "expected ROWTIME or PROCTIME after '*'");
  bad("DECIMAL(10, 2)", "DECIMAL: a SQL type, written only as a field of a ROW");
  bad("LIST<TIMESTAMP(3)>", "TIMESTAMP: a SQL type, written only as a field of a ROW");
  bad("DATE", "type \"DATE\", at 0: DATE: a SQL type, written only as a field of a ROW");
  bad("LIST<TIME(3)>", "at 5: TIME: a SQL type, written only as a field of a ROW");
  bad("CHAR(3)",
      "CHAR: a SQL type, written only as a field of a ROW (its DataStream forms are other classes; CHAR "
      "alone is Java's char)");
  bad("ROW<a TIME(10)>", "at 11: expected a precision of 0 to 9");
  bad("ROW<a BINARY(0)>", "at 13: expected a length of 1 to 2147483647");
  bad("ROW<a CHAR(3", "at 12: expected ')'");
  bad("ROW<a INT, b ROW<c INT, a INT>, a BIGINT>", "at 32: expected a field name not used before in this ROW ('a' is)");
  bad("ROW<` ` INT>", "at 4: expected a field name");
  bad("ROW<a INT 'no end>", "at 10: expected the description's closing quote");
  bad("ROW<a ROW<b MAP<INT, INT>>>", "at 12: ROW field 'b': MAP is not written as a SQL type yet");
  // 16 ROWs in ROWs are written and read back; the 17th (at 16 * 6) is refused where it starts.
  std::string deep = "INT";
  for (int i = 0; i < 16; ++i) deep = "ROW<a " + deep + ">";
  auto sixteen = spec_type_snapshot(deep);
  REQUIRE(sixteen.ok());
  CHECK(sixteen->logical_types_decoded);
  deep = "ROW<a " + deep + ">";
  bad(deep.c_str(), "at 96: expected ROWs nested at most 16 deep");
}

namespace {

// The Java-serialized LogicalType of each field of the ROW a spec writes for `type`.
std::vector<std::string> spec_field_types(const char* type) {
  auto s = spec_type_snapshot(type);
  INFO(type << ": " << (s.ok() ? "" : s.error().to_string()));
  REQUIRE(s.ok());
  return test::row_data_type_streams(s->raw);
}

}  // namespace

TEST_CASE("load spec types write DATE TIME BINARY VARBINARY CHAR and nested ROW fields as a JVM serializes them",
          "[ops]") {
  // The SQL corpus has no DATE, TIME, BINARY, VARBINARY or CHAR field, and its one nested ROW sits
  // in a row with a RAW field: these bytes are a JVM's ObjectOutputStream's, writing stand-ins
  // with the serializable fields of Flink's org.apache.flink.table.types.logical classes
  // (tests/testlib/java/Gen.java: kRowTypes and kSpecRowTypes). The nested ROW pins the handles:
  // RowField's descriptor and IntType's met again, the INTEGER and ROW constants referred to, the
  // UnmodifiableList's list a reference to its ArrayList, a description and a quoted name.
  const std::vector<std::string> jvm = test::split_java_streams(test::from_hex(test::java_streams::kRowTypes));
  REQUIRE(jvm.size() == static_cast<size_t>(test::kRowTypeCount));
  // kRowTypes' CHAR(3), BINARY(2), VARBINARY(50), DATE, TIME(0) and ROW<a INT, b VARCHAR(100)>.
  const std::vector<std::string> mine =
      spec_field_types("ROW<c CHAR(3), b BINARY(2), vb VARBINARY(50), d DATE, t TIME, r ROW<a INT, b VARCHAR(100)>>");
  REQUIRE(mine.size() == 6);
  CHECK(mine[0] == jvm[9]);
  CHECK(mine[1] == jvm[11]);
  CHECK(mine[2] == jvm[12]);
  CHECK(mine[3] == jvm[13]);
  CHECK(mine[4] == jvm[14]);
  CHECK(mine[5] == jvm[21]);
  const std::vector<std::string> spec_jvm = test::split_java_streams(test::from_hex(test::java_streams::kSpecRowTypes));
  REQUIRE(spec_jvm.size() == static_cast<size_t>(test::kSpecRowTypeCount));
  const std::vector<std::string> spec = spec_field_types(
      "ROW<d DATE, t TIME(3) NOT NULL, b BYTES, vb VARBINARY(16), bn BINARY(4) NOT NULL, c CHAR(5), c1 CHAR, "
      "n ROW<x INT, y INT NOT NULL, s ROW<z STRING 'zed', `it's` DATE, t TIMESTAMP(3)>> NOT NULL>");
  REQUIRE(spec.size() == spec_jvm.size());
  for (size_t i = 0; i < spec.size(); ++i) {
    INFO("field " << i);
    CHECK(spec[i] == spec_jvm[i]);
  }
}

TEST_CASE("load spec types write the table runtime's serializers of DATE TIME BINARY CHAR and nested ROW fields",
          "[ops]") {
  // InternalSerializers.create: DATE and TIME are IntSerializer, BINARY and VARBINARY
  // BytePrimitiveArraySerializer, CHAR StringDataSerializer, a ROW a RowDataSerializer of its own
  // fields; the decoder reads the types back with their lengths, precisions and field names.
  const SerializerSnapshot s = spec_row(
      "ROW<d DATE, t TIME(3) NOT NULL, b BYTES, vb VARBINARY(16), bn BINARY(4), c CHAR(5), "
      "n ROW<x INT, `we``ird` ROW<z STRING 'zed'>>>");
  const auto& t = s.logical_types;
  REQUIRE(t.size() == 7);
  CHECK(t[0].root == "DATE");
  CHECK(t[1].root == "TIME_WITHOUT_TIME_ZONE");
  CHECK(t[1].precision == 3);
  CHECK_FALSE(t[1].nullable);
  CHECK(t[2].root == "VARBINARY");
  CHECK(t[2].length == INT32_MAX);
  CHECK(t[3].length == 16);
  CHECK(t[4].root == "BINARY");
  CHECK(t[4].length == 4);
  CHECK(t[5].root == "CHAR");
  CHECK(t[5].length == 5);
  CHECK(t[6].root == "ROW");
  CHECK(t[6].field_names == std::vector<std::string>{"x", "we`ird"});
  REQUIRE(t[6].children.size() == 2);
  REQUIRE(t[6].children[1].children.size() == 1);
  CHECK(t[6].children[1].children[0].root == "VARCHAR");
  std::vector<std::string> fields;
  for (const SerializerSnapshot& n : s.nested) fields.push_back(n.display_name());
  CHECK(fields == std::vector<std::string>{"IntSerializer", "IntSerializer", "BytePrimitiveArraySerializer",
                                           "BytePrimitiveArraySerializer", "BytePrimitiveArraySerializer",
                                           "StringDataSerializer", "RowDataSerializer"});
  REQUIRE(s.nested[6].form == SnapshotForm::kRowData);
  REQUIRE(s.nested[6].nested.size() == 2);
  CHECK(s.nested[6].nested[1].form == SnapshotForm::kRowData);
  CHECK(s.nested[6].nested[1].logical_types.at(0).root == "VARCHAR");
  // At the top (a DataStream type) the bytes types are byte[]; DATE, TIME and CHAR(n) are refused.
  auto bytes = spec_type_snapshot("VARBINARY(16)");
  REQUIRE(bytes.ok());
  CHECK(bytes->display_name() == "BytePrimitiveArraySerializer");
}
