// The decoder factory, framed decoding and Flink's key-group assignment.
#include "types/value_decoder.h"

#include <fmt/format.h>

#include "support/byte_reader.h"
#include "support/json_text.h"
#include "types/legacy_serializers.h"
#include "types/value_decoders.h"
#include "types/value_of.h"

namespace ckpt {

void ValueDecoder::skip(ByteReader& r) const {
  nlohmann::json ignored;
  read(r, ignored);
}

void ValueDecoder::check(ByteReader& r) const {
  nlohmann::json ignored;
  read(r, ignored);
}

Result<std::unique_ptr<ValueDecoder>> make_decoder(const SerializerSnapshot& s) {
  using decoders::make_opaque;
  CKPT_ASSIGN_OR_RETURN(auto table, decoders::make_table(s));
  if (table) return table;
  if (auto java = decoders::make_java(s)) return java;
  CKPT_ASSIGN_OR_RETURN(auto cep, decoders::make_cep(s));
  if (cep) return cep;
  switch (s.form) {
    case SnapshotForm::kLegacyConfig:
      // Flink 1.2-1.6: the serializer object, read as the snapshot Flink 1.7+ writes for it.
      if (auto equivalent = legacy_equivalent(s)) return make_decoder(*equivalent);
      if (auto singleton = decoders::make_java_singleton(s)) return singleton;
      return make_opaque(s, "legacy TypeSerializerConfigSnapshot: the serializer is Java-serialized");
    case SnapshotForm::kKryo:
      if (auto kryo = decoders::make_kryo(s)) return kryo;
      return make_opaque(s, fmt::format("kryo serialization of {} needs the job's classes", s.type_class));
    case SnapshotForm::kClassOnly:
      return make_opaque(s, fmt::format("{} serializes itself (user code)", s.type_class));
    case SnapshotForm::kOpaqueKnown:
      if (!s.avro_schema.empty()) return decoders::make_avro(s);
      return make_opaque(s, fmt::format("{} values are not decoded", s.display_name()));
    case SnapshotForm::kUnknown:
      return make_opaque(s, fmt::format("unknown serializer {}", s.snapshot_class));
    case SnapshotForm::kRowData:
      return decoders::make_row_data(s);
    default:
      break;
  }
  if (auto d = decoders::make_scalar(s)) return d;
  CKPT_ASSIGN_OR_RETURN(auto d, decoders::make_structured(s));
  if (d) return d;
  return make_opaque(s, fmt::format("values of {} are not understood", s.display_name()));
}

void ValueDecoder::write_json(ByteReader& r, std::string& out) const {
  nlohmann::json tree;
  read(r, tree);
  if (r.ok()) append_json_text(out, tree);
}

void ValueDecoder::read_value(ByteReader& r, Value& out) const {
  nlohmann::json tree;
  read(r, tree);
  if (r.ok()) out = value_of(std::move(tree));
}

namespace {

// The frame both forms share: `length` bytes, read whole by a decodable decoder or shown as
// hex by an opaque one. `decode(sub)` reads the value from a reader over the frame.
template <class Decode, class Opaque>
Status read_frame(const ValueDecoder& d, ByteReader& r, size_t length, Decode&& decode, Opaque&& opaque) {
  uint64_t at = r.offset();
  std::string_view bytes = r.bytes(length);
  if (!r.ok()) return *r.error();
  if (!d.decodable()) {
    opaque(bytes);
    return Status::OK();
  }
  ByteReader sub(bytes, at);
  decode(sub);
  if (!sub.ok()) return *sub.error();
  if (!sub.at_end())
    return Error(ErrorCode::kCorruption,
                 fmt::format("{} value ends {} bytes before the end of its {}-byte frame",
                             d.serializer_class(), sub.remaining(), length),
                 sub.offset());
  return Status::OK();
}

}  // namespace

Result<nlohmann::json> decode_framed(const ValueDecoder& d, ByteReader& r, size_t length) {
  nlohmann::json out;
  CKPT_RETURN_IF_ERROR(read_frame(
      d, r, length, [&](ByteReader& sub) { d.read(sub, out); },
      [&](std::string_view bytes) { out = nlohmann::json{{"hex", decoders::to_hex(bytes)}, {"why", d.why_not()}}; }));
  return out;
}

Status decode_framed_json(const ValueDecoder& d, ByteReader& r, size_t length, std::string& out) {
  return read_frame(
      d, r, length, [&](ByteReader& sub) { d.write_json(sub, out); },
      [&](std::string_view bytes) {
        // As the tree {"hex":..,"why":..} prints: members in key order.
        out += "{\"hex\":\"";
        decoders::append_hex(out, bytes);
        out += "\",\"why\":";
        append_json_string(out, d.why_not());
        out += '}';
      });
}

Status decode_framed_value(const ValueDecoder& d, ByteReader& r, size_t length, Value& out) {
  return read_frame(
      d, r, length, [&](ByteReader& sub) { d.read_value(sub, out); },
      [&](std::string_view bytes) {
        out = Value::object({"hex", "why"}, {Value::string(decoders::to_hex(bytes)), Value::string(d.why_not())});
      });
}

std::optional<int32_t> ValueDecoder::read_java_hash_code(ByteReader& r) const {
  nlohmann::json v;
  read(r, v);
  if (!r.ok()) return std::nullopt;
  return java_hash_code(v);
}

std::optional<int32_t> compute_key_group(const ValueDecoder& key_decoder, const nlohmann::json& key,
                                         int32_t max_parallelism) {
  auto h = key_decoder.java_hash_code(key);
  if (!h || max_parallelism <= 0) return std::nullopt;
  return key_group_for_hash(*h, max_parallelism);
}

int32_t java_string_hash(std::string_view s) {
  uint32_t h = 0;
  // ASCII (most keys): each byte is its own UTF-16 unit.
  size_t i = 0;
  for (; i < s.size() && static_cast<unsigned char>(s[i]) < 0x80; ++i) h = 31u * h + static_cast<unsigned char>(s[i]);
  if (i == s.size()) return static_cast<int32_t>(h);
  h = 0;
  for_each_utf16_unit(s, [&](uint16_t unit) { h = 31u * h + unit; });
  return static_cast<int32_t>(h);
}

}  // namespace ckpt
