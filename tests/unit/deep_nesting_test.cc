// Every decoder that recurses as its input nests stops at its documented depth with an error at
// an offset, for a hand-built input 10,000 levels deep, on this thread and on a 256 KiB stack
// (smaller than any thread ckpt starts): serializer snapshots (64), Java object streams (64),
// the properties trailer (16), state handles in `_metadata` (32), and a decoded value as deep
// as the snapshot bound allows is printed on the small stack too. The Avro schema's bound is
// tested in avro_schema_test.cc.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "ckpt/metadata.h"
#include "format/java/java_serialization.h"
#include "format/java/java_object_stream.h"
#include "types/logical_types.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/child_process.h"
#include "testlib/hostile_inputs.h"
#include "support/json_text.h"

using namespace ckpt;

namespace {

constexpr size_t kSmallStack = size_t{256} << 10;

// The error fn() returns, run on this thread and on a small stack: both must be the same.
template <class F>
Error error_on_both_stacks(F fn) {
  std::optional<Error> here, small;
  auto first = fn();
  REQUIRE_FALSE(first.ok());
  here = first.error();
  test::run_on_thread(kSmallStack, [&] {
    auto r = fn();
    if (!r.ok()) small = r.error();
  });
  REQUIRE(small.has_value());
  CHECK(small->message == here->message);
  CHECK(small->offset == here->offset);
  return *here;
}

}  // namespace

TEST_CASE("serializer snapshots nested 10000 deep stop at 64 levels on a small stack", "[state][unit][corrupt]") {
  const std::string bytes = test::nested_list_snapshot(10000);
  Error e = error_on_both_stacks([&] {
    ByteReader r(bytes, 0x500);
    return read_serializer_snapshot(r, SnapshotFraming::kVersioned);
  });
  CHECK(e.message == "serializer snapshots nested deeper than 64");
  // The 65th nested snapshot, where the limit is met: 64 composite levels before it.
  const size_t level = bytes.size() - test::nested_list_snapshot(9999).size();
  CHECK(e.offset == 0x500 + 65 * level);
}

TEST_CASE("java object streams nested 10000 deep stop at 64 levels on a small stack", "[state][unit][corrupt]") {
  const std::string bytes = test::nested_java_objects(10000);
  Error e = error_on_both_stacks([&] {
    ByteReader r(bytes, 0x40);
    return java::read_object_stream(r);
  });
  CHECK(e.message == "java stream objects nested deeper than 64");
  REQUIRE(e.offset.has_value());
  CHECK(*e.offset > 0x40u);
  CHECK(*e.offset < 0x40u + bytes.size());
  // RowData snapshots read their logical types through this reader: the same bound holds.
  Error types = error_on_both_stacks([&] { return read_logical_types(bytes, 0x40, 1); });
  CHECK(types.message == e.message);
  CHECK(types.offset == e.offset);
  // Within the bound the same shape is read to its end.
  const std::string shallow = test::nested_java_objects(20);
  ByteReader r(shallow);
  auto v = java::read_object_stream(r);
  REQUIRE(v.ok());
  CHECK(r.at_end());
}

TEST_CASE("checkpoint properties nested 10000 deep stop at 16 levels on a small stack", "[state][unit][corrupt]") {
  const std::string bytes = test::nested_checkpoint_properties(10000);
  Error e = error_on_both_stacks([&] { return decode_checkpoint_properties(bytes, 0x80); });
  CHECK(e.message == "java stream objects nested deeper than 16");
  REQUIRE(e.offset.has_value());
  CHECK(*e.offset < 0x80u + bytes.size());
}

TEST_CASE("state handles nested 10000 deep in _metadata stop at 32 levels on a small stack", "[state][unit][corrupt]") {
  const std::string bytes = test::nested_keyed_handles_metadata(10000);
  Error e = error_on_both_stacks([&] { return decode_metadata(bytes, "deep/_metadata"); });
  CHECK(e.message == "state handles nested deeper than 32 levels");
  CHECK(e.file == "deep/_metadata");
  REQUIRE(e.offset.has_value());
  CHECK(*e.offset < bytes.size());
}

TEST_CASE("a value as deep as the snapshot bound allows decodes and prints on a small stack", "[state][unit]") {
  // Proves the JSON a decoder builds is bounded with its snapshot: the deepest list of lists
  // the parser accepts is read, written as text both ways and destroyed on 256 KiB.
  const int levels = 64;  // 64 lists around the Long: the snapshot parser's deepest
  const std::string snapshot = test::nested_list_snapshot(levels);
  ByteReader sr(snapshot);
  auto s = read_serializer_snapshot(sr, SnapshotFraming::kVersioned);
  REQUIRE(s.ok());
  auto d = make_decoder(*s);
  REQUIRE(d.ok());
  ByteWriter value;
  for (int i = 0; i < levels; ++i) value.i32(1);  // each list holds one element
  value.i64(7);
  const std::string expected = std::string(levels, '[') + "7" + std::string(levels, ']');
  std::string tree_text, direct_text;
  bool decoded = false;
  test::run_on_thread(kSmallStack, [&] {
    ByteReader r(value.buffer());
    auto v = decode_framed(**d, r, value.size());
    if (!v.ok()) return;
    decoded = true;
    tree_text = json_text(*v);
    ByteReader again(value.buffer());
    (void)decode_framed_json(**d, again, value.size(), direct_text);
  });
  REQUIRE(decoded);
  CHECK(tree_text == expected);
  CHECK(direct_text == expected);
}
