// types/legacy_serializers.h - the serializers Flink 1.2-1.6 Java-serialized, read as snapshot trees.
//
// Before Flink 1.7 the type information beside state was the TypeSerializer object itself,
// Java-serialized (TypeSerializerSerializationProxy), next to a TypeSerializerConfigSnapshot
// that often said less (formats/serializers.md §15). The object's fields are self-describing
// in the Java stream: a TupleSerializer's tupleClass and fieldSerializers, a case class
// serializer's (an anonymous subclass the Scala macro generated) the same, an OptionSerializer's
// elemSerializer... So the serializer tree reads without the job's classes, and is given here as
// the TypeSerializerSnapshot tree Flink 1.7+ writes for the same serializer, which the value
// decoders already understand. Bytes are not produced: the result is a model, never written.
#pragma once

#include <optional>
#include <string_view>

#include "format/java/java_object_stream.h"
#include "types/serializer_snapshot.h"

namespace ckpt {

// The snapshot Flink 1.7+ writes for the serializer `serializer` (a Java-serialized
// TypeSerializer object), or nullopt for a serializer not in formats/serializers.md §15.
// Nested serializers that are not understood become snapshots of form kUnknown naming their
// class, so a container's values stay opaque rather than misread.
std::optional<SerializerSnapshot> snapshot_of_java_serializer(const java::Value& serializer);

// The same from a kLegacyConfig snapshot's legacy_java_serializer bytes; nullopt if they are
// not a readable Java stream or not understood.
std::optional<SerializerSnapshot> legacy_equivalent(const SerializerSnapshot& legacy);

// Give a kLegacyConfig snapshot the nested serializers and type class of its Java-serialized
// serializer (serializer_snapshot.h), so that LIST and MAP states find their element serializers
// as with a current snapshot. Leaves it unchanged where the serializer is not understood.
void attach_legacy_nested(SerializerSnapshot& legacy);

}  // namespace ckpt
