// types/snapshot_bytes.h - serializer snapshots as Flink writes them, for the project's writers.
//
// `ckpt generate`, the change-log tests and the fuzz seeds all need the same few snapshot forms;
// one definition keeps their bytes in step with formats/serializers.md.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "support/byte_writer.h"

namespace ckpt {

// The snapshot class of byte[] values (BytePrimitiveArraySerializer), a simple snapshot.
inline constexpr const char* kBytePrimitiveArraySnapshot =
    "org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer$"
    "BytePrimitiveArraySerializerSnapshot";

// A SimpleTypeSerializerSnapshot in its versioned form (formats/keyed-state.md §2.2, §2.3): class,
// version 3, no body.
inline void write_simple_snapshot(ByteWriter& w, const char* cls) {
  w.utf(cls);
  w.i32(3);
}

// A CompositeTypeSerializerSnapshot (formats/keyed-state.md §2.4): class, version 3, the composite's magic number and
// version 1, outer version 1 with no outer data, then the nested simple snapshots.
// The head of a composite snapshot whose `count` nested snapshots the caller writes next.
inline void write_composite_head(ByteWriter& w, const char* cls, int32_t count) {
  w.utf(cls);
  w.i32(3);
  w.i32(911108);
  w.i32(1);
  w.i32(1333245);
  w.i32(1);
  w.i32(count);
}

inline void write_composite_snapshot(ByteWriter& w, const char* cls, std::initializer_list<const char*> nested) {
  write_composite_head(w, cls, static_cast<int32_t>(nested.size()));
  for (const char* n : nested) write_simple_snapshot(w, n);
}

}  // namespace ckpt
