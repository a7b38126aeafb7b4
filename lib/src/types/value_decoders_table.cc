// Decoders of the table runtime's serializers other than the binary layouts
// (formats/serializers.md §8): StringData, DecimalData, TimestampData, RawValueData,
// ExternalSerializer, ArrayData / MapData snapshots, BinaryRowData, NullSerializer.
#include <fmt/format.h>

#include "types/java_hash.h"
#include "types/logical_types.h"
#include "types/value_decoders.h"

namespace ckpt::decoders {
namespace {

constexpr std::string_view kTable = "org.apache.flink.table.runtime.typeutils.";
constexpr std::string_view kNullSerializer = "org.apache.flink.table.dataview.NullSerializer";

bool is_table(const SerializerSnapshot& s, std::string_view name) {
  return s.snapshot_class.size() == kTable.size() + name.size() &&
         s.snapshot_class.starts_with(kTable) &&
         s.snapshot_class.compare(kTable.size(), std::string_view::npos, name) == 0;
}

// TimestampData and DecimalData: compact (millis / unscaled long) up to precision 3 / 18.
constexpr int32_t kCompactTimestamp = 3;
constexpr int32_t kCompactDecimal = 18;

enum class Kind {
  kString,     // i32 length + UTF-8
  kDecimal,    // compact: i64 unscaled; else i32 length + big-endian two's complement
  kTimestamp,  // compact: i64 millis; else i64 millis + i32 nano of milli
  kNull,       // NullSerializer: one byte, null
  kBinaryRow,  // i32 length + a BinaryRowData of unknown field types
};

class TableScalarDecoder final : public ValueDecoder {
 public:
  TableScalarDecoder(std::string serializer_class, Kind kind, int32_t precision, int32_t scale)
      : ValueDecoder(std::move(serializer_class)), kind_(kind), precision_(precision), scale_(scale) {}

  int32_t fixed_length() const override {
    switch (kind_) {
      case Kind::kTimestamp: return precision_ <= kCompactTimestamp ? 8 : 12;
      case Kind::kNull: return 1;
      default: return -1;
    }
  }

  void read(ByteReader& r, nlohmann::json& out) const override {
    switch (kind_) {
      case Kind::kString: {
        std::string_view bytes = r.bytes(static_cast<size_t>(r.count(1, "string byte")));
        if (r.ok()) out = std::string(bytes);
        return;
      }
      case Kind::kDecimal:
        if (precision_ <= kCompactDecimal) {
          int64_t unscaled = r.i64();
          if (r.ok()) out = {{"unscaled", unscaled}, {"scale", scale_}};
        } else {
          std::string_view bytes = r.bytes(static_cast<size_t>(r.count(1, "decimal byte")));
          if (r.ok()) out = {{"unscaled", big_integer_json(bytes)}, {"scale", scale_}};
        }
        return;
      case Kind::kTimestamp: {
        int64_t millis = r.i64();
        int32_t nanos = precision_ <= kCompactTimestamp ? 0 : r.i32();
        if (r.ok()) out = {{"millis", millis}, {"nano_of_milli", nanos}};
        return;
      }
      case Kind::kNull:
        r.skip(1);
        out = nullptr;
        return;
      case Kind::kBinaryRow: {
        std::string_view bytes = r.bytes(static_cast<size_t>(r.count(1, "binary row byte")));
        if (r.ok())
          out = {{"hex", to_hex(bytes)},
                 {"why", fmt::format("BinaryRowDataSerializer keeps the arity ({}) but not the field types", precision_)}};
        return;
      }
    }
  }
  Status encode(const nlohmann::json& v, ByteWriter& w) const override {
    switch (kind_) {
      case Kind::kString:
        if (!v.is_string()) return encode_expected("a string", v);
        w.i32(static_cast<int32_t>(v.get_ref<const std::string&>().size()));
        w.bytes(v.get_ref<const std::string&>());
        return Status::OK();
      case Kind::kDecimal: {
        CKPT_ASSIGN_OR_RETURN(const nlohmann::json* unscaled, encode_member(v, "unscaled", "a decimal"));
        CKPT_ASSIGN_OR_RETURN(const nlohmann::json* scale, encode_member(v, "scale", "a decimal"));
        if (!scale->is_number_integer() || scale->get<int64_t>() != scale_)
          return encode_at(encode_expected(fmt::format("the type's scale {}", scale_), *scale), ".scale");
        if (precision_ <= kCompactDecimal) {
          auto u = encode_integer(*unscaled, INT64_MIN, INT64_MAX, "a 64-bit unscaled value (precision up to 18)");
          if (!u.ok()) return encode_at(std::move(u).error(), ".unscaled");
          w.i64(*u);
          return Status::OK();
        }
        // DecimalDataSerializer: toUnscaledBytes(), BigInteger#toByteArray.
        std::string bytes;
        CKPT_RETURN_IF_ERROR(encode_at(big_integer_bytes(*unscaled, &bytes), ".unscaled"));
        w.i32(static_cast<int32_t>(bytes.size()));
        w.bytes(bytes);
        return Status::OK();
      }
      case Kind::kTimestamp: {
        CKPT_ASSIGN_OR_RETURN(const nlohmann::json* millis, encode_member(v, "millis", "a timestamp"));
        CKPT_ASSIGN_OR_RETURN(const nlohmann::json* nanos, encode_member(v, "nano_of_milli", "a timestamp"));
        auto ms = encode_integer(*millis, INT64_MIN, INT64_MAX, "a 64-bit integer");
        if (!ms.ok()) return encode_at(std::move(ms).error(), ".millis");
        const bool compact = precision_ <= kCompactTimestamp;
        auto ns = encode_integer(*nanos, 0, compact ? 0 : 999999, compact ? "0 (precision up to 3)" : "0 to 999999");
        if (!ns.ok()) return encode_at(std::move(ns).error(), ".nano_of_milli");
        w.i64(*ms);
        if (!compact) w.i32(static_cast<int32_t>(*ns));
        return Status::OK();
      }
      case Kind::kNull:
        if (!v.is_null()) return encode_expected("null", v);
        w.u8(0);
        return Status::OK();
      case Kind::kBinaryRow: {
        CKPT_ASSIGN_OR_RETURN(std::string bytes, encode_opaque_hex(v, serializer_class()));
        w.i32(static_cast<int32_t>(bytes.size()));
        w.bytes(bytes);
        return Status::OK();
      }
    }
    return Status::OK();
  }

