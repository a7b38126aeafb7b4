// Serializer snapshot parsing on hand-built bytes: forms, resynchronisation, refusals.
#include <catch2/catch.hpp>

#include "state/backend_meta.h"
#include "types/serializer_snapshot.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/snapshot_classes.h"

using namespace ckpt;
using test::kLongSnapshot;
using test::kStringSnapshot;

namespace {

const char* kTuple = "org.apache.flink.api.java.typeutils.runtime.TupleSerializerSnapshot";

void simple(ByteWriter& w, const char* cls) {
  w.utf(cls);
  w.i32(3);
}

// A TupleSerializerSnapshot (composite v3, outer v2, tuple class) of the given fields.
void tuple(ByteWriter& w, const std::vector<const char*>& fields) {
  w.utf(kTuple);
  w.i32(3);
  w.i32(911108);
  w.i32(2);
  w.utf("org.apache.flink.api.java.tuple.Tuple" + std::to_string(fields.size()));
  w.i32(1333245);
  w.i32(1);
  w.i32(static_cast<int32_t>(fields.size()));
  for (const char* f : fields) simple(w, f);
}

}  // namespace

TEST_CASE("a composite snapshot yields its outer data and nested snapshots in order", "[unit][state]") {
  // Proves the composite layout (formats/keyed-state.md §2.4) and that the tuple class is decoded from the outer data.
  ByteWriter w;
  w.i32(2);
  tuple(w, {kLongSnapshot, kStringSnapshot});
  ByteReader r(w.buffer(), 0x40);
  auto s = read_serializer_snapshot(r, SnapshotFraming::kProxy);
  REQUIRE(s.ok());
  CHECK(r.at_end());
  CHECK(s->form == SnapshotForm::kComposite);
  CHECK(s->serializer_class == "org.apache.flink.api.java.typeutils.runtime.TupleSerializer");
  CHECK(s->type_class == "org.apache.flink.api.java.tuple.Tuple2");
  CHECK(s->outer_version == 2);
  REQUIRE(s->nested.size() == 2);
  CHECK(s->nested[0].serializer_class == "org.apache.flink.api.common.typeutils.base.LongSerializer");
  CHECK(s->nested[1].form == SnapshotForm::kSimple);
  CHECK(s->offset == 0x44);
  CHECK(s->display_name() == "TupleSerializer<Tuple2>");
}

TEST_CASE("an unknown snapshot class is skipped up to the next plausible item and marked", "[unit][state]") {
  // Proves formats/keyed-state.md §2.7: a user snapshot inside a state meta info record does not stop the proxy.
  ByteWriter w;
  w.utf("my-state");
  w.i32(0);  // KEY_VALUE
  w.i32(1);
  w.utf("KEYED_STATE_TYPE");
  w.utf("VALUE");
  w.i32(2);
  w.utf("VALUE_SERIALIZER");
  w.i32(2);
  w.utf("com.example.MySerializer$MySnapshot");
  w.i32(1);
  w.utf("opaque user payload");
  w.utf("NAMESPACE_SERIALIZER");
  w.i32(2);
  simple(w, "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot");
  ByteReader r(w.buffer());
  auto m = read_state_meta_info(r);
  REQUIRE(m.ok());
  CHECK(r.at_end());
  CHECK(m->kind() == StateKind::kValue);
  REQUIRE(m->value_serializer() != nullptr);
  CHECK(m->value_serializer()->form == SnapshotForm::kUnknown);
  CHECK(m->value_serializer()->resynced);
  CHECK(m->namespace_serializer()->form == SnapshotForm::kSimple);
  // The unknown snapshot keeps its exact bytes, so the record writes back identically.
  ByteWriter again;
  REQUIRE(write_state_meta_info(again, *m).ok());
  CHECK(again.buffer() == w.buffer());

  // Without resynchronisation the same bytes are refused as not supported, at the class name.
  ByteReader strict(w.buffer());
  SnapshotReadOptions no_resync;
  no_resync.resync_unknown = false;
  auto refused = read_state_meta_info(strict, no_resync);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::kNotSupported);
  CHECK(refused.error().message == "unknown serializer snapshot class com.example.MySerializer$MySnapshot");
}

