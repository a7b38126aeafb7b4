// tests/testlib/hostile_inputs.h - inputs built by hand to be as deep or as odd as a hostile
// file can make them, one per recursive decoder, with no test framework: shared by the unit
// tests, the CLI tests and the fuzz seed generator (tests/fuzz/make_stream_seeds.cc).
#pragma once

#include <string>

#include "types/serializer_snapshot.h"

namespace ckpt::test {

inline constexpr const char* kAvroSnapshotClass = "org.apache.flink.formats.avro.typeutils.AvroSerializerSnapshot";

// An AvroSerializerSnapshot (version 3: Flink strings) in the versioned form, holding `schema`.
std::string avro_snapshot(const std::string& schema, const std::string& type_class = "com.example.Event");
// Versioned snapshot bytes as a snapshot to write (its `raw`), without the parser's checks, which
// would refuse what these are meant to carry into a file.
SerializerSnapshot unparsed_snapshot(const std::string& versioned);

// A record whose namespace is an array: what made nlohmann's type_error escape.
std::string namespace_array_schema();
// `levels` unions nested in one another around "int" (two bytes per level).
std::string nested_union_schema(int levels);
// `levels` records nested through their only field (`inner`) around "long".
std::string nested_record_schema(int levels);

// ListSerializerSnapshots (composite, version 3) nested `levels` deep around a LongSerializer.
std::string nested_list_snapshot(int levels);

// TC_CLASSDESC of a serializable class "A" with one object field `next` of type "LA;", then
// `super`, its superclass descriptor (TC_NULL: none).
std::string java_class_a(const std::string& super = "\x70");
// A java.io.ObjectOutputStream stream: `levels` objects of class A, each the `next` field of the
// one before, the last one's null.
std::string nested_java_objects(int levels);
// Checkpoint properties (the V4+ trailer of `_metadata`) whose checkpointType field holds
// another CheckpointProperties object, `levels` deep.
std::string nested_checkpoint_properties(int levels);

// A V3 `_metadata` whose one subtask's managed keyed state is a key-groups handle whose stream
// is a key-groups handle, and so on `levels` deep.
std::string nested_keyed_handles_metadata(int levels);

}  // namespace ckpt::test