  // A BinaryRowData hashes its bytes, whatever its field types.
  std::optional<int32_t> read_java_hash_code(ByteReader& r) const override {
    if (kind_ != Kind::kBinaryRow) return ValueDecoder::read_java_hash_code(r);
    std::string_view bytes = r.bytes(static_cast<size_t>(r.count(1, "binary row byte")));
    if (!r.ok()) return std::nullopt;
    return flink_binary_section_hash(bytes);
  }

 private:
  Kind kind_;
  int32_t precision_;  // kBinaryRow: the arity
  int32_t scale_;
};

// RawValueDataSerializer: i32 length, then what the inner serializer wrote in that many bytes.
class RawValueDecoder final : public ValueDecoder {
 public:
  RawValueDecoder(std::string serializer_class, DecoderPtr inner)
      : ValueDecoder(std::move(serializer_class)), inner_(std::move(inner)) {}

  void read(ByteReader& r, nlohmann::json& out) const override {
    int32_t n = r.count(1, "raw value byte");
    if (!r.ok()) return;
    auto v = decode_framed(*inner_, r, static_cast<size_t>(n));
    if (!v.ok()) {
      const Error& e = v.error();
      r.fail_at(e.offset.value_or(r.offset()), e.message, e.code);
      return;
    }
    out = std::move(v).value();
  }
  void skip(ByteReader& r) const override { r.skip(static_cast<size_t>(r.count(1, "raw value byte"))); }
  Status encode(const nlohmann::json& v, ByteWriter& w) const override {
    ByteWriter inner;
    CKPT_RETURN_IF_ERROR(inner_->encode(v, inner));
    w.i32(static_cast<int32_t>(inner.size()));
    w.bytes(inner.buffer());
    return Status::OK();
  }

