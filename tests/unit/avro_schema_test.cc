// The writer schema of AvroSerializerSnapshot is JSON from the file: read without exceptions,
// with its members' types checked and its nesting bounded, errors at the schema's offset.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/child_process.h"
#include "testlib/hostile_inputs.h"

using namespace ckpt;

namespace {

constexpr uint64_t kSnapshotAt = 0x1000;  // where the snapshot lies in its (imagined) file

// The schema string's absolute offset in test::avro_snapshot(schema): class name, version, the
// type class as a Flink string (one varint byte for its length here).
uint64_t schema_offset() {
  return kSnapshotAt + 2 + std::string(test::kAvroSnapshotClass).size() + 4 + 1 +
         std::string("com.example.Event").size();
}

// The Avro snapshot holding `schema` read at kSnapshotAt, then make_decoder() of it.
Result<std::unique_ptr<ValueDecoder>> avro_decoder_of(const std::string& schema) {
  std::string bytes = test::avro_snapshot(schema);
  ByteReader r(bytes, kSnapshotAt);
  auto s = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
  if (!s.ok()) return s.error();
  return make_decoder(*s);
}

// The error message, or "" if the decoder was made.
std::string avro_error_of(const std::string& schema) {
  auto d = avro_decoder_of(schema);
  return d.ok() ? std::string() : d.error().message;
}

// An Avro snapshot as a caller may build it without the parser (as fuzz_avro_schema does).
SerializerSnapshot by_hand(const std::string& schema) {
  SerializerSnapshot s;
  s.snapshot_class = test::kAvroSnapshotClass;
  s.serializer_class = "org.apache.flink.formats.avro.typeutils.AvroSerializer";
  s.version = 3;
  s.form = SnapshotForm::kOpaqueKnown;
  s.type_class = "com.example.Event";
  s.avro_schema = schema;
  s.avro_schema_offset = schema_offset();
  return s;
}

}  // namespace

TEST_CASE("an avro schema whose namespace is an array is an error at the schema string's offset", "[state][unit][corrupt]") {
  // Proves the schema's JSON is read through checked accessors: nlohmann's type_error used to
  // escape make_decoder (an abort on a worker thread). Now the snapshot parser refuses the
  // schema where it lies in the file, and make_decoder refuses it in a snapshot built by hand.
  const std::string expected =
      "avro schema of com.example.Event: 'namespace' of record Event must be a string, found array";
  std::string bytes = test::avro_snapshot(test::namespace_array_schema());
  ByteReader r(bytes, kSnapshotAt);
  std::optional<Result<SerializerSnapshot>> s;
  REQUIRE_NOTHROW(s.emplace(read_serializer_snapshot(r, SnapshotFraming::kVersioned)));
  REQUIRE_FALSE(s->ok());
  CHECK(s->error().code == ErrorCode::kCorruption);
  CHECK(s->error().offset == schema_offset());
  CHECK(s->error().message == expected);

  std::optional<Result<std::unique_ptr<ValueDecoder>>> d;
  REQUIRE_NOTHROW(d.emplace(make_decoder(by_hand(test::namespace_array_schema()))));
  REQUIRE_FALSE(d->ok());
  CHECK(d->error().code == ErrorCode::kCorruption);
  CHECK(d->error().offset == schema_offset());
  CHECK(d->error().message == expected);

  // The offset the parser records is the schema string's, for every snapshot version.
  const std::string good_bytes = test::avro_snapshot(R"("long")");
  ByteReader good_reader(good_bytes, kSnapshotAt);
  auto good = read_serializer_snapshot(good_reader, SnapshotFraming::kVersioned);
  REQUIRE(good.ok());
  CHECK(good->avro_schema_offset == schema_offset());
}

