// Hostile inputs built from the formats' grammars (formats/serializers.md, formats/keyed-state.md §2,
// formats/metadata.md §9), not from any real snapshot.
#include "testlib/hostile_inputs.h"

#include "support/byte_writer.h"

namespace ckpt::test {
namespace {

// StringValue.writeString of an ASCII string: varint7 (length + 1), then one byte per unit.
void flink_string(ByteWriter& w, const std::string& s) {
  w.varint(s.size() + 1);
  w.bytes(s);
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

std::string avro_snapshot(const std::string& schema, const std::string& type_class) {
  ByteWriter w;
  (void)w.utf(kAvroSnapshotClass);
  w.i32(3);
  flink_string(w, type_class);
  flink_string(w, schema);
  return w.take();
}

SerializerSnapshot unparsed_snapshot(const std::string& versioned) {
  SerializerSnapshot s;
  s.raw = versioned;
  return s;
}

std::string namespace_array_schema() {
  return R"({"type":"record","name":"Event","namespace":["com","example"],"fields":[{"name":"id","type":"long"}]})";
}

std::string nested_union_schema(int levels) { return repeat("[", levels) + "\"int\"" + repeat("]", levels); }

std::string nested_record_schema(int levels) {
  return repeat(R"({"type":"record","name":"R","fields":[{"name":"inner","type":)", levels) + "\"long\"" +
         repeat("}]}", levels);
}

std::string nested_list_snapshot(int levels) {
  ByteWriter w;
  for (int i = 0; i < levels; ++i) {
    (void)w.utf("org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot");
    w.i32(3);
    w.i32(911108);   // CompositeTypeSerializerSnapshot's magic
    w.i32(1);        // outer version
    w.i32(1333245);  // NestedSerializersSnapshotDelegate's magic
    w.i32(1);
    w.i32(1);        // one nested snapshot: the next level
  }
  (void)w.utf("org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot");
  w.i32(3);
  return w.take();
}

std::string java_class_a(const std::string& super) {
  ByteWriter w;
  w.u8(0x72);
  (void)w.utf("A");
  w.u64(1);     // serialVersionUID
  w.u8(0x02);   // SC_SERIALIZABLE
  w.u16(1);
  w.u8('L');
  (void)w.utf("next");
  w.u8(0x74);   // its type, a new string
  (void)w.utf("LA;");
  w.u8(0x78);   // no class annotations
  w.bytes(super);
  return w.take();
}

std::string nested_java_objects(int levels) {
  ByteWriter w;
  w.u16(0xACED);
  w.u16(5);
  for (int i = 0; i < levels; ++i) {
    w.u8(0x73);  // TC_OBJECT
    if (i == 0) {
      w.bytes(java_class_a());  // handle 0x7e0000; its type string 0x7e0001
    } else {
      w.u8(0x71);  // TC_REFERENCE to A's descriptor
      w.u32(0x7E0000);
    }
  }
  w.u8(0x70);  // the last `next` is null
  return w.take();
}

std::string nested_checkpoint_properties(int levels) {
  ByteWriter w;
  w.u16(0xACED);
  w.u16(5);
  for (int i = 0; i < levels; ++i) {
    w.u8(0x73);
    if (i == 0) {
      // CheckpointProperties' descriptor as Flink writes it (handle 0x7e0000).
      w.u8(0x72);
      (void)w.utf("org.apache.flink.runtime.checkpoint.CheckpointProperties");
      w.u64(2);
      w.u8(0x02);
      w.u16(8);
      for (const char* f : {"discardCancelled", "discardFailed", "discardFinished", "discardSubsumed",
                            "discardSuspended", "forced", "unclaimed"}) {
        w.u8('Z');
        (void)w.utf(f);
      }
      w.u8('L');
      (void)w.utf("checkpointType");
      w.u8(0x74);
      (void)w.utf("Lorg/apache/flink/runtime/checkpoint/SnapshotType;");
      w.u8(0x78);
      w.u8(0x70);
    } else {
      w.u8(0x71);
      w.u32(0x7E0000);
    }
    for (int b = 0; b < 7; ++b) w.u8(0);  // the boolean fields; checkpointType follows
  }
  w.u8(0x70);
  return w.take();
}

std::string nested_keyed_handles_metadata(int levels) {
  ByteWriter w;
  w.i32(0x4960672D);  // magic
  w.i32(3);           // version
  w.i64(1);           // checkpoint id
  w.i32(0);           // master states
  w.i32(1);           // operators
  for (int i = 0; i < 16; ++i) w.u8(static_cast<uint8_t>(i));  // operator id
  w.i32(1);  // parallelism
  w.i32(1);  // max parallelism
  w.u8(0);   // no coordinator state
  w.i32(1);  // subtasks
  w.i32(0);  // subtask index
  w.i32(0);  // managed operator state
  w.i32(0);  // raw operator state
  for (int i = 0; i <= levels; ++i) {
    w.u8(3);   // a key-groups handle: empty range, then its stream, which is the next one
    w.i32(0);
    w.i32(0);
  }
  return w.take();
}

}  // namespace ckpt::test
