// tests/testlib/table_bytes.h - table runtime serializer snapshots and values built the way
// Flink writes them (RowDataSerializer, BinaryRowWriter, BinaryArrayWriter, BinaryMapData), for
// the unit tests and the fuzz seeds. No test framework: make_table_seeds links it too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::test {

// Java object streams written by a JVM (tests/testlib/java/Gen.java), as hex.
namespace java_streams {
extern const std::string_view kRowTypes;               // 31 LogicalTypes, see table_java_streams.cc
extern const std::string_view kArrayConfig;            // BIGINT, LongSerializer
extern const std::string_view kMapConfig;              // VARCHAR, INT, their serializers
extern const std::string_view kPointDataType;          // DataType of structured com.example.Point
extern const std::string_view kTwoDoubles;             // DOUBLE NOT NULL twice
extern const std::string_view kLegacyArraySerializer;  // an ArrayDataSerializer of INT
extern const std::string_view kComparator;             // a serializable Comparator
extern const std::string_view kSpecRowTypes;           // 8 LogicalTypes of a load spec, see table_java_streams.cc
}  // namespace java_streams
inline constexpr int kRowTypeCount = 31;
inline constexpr int kSpecRowTypeCount = 8;

std::string from_hex(std::string_view hex);

// Versioned snapshots (class name, version, body), as nested in other snapshots.
std::string simple_snapshot(std::string_view cls);
std::string composite_snapshot(std::string_view cls, int32_t outer_version, std::string_view outer,
                               const std::vector<std::string>& nested);
// The nested-serializer delegate: magic, version 1, count, snapshots.
std::string nested_snapshots(const std::vector<std::string>& nested);
std::string long_snapshot();
std::string int_snapshot();
std::string double_snapshot();
std::string string_data_snapshot();
std::string null_serializer_snapshot();
std::string decimal_snapshot(int32_t precision, int32_t scale);
std::string timestamp_snapshot(int32_t precision);
std::string raw_value_snapshot(const std::string& inner);
// RowDataSerializerSnapshot v3: n, the Java-serialized types, the field snapshots.
std::string row_data_snapshot(std::string_view types, int32_t n, const std::vector<std::string>& fields);
// ArrayData / MapData snapshots v3: their Java-serialized types and serializers.
std::string array_data_snapshot(std::string_view java_body);
std::string map_data_snapshot(std::string_view java_body);
// ExternalSerializerSnapshot v1: the DataType, isInternalInput, the internal serializer.
std::string external_snapshot(std::string_view data_type, const std::string& internal);
std::string sorted_map_snapshot(std::string_view comparator, const std::string& key, const std::string& value);
// A legacy TypeSerializerConfigSnapshot (version 0x7A53C4F0) keeping a Java-serialized
// serializer, with an empty config payload.
std::string legacy_config_snapshot(std::string_view cls, std::string_view java_serializer);
// Proxy framing (i32 2 first), as state meta info stores a top-level snapshot.
std::string proxy(const std::string& versioned);

// What BinaryRowWriter and BinaryArrayWriter share: null bits, fixed-width slots, byte
// strings inline or in the variable part, pieces, non-compact timestamps. Setters chain.
class BinarySection {
 public:
  BinarySection& kind(uint8_t k);      // rows: the RowKind byte
  BinarySection& null(int i);
  BinarySection& slot(int i, uint64_t v);  // the slot, little endian (ints in the low bytes)
  BinarySection& f64(int i, double v);
  BinarySection& f32(int i, float v);
  // Strings and byte strings: up to 7 bytes inline (length in the top byte, mark bit 0x80).
  BinarySection& binary(int i, std::string_view bytes);
  // Anything else variable (nested rows, arrays, maps, long decimals): offset << 32 | length.
  BinarySection& variable(int i, std::string_view bytes);
  // Non-compact timestamps: millis in the variable part, offset << 32 | nano-of-milli in the slot.
  BinarySection& timestamp(int i, int64_t millis, int32_t nano_of_milli);
  const std::string& bytes() const { return buf_; }

 protected:
  // Null bit i is bit (first_null_bit + i) from byte `nulls_at`; slots of `width` bytes start
  // at `slots_at`; the fixed part is `fixed` bytes.
  BinarySection(size_t nulls_at, size_t first_null_bit, size_t slots_at, int width, size_t fixed);
  void put(size_t at, uint64_t v, int n);  // n bytes little endian at `at`

 private:
  size_t nulls_at_;
  size_t first_null_bit_;
  size_t slots_at_;
  int width_;
  std::string buf_;
};

// A BinaryRowData: the header words (row kind, null bits), an 8-byte slot per field, pieces.
class BinaryRow : public BinarySection {
 public:
  explicit BinaryRow(int arity);
};

// A BinaryArrayData: i32 count, null bits in 4-byte words, n slots of `width` (1, 2, 4 or 8).
class BinaryArray : public BinarySection {
 public:
  BinaryArray(int n, int width);
};

// BinaryMapData: i32 (LE) size of the key array, the key array, the value array.
std::string binary_map(const std::string& keys, const std::string& values);
// The top-level serializers' framing: i32 (big endian) size, then the bytes.
std::string sized(const std::string& bytes);
// BigInteger#toByteArray of a value that fits 64 bits (minimal two's complement, big endian).
std::string unscaled_bytes(int64_t v);
inline constexpr std::string_view kBigUnscaled{"\x05\x6b\xc7\x5e\x2d\x63\x10\x00\x01", 9};  // 10^20 + 1
std::string big_endian64(int64_t v);

// A RowDataSerializer snapshot of java_streams::kRowTypes' 31 fields (field serializers Long
// but for RAW field 26's RawValueData of NullSerializer: only RAW fields' matter to the
// layout), and the BinaryRowData of one row of it (sized() frames it as the serializer does). Its fields,
// in order: true, -5, -300, 123456, null, 1.5f, -2.25, 123.45, 10^20 + 1 at scale 3, "abc",
// "héllo wörld", 01 02, 00..09, day 19000, 01:00:00, 1700000000123 ms, the same + 456789 ns,
// -1 ms, 5 ms + 999000 ns, 14 months, 90061001 ms, ROW -U (7, "hi"), Point3 (1.0, 2.0, null),
// [1 ms + 2 ns, null], {"k": 0.005, "key-two-long": null}, {"x": 2, "y": 1}, RAW null (one
// 0x00 byte), RAW 42 (eight bytes), 30, Money (1.99), [RAW null].
std::string every_type_row_snapshot();
std::string every_type_row();

}  // namespace ckpt::test