TEST_CASE("avro schema members of the wrong type are errors naming what was expected", "[state][unit][corrupt]") {
  // Proves every member the parser reads is type-checked first (each of these threw before).
  CHECK(avro_error_of(R"({"type":"record","name":7,"fields":[]})")
            .find("'name' of a record must be a string, found number") != std::string::npos);
  CHECK(avro_error_of(R"({"type":"enum","name":"E","symbols":["A",1]})")
            .find("a symbol of enum E must be a string, found number") != std::string::npos);
  CHECK(avro_error_of(R"({"type":"enum","name":"E","symbols":"A"})")
            .find("'symbols' of enum E must be an array, found string") != std::string::npos);
  CHECK(avro_error_of(R"({"type":"record","name":"R","fields":{"a":1}})")
            .find("'fields' of record R must be an array, found object") != std::string::npos);
  CHECK(avro_error_of(R"({"type":"record","name":"R","fields":[{"name":["a"],"type":"int"}]})")
            .find("'name' of a field of record R must be a string, found array") != std::string::npos);
  CHECK(avro_error_of(R"({"type":"record","name":"R","fields":[7]})").find("a field of record R without a type") !=
        std::string::npos);
  CHECK(avro_error_of(R"({"type":"fixed","name":"F","size":-3})")
            .find("'size' of fixed F must be a non-negative integer, found -3") != std::string::npos);
  CHECK(avro_error_of(R"({"type":"fixed","name":"F","size":"16"})")
            .find("'size' of fixed F must be a non-negative integer, found string") != std::string::npos);
  CHECK(avro_error_of(R"({"type":"array"})").find("array without items") != std::string::npos);
  CHECK(avro_error_of("{\"type\":").find("not valid JSON") != std::string::npos);
  CHECK(avro_error_of("17").find("a type must be a string, an array or an object with a type, found number") !=
        std::string::npos);
  // A null namespace is no namespace, as Avro's own parser reads it.
  CHECK(avro_error_of(R"({"type":"record","name":"R","namespace":null,"fields":[{"name":"a","type":"int"}]})").empty());
  // A name the schema does not define is not corruption ckpt can prove: the values stay opaque.
  auto undefined = avro_decoder_of(R"({"type":"record","name":"R","fields":[{"name":"a","type":"Missing"}]})");
  REQUIRE(undefined.ok());
  CHECK_FALSE((*undefined)->decodable());
}

TEST_CASE("an avro schema nested 10000 levels deep is refused before a tree is built - on small stacks too",
          "[state][unit][corrupt]") {
  // Proves the nesting bound comes before parsing and recursion: a 7,200-level schema used to
  // overflow a worker's stack. Run here on this thread, on a std::thread and on a 256 KiB stack.
  for (const std::string& schema : {test::nested_union_schema(10000), test::nested_record_schema(10000)}) {
    for (size_t stack : {size_t{0}, size_t{256} << 10}) {
      std::optional<Result<std::unique_ptr<ValueDecoder>>> read, by_hand_made;
      test::run_on_thread(stack, [&] {
        read.emplace(avro_decoder_of(schema));
        by_hand_made.emplace(make_decoder(by_hand(schema)));
      });
      for (auto* d : {&read, &by_hand_made}) {
        REQUIRE(d->has_value());
        REQUIRE_FALSE((*d)->ok());
        CHECK((*d)->error().offset == schema_offset());
        CHECK((*d)->error().message.find("JSON nested deeper than 256 levels") != std::string::npos);
      }
    }
    CHECK(avro_error_of(schema).find("JSON nested deeper than 256 levels") != std::string::npos);
  }
  // Nesting within the bound is an ordinary schema.
  CHECK(avro_error_of(test::nested_union_schema(200)).empty());
  CHECK(avro_error_of(test::nested_record_schema(80)).empty());
}

TEST_CASE("avro values nested deeper than 64 are refused at their offset on a small stack", "[state][unit][corrupt]") {
  // Proves the value decoder's own bound: a schema of 200 nested unions is valid, a value
  // choosing the first branch 200 times stops at the 65th.
  auto d = avro_decoder_of(test::nested_union_schema(200));
  REQUIRE(d.ok());
  ByteWriter value;
  for (int i = 0; i < 200; ++i) value.i32(0);
  value.i32(42);
  std::optional<Result<nlohmann::json>> v;
  test::run_on_thread(size_t{256} << 10, [&] {
    ByteReader r(value.buffer(), 0x2000);
    v.emplace(decode_framed(**d, r, value.size()));
  });
  REQUIRE_FALSE(v->ok());
  CHECK(v->error().message == "avro values nested deeper than 64");
  CHECK(v->error().offset == 0x2000u + 65 * 4);
  // 60 levels decode to the innermost int.
  auto shallow = avro_decoder_of(test::nested_union_schema(60));
  REQUIRE(shallow.ok());
  ByteWriter ok;
  for (int i = 0; i < 60; ++i) ok.i32(0);
  ok.i32(42);
  ByteReader r(ok.buffer());
  auto out = decode_framed(**shallow, r, ok.size());
  REQUIRE(out.ok());
  CHECK(*out == 42);
}