TEST_CASE("a snapshot proxy version other than 2 and a broken composite magic are refused at their offsets",
          "[unit][corrupt][state]") {
  // Proves the two refusals carry the absolute offset of the offending field.
  ByteWriter w;
  w.i32(1);
  simple(w, kLongSnapshot);
  ByteReader r(w.buffer(), 0x100);
  auto s = read_serializer_snapshot(r, SnapshotFraming::kProxy);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code == ErrorCode::kNotSupported);
  CHECK(s.error().offset == 0x100u);

  ByteWriter t;
  tuple(t, {kLongSnapshot});
  std::string bytes = t.buffer();
  size_t magic_at = 2 + std::string_view(kTuple).size() + 4;
  bytes[magic_at + 3] ^= 1;
  ByteReader b(bytes);
  auto bad = read_serializer_snapshot(b, SnapshotFraming::kVersioned);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().offset == magic_at);
  CHECK(bad.error().message.find("expected composite snapshot magic") == 0);
}

TEST_CASE("nesting deeper than the limit is refused instead of recursing without bound", "[unit][corrupt][state]") {
  // Proves a hostile chain of composite snapshots cannot exhaust the stack.
  ByteWriter w;
  const int depth = 200;
  for (int i = 0; i < depth; ++i) {
    w.utf("org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot");
    w.i32(3);
    w.i32(911108);
    w.i32(1);
    w.i32(1333245);
    w.i32(1);
    w.i32(1);
  }
  simple(w, kLongSnapshot);
  ByteReader r(w.buffer());
  auto s = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "serializer snapshots nested deeper than 64");
}

TEST_CASE("the keyed proxy reads version - compression - key serializer and states - and writes them back",
          "[unit][state]") {
  // Proves formats/keyed-state.md §4 on a minimal proxy, including the state-id order and a non-canonical true byte.
  ByteWriter w;
  w.i32(6);
  w.u8(2);  // Flink reads any non-zero byte as true
  w.i32(2);
  simple(w, kLongSnapshot);
  w.i16(1);
  w.utf("_timer_state/event_timer");
  w.i32(3);  // PRIORITY_QUEUE
  w.i32(0);
  w.i32(1);
  w.utf("VALUE_SERIALIZER");
  w.i32(2);
  simple(w, kLongSnapshot);
  ByteReader r(w.buffer());
  auto m = read_keyed_backend_meta(r);
  REQUIRE(m.ok());
  CHECK(r.at_end());
  CHECK(m->compression);
  REQUIRE(m->states.size() == 1);
  CHECK(m->states[0].kind() == StateKind::kPriorityQueue);
  CHECK(m->find("_timer_state/event_timer") == &m->states[0]);
  auto out = write_keyed_backend_meta(*m);
  REQUIRE(out.ok());
  CHECK(*out == w.buffer());

  ByteWriter old;
  old.i32(7);  // no Flink wrote it (versions 1-5: tests/unit/legacy_backend_meta_test.cc)
  ByteReader o(old.buffer());
  auto refused = read_keyed_backend_meta(o);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::kNotSupported);
}

TEST_CASE("a legacy TypeSerializerConfigSnapshot keeps its Java-serialized serializer and is opaque", "[unit][state]") {
  // Proves formats/keyed-state.md §2.6: version 0x7A53C4F0, the serialization proxy's version and framed Java bytes,
  // then the config's own version; the unframed rest ends where the next role key starts.
  ByteWriter w;
  w.utf("VALUE_SERIALIZER");
  w.i32(2);
  w.utf("org.apache.flink.api.common.typeutils.base.GenericTypeSerializerConfigSnapshot");
  w.i32(0x7A53C4F0);
  w.i32(1);
  w.i32(4);
  w.bytes(std::string("\xac\xed\x00\x05", 4));
  w.i32(1);
  w.utf("com.example.Event");
  size_t next = w.size();
  w.utf("NAMESPACE_SERIALIZER");
  w.i32(2);
  simple(w, "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot");
  ByteReader r(w.buffer());
  (void)r.utf();
  auto s = read_serializer_snapshot(r, SnapshotFraming::kProxy);
  REQUIRE(s.ok());
  CHECK(s->form == SnapshotForm::kLegacyConfig);
  CHECK(s->legacy_java_serializer == std::string("\xac\xed\x00\x05", 4));
  CHECK(s->legacy_config_version == 1);
  CHECK(r.position() == next);
}
