// types/serializer_classes.h - the snapshot class names the parser and the decoders recognise.
//
// One table, so the snapshot parser (which must know body layouts) and the decoder factory
// (which must know value layouts) agree on what a class is.
#pragma once

#include <string_view>

namespace ckpt::snapshot_class {

// Package prefixes, as Flink spells them.
inline constexpr std::string_view kBase = "org.apache.flink.api.common.typeutils.base.";
inline constexpr std::string_view kArray = "org.apache.flink.api.common.typeutils.base.array.";
inline constexpr std::string_view kRuntime = "org.apache.flink.api.java.typeutils.runtime.";

// The serializer of a state with TTL (TtlStateFactory.TtlSerializer): last access, then value.
inline constexpr std::string_view kTtl = "org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializerSnapshot";

// Layout families of snapshot bodies.
enum class Layout {
  kSimple,      // SimpleTypeSerializerSnapshot: v3 empty, v<3 one utf
  kComposite,   // CompositeTypeSerializerSnapshot
  kPojo,
  kKryo,
  kEnum,
  kAvro,
  kClassOnly,   // one utf class name (Value, CopyableValue, Writable serializers)
  kTtlAware,    // bool + nested versioned snapshot
  kRowData,     // i32 n + n Java-serialized LogicalTypes + nested delegate
  kParameters,  // i32 parameters only (parameter_count())
  kJavaTypes,   // Java-serialized LogicalTypes, then their Java-serialized serializers
  kSortedMap,   // a Java-serialized comparator + nested delegate (key, value)
  kUnknown,
};

// The layout of a snapshot class' body; kUnknown for classes not in the table.
Layout layout_of(std::string_view snapshot_class);

// kParameters: how many i32 parameters the body holds. kJavaTypes: how many LogicalTypes lead
// the body (each followed later by one serializer object).
int parameter_count(std::string_view snapshot_class);
int java_type_count(std::string_view snapshot_class);

// The serializer class a snapshot class describes ("...LongSerializer$LongSerializerSnapshot"
// -> "...LongSerializer").
std::string_view strip_snapshot_suffix(std::string_view snapshot_class, std::string* storage);

}  // namespace ckpt::snapshot_class
