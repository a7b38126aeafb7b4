// Avro values as Flink's AvroSerializer writes them: not Avro's binary encoding but Flink's
// DataOutputEncoder (formats/serializers.md §9), decoded with the writer schema of the snapshot.
#include <map>

#include <fmt/format.h>

#include "types/avro_schema.h"
#include "types/value_decoders.h"

namespace ckpt::decoders {
namespace {

constexpr int kMaxSchemaDepth = 64;

class AvroDecoder final : public ValueDecoder {
 public:
  AvroDecoder(const SerializerSnapshot& s, AvroSchema schema)
      : ValueDecoder(s.serializer_class), schema_(std::move(schema)) {}

  void read(ByteReader& r, nlohmann::json& out) const override { value(r, schema_.root(), out, 0); }

 private:
  // DataOutputEncoder's block counts: unsigned 7-bit groups, low first.
  static uint64_t count(ByteReader& r) { return r.varint(10); }

  void value(ByteReader& r, size_t id, nlohmann::json& out, int depth) const {
    if (depth > kMaxSchemaDepth) {
      r.fail(fmt::format("avro values nested deeper than {}", kMaxSchemaDepth));
      return;
    }
    const AvroNode& n = schema_.at(id);
    switch (n.kind) {
      case AvroKind::kNull: out = nullptr; return;
      case AvroKind::kBoolean: out = r.boolean(); return;
      case AvroKind::kInt: out = r.i32(); return;
      case AvroKind::kLong: out = r.i64(); return;
      case AvroKind::kFloat: out = float_json(r.f32()); return;
      case AvroKind::kDouble: out = double_json(r.f64()); return;
      case AvroKind::kBytes: out = {{"bytes", to_hex(r.bytes(static_cast<size_t>(r.count(1, "avro byte"))))}}; return;
      case AvroKind::kString: out = std::string(r.bytes(static_cast<size_t>(r.count(1, "avro string byte")))); return;
      case AvroKind::kFixed: out = {{"bytes", to_hex(r.bytes(n.fixed_size))}}; return;
      case AvroKind::kEnum: {
        uint64_t at = r.offset();
        int32_t i = r.i32();
        if (!r.ok()) return;
        if (i < 0 || static_cast<size_t>(i) >= n.field_names.size()) {
          r.fail_at(at, fmt::format("avro enum index {} out of range for {}", i, n.name));
          return;
        }
        out = n.field_names[static_cast<size_t>(i)];
        return;
      }
      case AvroKind::kUnion: {
        uint64_t at = r.offset();
        int32_t i = r.i32();
        if (!r.ok()) return;
        if (i < 0 || static_cast<size_t>(i) >= n.children.size()) {
          r.fail_at(at, fmt::format("avro union branch {} out of range", i));
          return;
        }
        value(r, n.children[static_cast<size_t>(i)], out, depth + 1);
        return;
      }
      case AvroKind::kRecord: {
        nlohmann::json fields = nlohmann::json::object();
        for (size_t i = 0; i < n.children.size() && r.ok(); ++i)
          value(r, n.children[i], fields[n.field_names[i]], depth + 1);
        out = {{"class", n.name}, {"fields", std::move(fields)}};
        return;
      }
      case AvroKind::kArray:
      case AvroKind::kMap: {
        out = nlohmann::json::array();
        for (uint64_t block = count(r); block > 0 && r.ok(); block = count(r)) {
          if (block > r.remaining()) {
            r.fail(fmt::format("avro block of {} items, only {} bytes left", block, r.remaining()));
            return;
          }
          for (uint64_t i = 0; i < block && r.ok(); ++i) {
            if (n.kind == AvroKind::kArray) {
              value(r, n.children[0], out.emplace_back(), depth + 1);
            } else {
              std::string key(r.bytes(static_cast<size_t>(r.count(1, "avro map key byte"))));
              nlohmann::json v;
              value(r, n.children[0], v, depth + 1);
              out.push_back({std::move(key), std::move(v)});
            }
          }
        }
        return;
      }
    }
  }

  AvroSchema schema_;
};

}  // namespace

Result<DecoderPtr> make_avro(const SerializerSnapshot& s) {
  Result<AvroSchema> schema = parse_avro_schema(s);
  if (!schema.ok() && schema.error().code == ErrorCode::kNotSupported)
    return make_opaque(s, fmt::format("avro schema not understood: {}", schema.error().message));
  if (!schema.ok()) return std::move(schema).error();
  return DecoderPtr(std::make_unique<AvroDecoder>(s, std::move(schema).value()));
}

}  // namespace ckpt::decoders
