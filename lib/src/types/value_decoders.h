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

// What the encoders (ValueDecoder::encode) share.
namespace ckpt::decoders {

// kInvalidArgument: "expected <expected>, got <got>" (`got` shortened to 60 characters).
Error encode_expected(std::string_view expected, const nlohmann::json& got);
// `s` one step deeper in the value: step "[2]" or ".fields" before the path already in the
// message ("[2].fields[0]: expected ...").
Status encode_at(Status s, std::string_view step);
// An integer JSON number in [lo, hi]; else an encode_expected error naming `what`.
Result<int64_t> encode_integer(const nlohmann::json& v, int64_t lo, int64_t hi, std::string_view what);
// A JSON number or "NaN", "Infinity", "-Infinity", as the decoders print floats.
Result<double> encode_floating(const nlohmann::json& v, std::string_view what);
// An object's member `key`, or an error naming it.
Result<const nlohmann::json*> encode_member(const nlohmann::json& v, std::string_view key, std::string_view what);
// A BigInteger's toByteArray() (minimal big-endian two's complement) from its JSON: a number or
// a string of decimal digits.
Status big_integer_bytes(const nlohmann::json& v, std::string* out);
// Lower- or upper-case hex (even length) to bytes; false otherwise.
bool from_hex(std::string_view hex, std::string* out);
// The same bytes appended to `out` (on false, `out` may have grown).
bool append_from_hex(std::string_view hex, std::string* out);
// {"hex":".."} (a "why" beside it ignored), as decode_framed() shows an opaque value: its bytes.
Result<std::string> encode_opaque_hex(const nlohmann::json& v, const std::string& serializer_class);

}  // namespace ckpt::decoders
