// types/value_decoders.h - the decoder families behind make_decoder() (value_decoder.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "types/value_decoder.h"

namespace ckpt::decoders {

using DecoderPtr = std::unique_ptr<ValueDecoder>;

// Basic types of typeutils.base / .array, Flink Value types, dates, windows, namespaces;
// nullptr if `snapshot_class` is none of them.
DecoderPtr make_scalar(const SerializerSnapshot& s);
// Serializers that need the job's classes: always succeeds.
DecoderPtr make_opaque(const SerializerSnapshot& s, std::string why);
// Flink's JavaSerializer (its snapshot, or a legacy config snapshot holding one): values
// decoded by types/java_values.h; nullptr for other serializers.
DecoderPtr make_java(const SerializerSnapshot& s);
// A legacy config snapshot whose Java-serialized serializer is one of Flink's field-less
// singletons (LongSerializer, StringSerializer, VoidNamespaceSerializer, ...); else nullptr.
DecoderPtr make_java_singleton(const SerializerSnapshot& s);
// KryoSerializer of a JDK type whose values Kryo writes with its own registrations (boxed
// primitives, String, Object holding those, Throwable: Java-serialized); nullptr for others.
DecoderPtr make_kryo(const SerializerSnapshot& s);
// Containers and records whose nested decoders are built by make_decoder(); nullptr if the
// class is none of them. Errors for inconsistent snapshots.
Result<DecoderPtr> make_structured(const SerializerSnapshot& s);
// Avro records with the writer schema stored in the snapshot (Flink's DataOutputEncoder layout).
Result<DecoderPtr> make_avro(const SerializerSnapshot& s);
// The CEP library's NFAState, shared buffer ids, nodes, edges and Lockable; nullptr for other
// classes. Errors for inconsistent snapshots.
Result<DecoderPtr> make_cep(const SerializerSnapshot& s);
// SQL RowData (BinaryRowData layout), from the snapshot's logical types.
Result<DecoderPtr> make_row_data(const SerializerSnapshot& s);
// A value of `type` as the table runtime's top-level serializer writes it: i32 size, then
// BinaryRowData (ROW, STRUCTURED_TYPE), BinaryArrayData (ARRAY) or BinaryMapData (MAP,
// MULTISET); nullptr for other roots. `internal` is that serializer's snapshot, if known (it
// supplies the serializers of RAW fields). ArrayData / MapData snapshots, ExternalSerializer.
// `at` is the offset errors about the types carry (the snapshot's).
Result<DecoderPtr> make_binary_value(const LogicalType& type, const SerializerSnapshot* internal,
                                     const std::string& serializer_class, uint64_t at);
// Serializers of the table runtime other than RowData: StringData, DecimalData, TimestampData,
// RawValueData, ExternalSerializer, ArrayData, MapData, BinaryRowData, NullSerializer, and
// the legacy config snapshots that Java-serialize one of them; nullptr for other classes.
Result<DecoderPtr> make_table(const SerializerSnapshot& s);
// The decoder of a RAW value's bytes: from its RawValueDataSerializer snapshot when there is
// one, else from the serializer class its RawType names (singletons only), else opaque.
DecoderPtr make_raw_inner(const LogicalType& type, const SerializerSnapshot* raw_snapshot);

// A container decodes when all its children do; its reason is the first child's that does not.
bool all_decodable(const std::vector<DecoderPtr>& children);
std::string first_why_not(const std::vector<DecoderPtr>& children);
// Lower-case hex of raw bytes; append_hex() writes it at the end of `out`.
std::string to_hex(std::string_view bytes);
void append_hex(std::string& out, std::string_view bytes);
// A BigInteger magnitude (two's complement, big endian) as a JSON number if it fits 64 bits,
// else as a decimal string.
nlohmann::json big_integer_json(std::string_view twos_complement);
// A float as the JSON number with the shortest decimal form that reads back as that float.
nlohmann::json float_json(float f);
nlohmann::json double_json(double d);
// One UTF-16 code unit as a string.
std::string char_string(uint16_t unit);

}  // namespace ckpt::decoders