 private:
  DecoderPtr inner_;
};

// A singleton serializer named only by its class (a RawType's Java-serialized serializer):
// the snapshot its class would write, so that the ordinary factory finds its decoder.
SerializerSnapshot singleton_snapshot(const std::string& serializer_class) {
  SerializerSnapshot s;
  size_t dot = serializer_class.rfind('.');
  std::string simple = dot == std::string::npos ? serializer_class : serializer_class.substr(dot + 1);
  s.snapshot_class = serializer_class + "$" + simple + "Snapshot";
  s.serializer_class = serializer_class;
  s.version = 3;
  s.form = SnapshotForm::kSimple;
  return s;
}

DecoderPtr unwrap(Result<DecoderPtr> d, const SerializerSnapshot& s) {
  if (d.ok()) return std::move(d).value();
  return make_opaque(s, d.error().message);
}

// A top-level value of a table serializer that `t` describes: the binary layouts, or the
// scalars whose serializers take the type's precision and scale.
Result<DecoderPtr> top_level(const LogicalType& t, const std::string& serializer_class, uint64_t at) {
  CKPT_ASSIGN_OR_RETURN(auto d, make_binary_value(t, nullptr, serializer_class, at));
  if (d) return d;
  auto scalar = [&](Kind k) {
    return DecoderPtr(std::make_unique<TableScalarDecoder>(serializer_class, k, t.precision, t.scale));
  };
  if (t.root == "VARCHAR" || t.root == "CHAR") return scalar(Kind::kString);
  if (t.root == "DECIMAL") return scalar(Kind::kDecimal);
  if (t.root == "TIMESTAMP_WITHOUT_TIME_ZONE" || t.root == "TIMESTAMP_WITH_LOCAL_TIME_ZONE") return scalar(Kind::kTimestamp);
  return DecoderPtr();
}

// The legacy TypeSerializerConfigSnapshot form keeps the serializer itself, Java-serialized.
Result<DecoderPtr> make_legacy(const SerializerSnapshot& s) {
  ByteReader r(s.legacy_java_serializer, s.offset);
  auto t = read_java_table_serializer(r);
  if (!t.ok()) return DecoderPtr();
  return top_level(*t, s.serializer_class, s.offset);
}

}  // namespace

DecoderPtr make_raw_inner(const LogicalType& type, const SerializerSnapshot* raw_snapshot) {
  if (raw_snapshot && raw_snapshot->nested.size() == 1)
    return unwrap(make_decoder(raw_snapshot->nested[0]), raw_snapshot->nested[0]);
  SerializerSnapshot named;
  named.serializer_class = type.class_name.empty() ? "RAW" : type.class_name;
  if (type.serializer.empty())
    return make_opaque(named, fmt::format("RAW value of {}: its serializer is not stored with the type", named.serializer_class));
  SerializerSnapshot s = singleton_snapshot(type.serializer);
  auto d = unwrap(make_decoder(s), s);
  if (d->decodable()) return d;
  return make_opaque(named, fmt::format("RAW value of {} written by {}, a serializer ckpt knows only by its snapshot",
                                        named.serializer_class, type.serializer));
}

Result<DecoderPtr> make_table(const SerializerSnapshot& s) {
  auto scalar = [&](Kind k, int32_t precision = -1, int32_t scale = -1) {
    return DecoderPtr(std::make_unique<TableScalarDecoder>(s.serializer_class, k, precision, scale));
  };
  const auto& p = s.parameters;
  if (s.form == SnapshotForm::kSimple) {
    if (is_table(s, "StringDataSerializer$StringDataSerializerSnapshot")) return scalar(Kind::kString);
    if (s.serializer_class == kNullSerializer) return scalar(Kind::kNull);
    return DecoderPtr();
  }
  if (s.form == SnapshotForm::kParameters) {
    if (is_table(s, "DecimalDataSerializer$DecimalSerializerSnapshot")) return scalar(Kind::kDecimal, p[0], p[1]);
    if (is_table(s, "TimestampDataSerializer$TimestampDataSerializerSnapshot")) return scalar(Kind::kTimestamp, p[0]);
    if (is_table(s, "BinaryRowDataSerializer$BinaryRowDataSerializerSnapshot")) return scalar(Kind::kBinaryRow, p[0]);
    return DecoderPtr();
  }
  if (s.form == SnapshotForm::kJavaTypes) {
    // ArrayData: the element type; MapData: key and value (MULTISET is a MAP to INT here).
    LogicalType t;
    t.root = s.logical_types.size() == 1 ? "ARRAY" : "MAP";
    t.children = s.logical_types;
    return make_binary_value(t, nullptr, s.serializer_class, s.offset);
  }
  if (s.form == SnapshotForm::kLegacyConfig) return make_legacy(s);
  if (s.form != SnapshotForm::kComposite) return DecoderPtr();
  if (is_table(s, "RawValueDataSerializer$RawValueDataSerializerSnapshot") && s.nested.size() == 1)
    return DecoderPtr(std::make_unique<RawValueDecoder>(s.serializer_class, make_raw_inner({}, &s)));
  if (is_table(s, "ExternalSerializer$ExternalSerializerSnapshot")) {
    if (s.nested.size() != 1)
      return Error(ErrorCode::kCorruption, fmt::format("ExternalSerializer snapshot has {} nested serializers", s.nested.size()),
                   s.offset);
    // The DataType names what the internal serializer's snapshot does not: attributes of
    // structured types. Bytes are the internal serializer's either way.
    if (s.logical_types_decoded) {
      auto d = make_binary_value(s.logical_types[0], &s.nested[0], s.nested[0].serializer_class, s.offset);
      if (d.ok() && *d) return d;
    }
    return make_decoder(s.nested[0]);
  }
  return DecoderPtr();
}

}  // namespace ckpt::decoders
