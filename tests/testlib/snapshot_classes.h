// tests/testlib/snapshot_classes.h - class names of Flink's serializer snapshots, for the tests
// and seed programs that build snapshots by hand: one spelling of each, so that none drifts.
#pragma once

namespace ckpt::test {

inline constexpr const char* kLongSnapshot =
    "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot";
inline constexpr const char* kStringSnapshot =
    "org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot";
inline constexpr const char* kListSnapshot = "org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot";
inline constexpr const char* kMapSnapshot = "org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot";
// Flink 2.0's SetSerializerSnapshot (flink-core .../typeutils/base/SetSerializerSnapshot.java).
inline constexpr const char* kSetSnapshot = "org.apache.flink.api.common.typeutils.base.SetSerializerSnapshot";
inline constexpr const char* kIntSnapshot =
    "org.apache.flink.api.common.typeutils.base.IntSerializer$IntSerializerSnapshot";
inline constexpr const char* kTtlSnapshot = "org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializerSnapshot";
inline constexpr const char* kVoidSnapshot =
    "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot";

}  // namespace ckpt::test
