// tests/testlib/pojo_snapshots.h - POJO and Kryo serializer snapshots built by hand, in the bytes
// Flink writes them (formats/keyed-state.md §2.5), for the tests of the upgrade rules and rewrite.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "support/byte_writer.h"

namespace ckpt::test {

// Writes one nested versioned snapshot.
using SnapshotWriter = std::function<void(ByteWriter&)>;

inline constexpr uint64_t kOptionalMapHeader = 0x4F2C69A3D70;  // LinkedOptionalMapSerializer
inline constexpr const char* kKryoSnapshot = "org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializerSnapshot";
inline constexpr const char* kPojoSnapshot = "org.apache.flink.api.java.typeutils.runtime.PojoSerializerSnapshot";

inline void write_empty_optional_map(ByteWriter& w) {
  w.u64(kOptionalMapHeader);
  w.i32(0);
}

// KryoSerializerSnapshot v2: the type class, then registrations, default serializers and
// default serializer classes (LinkedOptionalMaps), empty here.
inline void write_kryo_snapshot(ByteWriter& w, const char* type) {
  w.utf(kKryoSnapshot);
  w.i32(2);
  w.utf(type);
  for (int i = 0; i < 3; ++i) write_empty_optional_map(w);
}

// PojoSerializerSnapshot v2: the class, its fields (key frame: declaring class and name; value
// frame: the field's versioned snapshot), no registered or non-registered subclasses.
inline void write_pojo_snapshot(ByteWriter& w, const char* cls,
                                const std::vector<std::pair<const char*, SnapshotWriter>>& fields) {
  w.utf(kPojoSnapshot);
  w.i32(2);
  w.utf(cls);
  w.u64(kOptionalMapHeader);
  w.i32(static_cast<int32_t>(fields.size()));
  for (const auto& [name, snapshot] : fields) {
    w.utf(name);
    ByteWriter key;
    key.utf(cls);
    key.utf(name);
    w.boolean(true);
    w.i32(static_cast<int32_t>(key.size()));
    w.bytes(key.buffer());
    ByteWriter value;
    snapshot(value);
    w.boolean(true);
    w.i32(static_cast<int32_t>(value.size()));
    w.bytes(value.buffer());
  }
  write_empty_optional_map(w);
  write_empty_optional_map(w);
}

}  // namespace ckpt::test
