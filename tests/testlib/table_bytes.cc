// Table runtime snapshots and binary values laid out as Flink's writers lay them out.
#include "testlib/table_bytes.h"

#include <cstring>

#include "support/byte_writer.h"

namespace ckpt::test {
namespace {

constexpr std::string_view kTable = "org.apache.flink.table.runtime.typeutils.";
constexpr std::string_view kBasePackage = "org.apache.flink.api.common.typeutils.base.";

void put_le(std::string& b, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[at + static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

std::string versioned(std::string_view cls, int32_t version, std::string_view body) {
  ByteWriter w;
  w.utf(cls);
  w.i32(version);
  w.bytes(body);
  return w.take();
}

std::string table(std::string_view name) { return std::string(kTable) + std::string(name); }

// BinaryRowWriter / BinaryArrayWriter: up to 7 bytes live in the slot itself.
uint64_t inline_slot(std::string_view bytes) {
  uint64_t v = (uint64_t{0x80} | bytes.size()) << 56;
  for (size_t i = 0; i < bytes.size(); ++i) v |= uint64_t{static_cast<uint8_t>(bytes[i])} << (8 * i);
  return v;
}

size_t append_aligned(std::string& buf, std::string_view bytes) {
  size_t at = buf.size();
  buf.append(bytes);
  buf.resize((buf.size() + 7) / 8 * 8, '\0');
  return at;
}

}  // namespace

std::string from_hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

std::string simple_snapshot(std::string_view cls) { return versioned(cls, 3, {}); }

std::string nested_snapshots(const std::vector<std::string>& nested) {
  ByteWriter w;
  w.i32(1333245);
  w.i32(1);
  w.i32(static_cast<int32_t>(nested.size()));
  for (const auto& n : nested) w.bytes(n);
  return w.take();
}

std::string composite_snapshot(std::string_view cls, int32_t outer_version, std::string_view outer,
                               const std::vector<std::string>& nested) {
  ByteWriter w;
  w.i32(911108);
  w.i32(outer_version);
  w.bytes(outer);
  return versioned(cls, 3, w.take() + nested_snapshots(nested));
}

std::string long_snapshot() {
  return simple_snapshot(std::string(kBasePackage) + "LongSerializer$LongSerializerSnapshot");
}
std::string int_snapshot() {
  return simple_snapshot(std::string(kBasePackage) + "IntSerializer$IntSerializerSnapshot");
}
std::string double_snapshot() {
  return simple_snapshot(std::string(kBasePackage) + "DoubleSerializer$DoubleSerializerSnapshot");
}
std::string string_data_snapshot() { return simple_snapshot(table("StringDataSerializer$StringDataSerializerSnapshot")); }
std::string null_serializer_snapshot() {
  return simple_snapshot("org.apache.flink.table.dataview.NullSerializer$NullSerializerSnapshot");
}

std::string decimal_snapshot(int32_t precision, int32_t scale) {
  ByteWriter w;
  w.i32(precision);
  w.i32(scale);
  return versioned(table("DecimalDataSerializer$DecimalSerializerSnapshot"), 3, w.buffer());
}

std::string timestamp_snapshot(int32_t precision) {
  ByteWriter w;
  w.i32(precision);
  return versioned(table("TimestampDataSerializer$TimestampDataSerializerSnapshot"), 1, w.buffer());
}

std::string raw_value_snapshot(const std::string& inner) {
  return composite_snapshot(table("RawValueDataSerializer$RawValueDataSerializerSnapshot"), 0, {}, {inner});
}

std::string row_data_snapshot(std::string_view types, int32_t n, const std::vector<std::string>& fields) {
  ByteWriter w;
  w.i32(n);
  w.bytes(types);
  return versioned(table("RowDataSerializer$RowDataSerializerSnapshot"), 3, w.take() + nested_snapshots(fields));
}

std::string array_data_snapshot(std::string_view java_body) {
  return versioned(table("ArrayDataSerializer$ArrayDataSerializerSnapshot"), 3, java_body);
}

std::string map_data_snapshot(std::string_view java_body) {
  return versioned(table("MapDataSerializer$MapDataSerializerSnapshot"), 3, java_body);
}

std::string external_snapshot(std::string_view data_type, const std::string& internal) {
  std::string outer(data_type);
  outer.push_back('\0');  // isInternalInput
  return composite_snapshot(table("ExternalSerializer$ExternalSerializerSnapshot"), 1, outer, {internal});
}

std::string sorted_map_snapshot(std::string_view comparator, const std::string& key, const std::string& value) {
  return versioned(table("SortedMapSerializerSnapshot"), 3, std::string(comparator) + nested_snapshots({key, value}));
}

std::string legacy_config_snapshot(std::string_view cls, std::string_view java_serializer) {
  ByteWriter w;
  w.i32(1);  // TypeSerializerSerializationProxy version
  w.i32(static_cast<int32_t>(java_serializer.size()));
  w.bytes(java_serializer);
  w.i32(1);  // the config snapshot's own version; no payload follows
  return versioned(cls, 0x7A53C4F0, w.buffer());
}

std::string proxy(const std::string& v) {
  ByteWriter w;
  w.i32(2);
  w.bytes(v);
  return w.take();
}

BinarySection::BinarySection(size_t nulls_at, size_t first_null_bit, size_t slots_at, int width, size_t fixed)
    : nulls_at_(nulls_at), first_null_bit_(first_null_bit), slots_at_(slots_at), width_(width), buf_(fixed, '\0') {}

void BinarySection::put(size_t at, uint64_t v, int n) { put_le(buf_, at, v, n); }

BinarySection& BinarySection::kind(uint8_t k) {
  buf_[0] = static_cast<char>(k);
  return *this;
}

BinarySection& BinarySection::null(int i) {
  size_t bit = first_null_bit_ + static_cast<size_t>(i);
  size_t at = nulls_at_ + bit / 8;
  buf_[at] = static_cast<char>(static_cast<uint8_t>(buf_[at]) | (1u << (bit % 8)));
  return *this;
}

BinarySection& BinarySection::slot(int i, uint64_t v) {
  put(slots_at_ + static_cast<size_t>(width_) * static_cast<size_t>(i), v, width_);
  return *this;
}

BinarySection& BinarySection::f64(int i, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return slot(i, bits);
}

BinarySection& BinarySection::f32(int i, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return slot(i, bits);
}

BinarySection& BinarySection::binary(int i, std::string_view bytes) {
  return bytes.size() <= 7 ? slot(i, inline_slot(bytes)) : variable(i, bytes);
}

BinarySection& BinarySection::variable(int i, std::string_view bytes) {
  size_t at = append_aligned(buf_, bytes);
  return slot(i, (uint64_t{at} << 32) | bytes.size());
}

BinarySection& BinarySection::timestamp(int i, int64_t millis, int32_t nano_of_milli) {
  std::string m(8, '\0');
  put_le(m, 0, static_cast<uint64_t>(millis), 8);
  size_t at = append_aligned(buf_, m);
  return slot(i, (uint64_t{at} << 32) | static_cast<uint32_t>(nano_of_milli));
}

// The header words hold 8 RowKind bits, then one null bit per field.
BinaryRow::BinaryRow(int arity)
    : BinarySection(0, 8, static_cast<size_t>((arity + 63 + 8) / 64) * 8, 8,
                    static_cast<size_t>((arity + 63 + 8) / 64) * 8 + 8 * static_cast<size_t>(arity)) {}

// BinaryArrayWriter rounds the fixed part (count, null words, elements) up to whole words.
BinaryArray::BinaryArray(int n, int width)
    : BinarySection(4, 0, 4 + static_cast<size_t>((n + 31) / 32) * 4, width,
                    (4 + static_cast<size_t>((n + 31) / 32) * 4 + static_cast<size_t>(width) * static_cast<size_t>(n) + 7) /
                        8 * 8) {
  put(0, static_cast<uint32_t>(n), 4);
}

std::string binary_map(const std::string& keys, const std::string& values) {
  std::string out(4, '\0');
  put_le(out, 0, static_cast<uint32_t>(keys.size()), 4);
  return out + keys + values;
}

std::string sized(const std::string& bytes) {
  ByteWriter w;
  w.i32(static_cast<int32_t>(bytes.size()));
  w.bytes(bytes);
  return w.take();
}

std::string unscaled_bytes(int64_t v) {
  std::string out;
  for (int s = 56; s >= 0; s -= 8) out.push_back(static_cast<char>((static_cast<uint64_t>(v) >> s) & 0xff));
  // Drop leading bytes that only repeat the sign, as BigInteger#toByteArray does.
  while (out.size() > 1 && ((out[0] == '\0' && !(out[1] & 0x80)) || (out[0] == '\xff' && (out[1] & 0x80))))
    out.erase(0, 1);
  return out;
}

std::string big_endian64(int64_t v) {
  ByteWriter w;
  w.i64(v);
  return w.take();
}

std::string every_type_row_snapshot() {
  std::vector<std::string> fields(kRowTypeCount, long_snapshot());
  fields[26] = raw_value_snapshot(null_serializer_snapshot());
  return row_data_snapshot(from_hex(java_streams::kRowTypes), kRowTypeCount, fields);
}

std::string every_type_row() {
  BinaryRow nested(2);
  nested.kind(1).slot(0, 7).binary(1, "hi");
  BinaryRow point(3);
  point.f64(0, 1.0).f64(1, 2.0).null(2);
  BinaryArray stamps(2, 8);
  stamps.timestamp(0, 1, 2).null(1);
  BinaryArray keys(2, 8), values(2, 8);
  keys.binary(0, "k").binary(1, "key-two-long");
  values.variable(0, unscaled_bytes(5)).null(1);
  BinaryArray elements(2, 8), counts(2, 4);
  elements.binary(0, "x").binary(1, "y");
  counts.slot(0, 2).slot(1, 1);
  BinaryRow money(1);
  money.slot(0, 199);
  BinaryArray raws(1, 8);
  raws.variable(0, std::string(1, '\0'));

  BinaryRow row(kRowTypeCount);
  row.slot(0, 1).slot(1, 0xfb).slot(2, 0xfed4).slot(3, 123456).null(4).f32(5, 1.5f).f64(6, -2.25)
      .slot(7, 12345).variable(8, kBigUnscaled).binary(9, "abc").binary(10, "h\xc3\xa9llo w\xc3\xb6rld")
      .binary(11, "\x01\x02").binary(12, std::string("\0\1\2\3\4\5\6\7\x08\x09", 10)).slot(13, 19000)
      .slot(14, 3600000).slot(15, 1700000000123).timestamp(16, 1700000000123, 456789)
      .slot(17, static_cast<uint64_t>(-1)).timestamp(18, 5, 999000).slot(19, 14).slot(20, 90061001)
      .variable(21, nested.bytes()).variable(22, point.bytes()).variable(23, stamps.bytes())
      .variable(24, binary_map(keys.bytes(), values.bytes())).variable(25, binary_map(elements.bytes(), counts.bytes()))
      .variable(26, std::string(1, '\0')).variable(27, big_endian64(42)).slot(28, 30).variable(29, money.bytes())
      .variable(30, raws.bytes());
  return row.bytes();
}

}  // namespace ckpt::test
