// types/value_decoder.h - turning serialized state values into JSON without the job's classes.
//
// make_decoder() builds, from a serializer snapshot, a tree of decoders mirroring the
// serializer tree. Each reads exactly one value the way the Flink serializer wrote it
// (formats/serializers.md; Flink's source is the final word) and produces JSON in the
// conventions of testdata/flink-expected/README.md:
//   numbers (64-bit exact; float / double as JSON numbers, NaN / infinities as the strings
//   "NaN", "Infinity", "-Infinity"), strings (lone UTF-16 surrogates kept in WTF-8 form), char
//   as a one-letter string, BigInteger as a number when it fits 64 bits else a decimal string,
//   BigDecimal {"unscaled":n,"scale":s}, byte[] {"bytes":hex}, other primitive arrays as
//   arrays, dates / times as their stored numbers (Date, SqlDate, SqlTime: epoch millis;
//   SqlTimestamp {"millis","nanos"}; Instant {"seconds","nanos"}; LocalDate {"year","month",
//   "day"}; LocalTime {"hour","minute","second","nano"}; LocalDateTime {"date","time"}), null as
//   null, Tuple an array, Row {"kind":"+I","fields":[..]}, POJO {"class":..,"fields":{..}}, List
//   an array, Map an array of [k, v] pairs in stored order, Either {"left":v} / {"right":v},
//   Enum its constant name, VoidNamespace "VoidNamespace", TimeWindow {"start","end"},
//   GlobalWindow "GlobalWindow", TTL {"ttl_ts":t,"value":v}, timer {"timestamp":t,"key":k,
//   "namespace":n} (timestamp with the sign flip undone), SQL RowData {"kind":"+I","fields":[..]}
//   (its DECIMAL as BigDecimal, TIMESTAMP {"millis","nano_of_milli"}, DATE days and TIME
//   millis of day as numbers, BINARY {"bytes":hex}, ARRAY an array, MAP / MULTISET [k, v] pairs,
//   STRUCTURED_TYPE {"class":..,"fields":{name: v}}, RAW its serializer's value), and the other
//   table runtime serializers as formats/serializers.md §8 says, and the CEP library's NFA states and
//   shared-buffer values as formats/serializers.md §14 says.
// Strings are UTF-8 but may hold lone surrogates (WTF-8) or, in RowData, arbitrary bytes: dump
// JSON with nlohmann::json::error_handler_t::replace, or dump() throws.
// Avro records (Flink's DataOutputEncoder layout, writer schema from the snapshot) give
// {"class":..,"fields":{..}}, Avro enums their symbol, unions the chosen branch's value.
// JavaSerializer values are read as object streams and printed as types/java_values.h says.
// Serializers whose bytes need user code (Kryo, user Value / Writable
// types, unknown classes) get an opaque decoder: decodable() is false and read()
// fails with kNotSupported; where the container gives the length, decode_framed() shows the
// value as {"hex":"..","why":".."} instead.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ckpt/error.h"
#include "ckpt/value.h"
#include "format/key_groups.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "types/serializer_snapshot.h"

namespace ckpt {

class ValueDecoder {
 public:
  virtual ~ValueDecoder() = default;

  // Read one value at r's position into `out`. On failure r carries the (sticky) error with
  // its absolute offset and `out` is unspecified; callers check r.ok().
  virtual void read(ByteReader& r, nlohmann::json& out) const = 0;
  // Append one value's compact JSON text to `out`: exactly json_text() of what read() gives,
  // consuming the same bytes, without building a tree for the common types (the dump's hot
  // path). On failure r carries the error and what was appended is unspecified.
  virtual void write_json(ByteReader& r, std::string& out) const;
  // Read one value into `out` as the public Value: exactly value_of() of what read() gives,
  // consuming the same bytes, without the tree for the common types (the entry iterator's,
  // the query tables' and the Python module's hot path). On failure as read().
  virtual void read_value(ByteReader& r, Value& out) const;
  // Advance past one value without building JSON; consumes exactly what read() would. This is
  // what the heap layout needs for values it does not print (no length prefix there).
  virtual void skip(ByteReader& r) const;
  // Consume one value exactly as read() does and fail exactly where (and with the error) read()
  // fails, building nothing: a writing command's input check (ops/engine/input_checks.h) decodes
  // everything it copies and keeps nothing. skip() is not that: it may step over bytes read()
  // would refuse (an enum ordinal, a row's fields). The default reads into a scratch tree.
  virtual void check(ByteReader& r) const;
  // True if every value read() gives is an array of [key, value] pairs (MapSerializer's).
  virtual bool reads_pairs() const { return false; }

  // The inverse of read(): append to `w` exactly the bytes Flink's serializer writes for the
  // value read() gives (`ckpt load`, `edit --upsert`), so that encode(read(b)) == b. An opaque
  // decoder writes the bytes of {"hex":..} back unchanged and refuses anything else. Errors
  // (kInvalidArgument) say what was expected and where in the value: "[1].fields[0]: expected
  // a 64-bit integer, got \"x\""; kNotSupported for serializers ckpt cannot write yet.
  virtual Status encode(const nlohmann::json& value, ByteWriter& w) const;

  // Flink's TypeSerializer#getLength(): the fixed byte length, or -1 if variable. VoidNamespace
  // reports 0 although it writes one byte, as Flink does (it matters for the RocksDB
  // "ambiguous key" rule, formats/keyed-state.md §10.2).
  virtual int32_t fixed_length() const { return -1; }

  // False if the value format needs the job's classes; then read() / skip() fail with
  // kNotSupported and why_not() says why ("kryo serialization needs the job's classes").
  virtual bool decodable() const { return true; }
  virtual std::string why_not() const { return {}; }

  // Java's hashCode() of the object a value (as produced by read()) stands for, if this type's
  // hashCode is known (boxed primitives, String, Tuple, BigInteger/BigDecimal, Row, List, Enum
  // is not: it is identity based). Used to recompute key groups.
  virtual std::optional<int32_t> java_hash_code(const nlohmann::json& value) const { return std::nullopt; }
  // The same of the value at r's position, consuming exactly what read() does (nullopt, with
  // r's error or not, where unknown). Flink's binary rows hash their bytes, which their JSON
  // does not keep: a SQL key's hash is known only this way.
  virtual std::optional<int32_t> read_java_hash_code(ByteReader& r) const;

  // The serializer this decoder stands for ("org.apache.flink...LongSerializer").
  const std::string& serializer_class() const { return serializer_class_; }

 protected:
  explicit ValueDecoder(std::string serializer_class) : serializer_class_(std::move(serializer_class)) {}

 private:
  std::string serializer_class_;
};

// The decoder for values written by the serializer `snapshot` describes. Unknown or
// user-code serializers give an opaque decoder (never an error); an error means the snapshot
// itself is inconsistent (e.g. a TupleSerializer snapshot without nested snapshots).
// For the element of a keyed LIST state in RocksDB / canonical layout, pass the ListSerializer
// snapshot's nested[0]; for MAP state user keys / values, the MapSerializer's nested[0] / [1].
Result<std::unique_ptr<ValueDecoder>> make_decoder(const SerializerSnapshot& snapshot);

// Decode a value whose extent the container knows: the next `length` bytes of r. A decodable
// value must use exactly those bytes (fewer or more is a kCorruption error at the value's
// offset); an opaque one yields {"hex":"..","why":".."}. r always ends after the `length` bytes
// unless they are not there.
Result<nlohmann::json> decode_framed(const ValueDecoder& decoder, ByteReader& r, size_t length);
// The same, appended to `out` as JSON text (write_json()); on error `out` is unspecified.
Status decode_framed_json(const ValueDecoder& decoder, ByteReader& r, size_t length, std::string& out);
// The same as a Value (read_value()).
Status decode_framed_value(const ValueDecoder& decoder, ByteReader& r, size_t length, Value& out);

// The key group Flink assigns to `key` (a value decoded by `key_decoder`), or nullopt if the
// key's Java hashCode is not known for its type.
std::optional<int32_t> compute_key_group(const ValueDecoder& key_decoder, const nlohmann::json& key,
                                         int32_t max_parallelism);

// Java's String.hashCode over the UTF-16 code units of a UTF-8 (WTF-8) string.
int32_t java_string_hash(std::string_view utf8);

}  // namespace ckpt
