// SQL values in the table runtime's binary layouts (formats/serializers.md §8): BinaryRowData,
// BinaryArrayData and BinaryMapData, decoded field by field from their logical types.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "types/java_hash.h"
#include "support/byte_writer.h"
#include "support/json_input.h"
#include "types/value_decoders.h"

namespace ckpt::decoders {
namespace {

constexpr uint64_t kInlineMark = uint64_t{1} << 63;
constexpr int kMaxTypeDepth = 32;
constexpr std::string_view kRowDataSnapshot =
    "org.apache.flink.table.runtime.typeutils.RowDataSerializer$RowDataSerializerSnapshot";
constexpr std::string_view kRawSnapshot =
    "org.apache.flink.table.runtime.typeutils.RawValueDataSerializer$RawValueDataSerializerSnapshot";

// A logical type with what decoding needs beyond it: DISTINCT types resolved to their source
// type, and RAW types paired with the decoder of their serializer's bytes.
struct Plan {
  std::string root;
  int32_t precision = -1;
  int32_t scale = -1;
  std::vector<std::string> names;           // STRUCTURED_TYPE attributes
  std::string class_name;                   // STRUCTURED_TYPE
  std::shared_ptr<const ValueDecoder> raw;  // RAW
  std::vector<Plan> children;
};

// `snapshot` is the serializer snapshot InternalSerializers made for `t`, where known: a
// RowDataSerializer's nested field snapshots lead to the RawValueDataSerializer snapshots of
// RAW fields. Inside arrays and maps only the RawType's own serializer class is known.
// `at` is the offset of the snapshot the types came from, for errors.
Result<Plan> plan_of(const LogicalType& t, const SerializerSnapshot* snapshot, uint64_t at, int depth) {
  if (depth > kMaxTypeDepth) return Error(ErrorCode::kCorruption, "logical types nested deeper than 32", at);
  if (t.root == "DISTINCT_TYPE" && !t.children.empty()) return plan_of(t.children[0], snapshot, at, depth + 1);
  Plan p;
  p.root = t.root;
  p.precision = t.precision;
  p.scale = t.scale;
  if (t.root == "RAW") {
    const SerializerSnapshot* raw = snapshot && snapshot->snapshot_class == kRawSnapshot ? snapshot : nullptr;
    p.raw = make_raw_inner(t, raw);
    return p;
  }
  if (t.root == "STRUCTURED_TYPE") {
    p.names = t.field_names;
    p.class_name = t.class_name.empty() ? "STRUCTURED_TYPE" : t.class_name;
  }
  if ((t.root == "ARRAY" || t.root == "MULTISET") && t.children.size() != 1)
    return Error(ErrorCode::kCorruption, fmt::format("{} type with {} element types", t.root, t.children.size()), at);
  if (t.root == "MAP" && t.children.size() != 2)
    return Error(ErrorCode::kCorruption, fmt::format("MAP type with {} key and value types", t.children.size()), at);
  bool fields_known = snapshot && snapshot->snapshot_class == kRowDataSnapshot &&
                      snapshot->nested.size() == t.children.size();
  for (size_t i = 0; i < t.children.size(); ++i) {
    CKPT_ASSIGN_OR_RETURN(auto c, plan_of(t.children[i], fields_known ? &snapshot->nested[i] : nullptr, at, depth + 1));
    p.children.push_back(std::move(c));
  }
  if (t.root == "MULTISET") {
    // A multiset is a map from element to its count, an INT NOT NULL (InternalSerializers).
    Plan count;
    count.root = "INTEGER";
    p.children.push_back(std::move(count));
  }
  return p;
}

// A data view of an aggregate's accumulator (a MapView or ListView field kept in state of its
// own) is a RAW field of NullSerializer (DataViewUtils), which Flink writes as one byte and
// reads back as null: a null there is written as that byte, as Flink writes it, not as a null
// field.
bool data_view_field(const Plan& t) {
  return t.root == "RAW" && t.raw && t.raw->serializer_class() == "org.apache.flink.table.dataview.NullSerializer";
}

// A region of a binary value (a row, an array or a map) inside the value's bytes.
struct RowRegion {
  size_t start = 0;
  size_t size = 0;
};

// Reads BinaryRowData / BinaryArrayData / BinaryMapData, all little endian (Flink writes them
// in the machine order of its MemorySegments, little endian on every supported platform).
class BinaryReader {
 public:
  explicit BinaryReader(ByteReader& r) : r_(r) {}

  // ROW and STRUCTURED_TYPE values: a BinaryRowData of the plan's fields.
  void row(RowRegion g, const Plan& p, nlohmann::json& out) {
    size_t arity = p.children.size();
    size_t null_bytes = ((arity + 63 + 8) / 64) * 8;
    if (!fits(g, 0, null_bytes + 8 * arity, "row")) return;
    uint8_t kind = byte(g.start);
    static const char* kKinds[] = {"+I", "-U", "+U", "-D"};
    if (kind > 3) {
      r_.fail_at(abs(g.start), fmt::format("unknown row kind {}", kind));
      return;
    }
    nlohmann::json fields = nlohmann::json::array();
    for (size_t i = 0; i < arity && r_.ok(); ++i) {
      size_t bit = i + 8;
      if (byte(g.start + bit / 8) & (1u << (bit % 8))) {
        fields.emplace_back(nullptr);
        continue;
      }
      field(g, g.start + null_bytes + 8 * i, p.children[i], fields.emplace_back());
    }
    if (!r_.ok()) return;
    if (p.root != "STRUCTURED_TYPE") {
      out = {{"kind", kKinds[kind]}, {"fields", std::move(fields)}};
      return;
    }
    // A structured type is stored as a row of its attributes; named as a POJO is.
    nlohmann::json named = nlohmann::json::object();
    for (size_t i = 0; i < arity; ++i)
      named[i < p.names.size() ? p.names[i] : fmt::format("f{}", i)] = std::move(fields[i]);
    out = {{"class", p.class_name}, {"fields", std::move(named)}};
    if (kind != 0) out["kind"] = kKinds[kind];
  }

  void array(RowRegion g, const Plan& elem, nlohmann::json& out) {
    if (!fits(g, 0, 4, "array")) return;
    uint64_t n = le(g.start, 4);
    size_t width = slot_width(elem);
    if (n > g.size) {
      r_.fail_at(abs(g.start), fmt::format("array of {} elements in {} bytes", n, g.size));
      return;
    }
    size_t header = 4 + ((n + 31) / 32) * 4;
    if (!fits(g, 0, header + n * width, "array")) return;
    out = nlohmann::json::array();
    for (size_t i = 0; i < n && r_.ok(); ++i) {
      if (byte(g.start + 4 + i / 8) & (1u << (i % 8))) out.emplace_back(nullptr);
      else field(g, g.start + header + i * width, elem, out.emplace_back());
    }
  }

  // MAP and MULTISET: a key array and a value array of equal length, printed as [k, v] pairs.
  void map(RowRegion g, const Plan& p, nlohmann::json& out) {
    if (!fits(g, 0, 4, "map")) return;
    size_t key_bytes = static_cast<uint32_t>(le(g.start, 4));
    if (!fits(g, 4, key_bytes, "map keys")) return;
    RowRegion keys{g.start + 4, key_bytes};
    RowRegion values{g.start + 4 + key_bytes, g.size - 4 - key_bytes};
    nlohmann::json ks, vs;
    array(keys, p.children[0], ks);
    if (r_.ok()) array(values, p.children[1], vs);
    if (!r_.ok()) return;
    if (ks.size() != vs.size()) {
      r_.fail_at(abs(g.start), fmt::format("map with {} keys and {} values", ks.size(), vs.size()));
      return;
    }
    out = nlohmann::json::array();
    for (size_t i = 0; i < ks.size(); ++i) out.push_back({std::move(ks[i]), std::move(vs[i])});
  }

 private:
  // BinaryArrayData#calculateFixLengthPartSize; BinaryRowData gives every field 8 bytes.
  static size_t slot_width(const Plan& t) {
    const std::string& k = t.root;
    if (k == "BOOLEAN" || k == "TINYINT") return 1;
    if (k == "SMALLINT") return 2;
    if (k == "INTEGER" || k == "FLOAT" || k == "DATE" || k == "TIME_WITHOUT_TIME_ZONE" ||
        k == "INTERVAL_YEAR_MONTH")
      return 4;
    return 8;
  }

  // One value whose fixed-size slot is at `slot`; variable parts are relative to `g.start`.
  void field(RowRegion g, size_t slot, const Plan& t, nlohmann::json& out) {
    const std::string& k = t.root;
    if (!fits(g, slot - g.start, slot_width(t), "field")) return;
    if (k == "BOOLEAN") out = byte(slot) != 0;
    else if (k == "TINYINT") out = static_cast<int8_t>(byte(slot));
    else if (k == "SMALLINT") out = static_cast<int16_t>(le(slot, 2));
    else if (k == "INTEGER" || k == "DATE" || k == "TIME_WITHOUT_TIME_ZONE" || k == "INTERVAL_YEAR_MONTH")
      out = static_cast<int32_t>(le(slot, 4));
    else if (k == "BIGINT" || k == "INTERVAL_DAY_TIME") out = static_cast<int64_t>(le(slot, 8));
    else if (k == "FLOAT") {
      auto bits = static_cast<uint32_t>(le(slot, 4));
      float f;
      std::memcpy(&f, &bits, sizeof f);
      out = float_json(f);
    } else if (k == "DOUBLE") {
      uint64_t bits = le(slot, 8);
      double d;
      std::memcpy(&d, &bits, sizeof d);
      out = double_json(d);
    } else if (k == "DECIMAL") {
      // Compact decimals (precision <= 18) keep the unscaled long in the slot.
      if (t.precision <= 18) {
        out = {{"unscaled", static_cast<int64_t>(le(slot, 8))}, {"scale", t.scale}};
      } else if (auto bytes = variable(g, slot)) {
        out = {{"unscaled", big_integer_json(*bytes)}, {"scale", t.scale}};
      }
    } else if (k == "TIMESTAMP_WITHOUT_TIME_ZONE" || k == "TIMESTAMP_WITH_LOCAL_TIME_ZONE") {
      uint64_t v = le(slot, 8);
      if (t.precision <= 3) {
        out = {{"millis", static_cast<int64_t>(v)}, {"nano_of_milli", 0}};
      } else {
        size_t off = static_cast<size_t>(v >> 32);
        if (fits(g, off, 8, "timestamp"))
          out = {{"millis", static_cast<int64_t>(le(g.start + off, 8))},
                 {"nano_of_milli", static_cast<int32_t>(v & 0xffffffffu)}};
      }
    } else if (k == "CHAR" || k == "VARCHAR") {
      if (auto bytes = binary(g, slot)) out = std::string(*bytes);
    } else if (k == "BINARY" || k == "VARBINARY") {
      if (auto bytes = binary(g, slot)) out = {{"bytes", to_hex(*bytes)}};
    } else if (k == "ROW" || k == "STRUCTURED_TYPE") {
      if (auto sub = nested(g, slot)) row(*sub, t, out);
    } else if (k == "ARRAY") {
      if (auto sub = nested(g, slot)) array(*sub, t.children[0], out);
    } else if (k == "MAP" || k == "MULTISET") {
      if (auto sub = nested(g, slot)) map(*sub, t, out);
    } else if (k == "RAW") {
      raw(g, slot, *t.raw, out);
    } else if (auto bytes = variable(g, slot)) {
      out = {{"hex", to_hex(*bytes)}, {"why", fmt::format("{} fields are not decoded", k)}};
    }
  }

  // BinaryRawValueData: the inner serializer's bytes, always in the variable part
  // (BinarySegmentUtils#readRawValueData knows no inline form).
  void raw(RowRegion g, size_t slot, const ValueDecoder& inner, nlohmann::json& out) {
    auto bytes = variable(g, slot);
    if (!bytes) return;
    uint64_t at = abs(static_cast<size_t>(bytes->data() - reinterpret_cast<const char*>(r_.data())));
    ByteReader sub(*bytes, at);
    auto v = decode_framed(inner, sub, bytes->size());
    if (!v.ok()) {
      r_.fail_at(v.error().offset.value_or(at), v.error().message, v.error().code);
      return;
    }
    out = std::move(v).value();
  }

  // Strings and byte strings: up to 7 bytes inline in the slot, else (offset << 32 | length).
  std::optional<std::string_view> binary(RowRegion g, size_t slot) {
    uint64_t v = le(slot, 8);
    if (v & kInlineMark) {
      size_t len = static_cast<size_t>((v >> 56) & 0x7f);
      if (len > 7) {
        r_.fail_at(abs(slot), fmt::format("inline binary of {} bytes (at most 7 fit)", len));
        return std::nullopt;
      }
      return view(slot, len);
    }
    return variable(g, slot);
  }

  std::optional<std::string_view> variable(RowRegion g, size_t slot) {
    uint64_t v = le(slot, 8);
    size_t off = static_cast<size_t>(v >> 32), len = static_cast<size_t>(v & 0xffffffffu);
    if (!fits(g, off, len, "variable-length field")) return std::nullopt;
    return view(g.start + off, len);
  }

  std::optional<RowRegion> nested(RowRegion g, size_t slot) {
    uint64_t v = le(slot, 8);
    size_t off = static_cast<size_t>(v >> 32), len = static_cast<size_t>(v & 0xffffffffu);
    if (!fits(g, off, len, "nested value")) return std::nullopt;
    return RowRegion{g.start + off, len};
  }

  bool fits(RowRegion g, size_t off, size_t len, const char* what) {
    if (!r_.ok()) return false;
    if (off > g.size || len > g.size - off) {
      r_.fail_at(abs(g.start), fmt::format("{} of {} bytes at +{} outside its {}-byte region", what, len, off, g.size));
      return false;
    }
    return true;
  }

  uint64_t abs(size_t pos) const { return r_.offset() - r_.position() + pos; }
  uint8_t byte(size_t pos) const { return r_.data()[pos]; }
  uint64_t le(size_t pos, int n) const {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | r_.data()[pos + static_cast<size_t>(i)];
    return v;
  }
  std::string_view view(size_t pos, size_t len) const {
    return {reinterpret_cast<const char*>(r_.data()) + pos, len};
  }

  ByteReader& r_;
};

// Writes BinaryRowData / BinaryArrayData / BinaryMapData as Flink's BinaryRowWriter and
// BinaryArrayWriter do: fixed slots (8 bytes a row field, the element width in arrays), values
// of up to 7 bytes inline in their slot (length | 0x80 in its last byte), longer ones in the
// variable part after the fixed one, each padded with zeros to 8 bytes, the slot holding
// offset << 32 | length. Null fields have their bit set and a zero slot (setNullAt).
class BinaryWriter {
 public:
  Status row(const nlohmann::json& v, const Plan& p, std::string* out) {
    const size_t arity = p.children.size();
    const size_t null_bytes = ((arity + 63 + 8) / 64) * 8;
    nlohmann::json fields_by_position;
    const nlohmann::json* fields = nullptr;
    int kind = 0;
    if (p.root == "STRUCTURED_TYPE") {
      CKPT_ASSIGN_OR_RETURN(const nlohmann::json* named, encode_member(v, "fields", "a structured value"));
      if (!named->is_object()) return encode_at(encode_expected("an object of attributes", *named), ".fields");
      fields_by_position = nlohmann::json::array();
      for (size_t i = 0; i < arity; ++i) {
        const nlohmann::json* f = json_member(*named, i < p.names.size() ? p.names[i] : fmt::format("f{}", i));
        fields_by_position.push_back(f ? *f : nlohmann::json());
      }
      fields = &fields_by_position;
    } else {
      CKPT_ASSIGN_OR_RETURN(fields, encode_member(v, "fields", "a row"));
      if (!fields->is_array() || fields->size() != arity)
        return encode_at(encode_expected(fmt::format("an array of {} fields", arity), *fields), ".fields");
    }
    if (const nlohmann::json* k = json_member(v, "kind")) {
      static const std::string kKinds[] = {"+I", "-U", "+U", "-D"};
      auto it = k->is_string() ? std::find(std::begin(kKinds), std::end(kKinds), k->get_ref<const std::string&>())
                               : std::end(kKinds);
      if (it == std::end(kKinds)) return encode_at(encode_expected("\"+I\", \"-U\", \"+U\" or \"-D\"", *k), ".kind");
      kind = static_cast<int>(it - std::begin(kKinds));
    }
    std::string& b = *out;
    b.assign(null_bytes + 8 * arity, '\0');
    b[0] = static_cast<char>(kind);
    for (size_t i = 0; i < arity; ++i) {
      const nlohmann::json& f = (*fields)[i];
      if (f.is_null() && !data_view_field(p.children[i])) {
        const size_t bit = i + 8;
        b[bit / 8] = static_cast<char>(static_cast<uint8_t>(b[bit / 8]) | (1u << (bit % 8)));
        // BinaryWriter#createNullSetter: a row's null non-compact timestamp or decimal keeps its
        // variable part (8 or 16 zero bytes) and points at it, for a later update in place.
        const Plan& t = p.children[i];
        const bool ts = t.root == "TIMESTAMP_WITHOUT_TIME_ZONE" || t.root == "TIMESTAMP_WITH_LOCAL_TIME_ZONE";
        if ((ts && t.precision > 3) || (t.root == "DECIMAL" && t.precision > 18))
          var(b, null_bytes + 8 * i, std::string(ts ? 8 : 16, '\0'), 0);
        continue;
      }
      CKPT_RETURN_IF_ERROR(encode_at(field(f, p.children[i], null_bytes + 8 * i, 8, out), fmt::format(".fields[{}]", i)));
    }
    return Status::OK();
  }

  Status array(const nlohmann::json& v, const Plan& elem, std::string* out) {
    if (!v.is_array()) return encode_expected("an array", v);
    const size_t n = v.size();
    const size_t width = slot_width(elem);
    const size_t header = 4 + ((n + 31) / 32) * 4;
    std::string& b = *out;
    b.assign(round8(header + n * width), '\0');
    put_le(b, 0, n, 4);
    for (size_t i = 0; i < n; ++i) {
      if (v[i].is_null()) {
        b[4 + i / 8] = static_cast<char>(static_cast<uint8_t>(b[4 + i / 8]) | (1u << (i % 8)));
        continue;
      }
      CKPT_RETURN_IF_ERROR(encode_at(field(v[i], elem, header + i * width, width, out), fmt::format("[{}]", i)));
    }
    return Status::OK();
  }

  Status map(const nlohmann::json& v, const Plan& p, std::string* out) {
    if (!v.is_array()) return encode_expected("an array of [key, value] pairs", v);
    nlohmann::json keys = nlohmann::json::array(), values = nlohmann::json::array();
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_array() || v[i].size() != 2)
        return encode_at(encode_expected("a [key, value] pair", v[i]), fmt::format("[{}]", i));
      keys.push_back(v[i][0]);
      values.push_back(v[i][1]);
    }
    std::string k, vs;
    CKPT_RETURN_IF_ERROR(array(keys, p.children[0], &k));
    CKPT_RETURN_IF_ERROR(array(values, p.children[1], &vs));
    out->clear();
    std::string head(4, '\0');
    put_le(head, 0, k.size(), 4);
    *out = head + k + vs;
    return Status::OK();
  }

 private:
  static size_t round8(size_t n) { return (n + 7) / 8 * 8; }
  static size_t slot_width(const Plan& t) {
    const std::string& k = t.root;
    if (k == "BOOLEAN" || k == "TINYINT") return 1;
    if (k == "SMALLINT") return 2;
    if (k == "INTEGER" || k == "FLOAT" || k == "DATE" || k == "TIME_WITHOUT_TIME_ZONE" || k == "INTERVAL_YEAR_MONTH")
      return 4;
    return 8;
  }
  static void put_le(std::string& b, size_t at, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b[at + static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  }
  // Appends `bytes` to the variable part, padded to 8 bytes; the slot gets offset << 32 | length.
  static void var(std::string& b, size_t slot, std::string_view bytes, uint64_t low) {
    const size_t at = b.size();
    b.append(bytes);
    b.append(round8(bytes.size()) - bytes.size(), '\0');
    put_le(b, slot, (static_cast<uint64_t>(at) << 32) | low, 8);
  }
  static Status integer(const nlohmann::json& v, int64_t lo, int64_t hi, const char* what, int64_t* out) {
    CKPT_ASSIGN_OR_RETURN(*out, encode_integer(v, lo, hi, what));
    return Status::OK();
  }

  Status field(const nlohmann::json& v, const Plan& t, size_t slot, size_t width, std::string* out) {
    std::string& b = *out;
    const std::string& k = t.root;
    int64_t x = 0;
    if (k == "BOOLEAN") {
      if (!v.is_boolean()) return encode_expected("true or false", v);
      b[slot] = v.get<bool>() ? 1 : 0;
    } else if (k == "TINYINT") {
      CKPT_RETURN_IF_ERROR(integer(v, INT8_MIN, INT8_MAX, "an 8-bit integer", &x));
      put_le(b, slot, static_cast<uint64_t>(x), 1);
    } else if (k == "SMALLINT") {
      CKPT_RETURN_IF_ERROR(integer(v, INT16_MIN, INT16_MAX, "a 16-bit integer", &x));
      put_le(b, slot, static_cast<uint64_t>(x), 2);
    } else if (k == "INTEGER" || k == "DATE" || k == "TIME_WITHOUT_TIME_ZONE" || k == "INTERVAL_YEAR_MONTH") {
      CKPT_RETURN_IF_ERROR(integer(v, INT32_MIN, INT32_MAX, "a 32-bit integer", &x));
      put_le(b, slot, static_cast<uint64_t>(x), 4);
    } else if (k == "BIGINT" || k == "INTERVAL_DAY_TIME") {
      CKPT_RETURN_IF_ERROR(integer(v, INT64_MIN, INT64_MAX, "a 64-bit integer", &x));
      put_le(b, slot, static_cast<uint64_t>(x), 8);
    } else if (k == "FLOAT" || k == "DOUBLE") {
      CKPT_ASSIGN_OR_RETURN(double d, encode_floating(v, k == "FLOAT" ? "a float" : "a double"));
      ByteWriter w;
      if (k == "FLOAT") {
        if (std::isnan(d)) w.u32(0x7fc00000u);
        else w.f32(static_cast<float>(d));
      } else {
        if (std::isnan(d)) w.u64(0x7ff8000000000000ULL);
        else w.f64(d);
      }
      // ByteWriter is big endian; binary rows are little endian.
      const std::string& be = w.buffer();
      for (size_t i = 0; i < be.size(); ++i) b[slot + i] = be[be.size() - 1 - i];
    } else if (k == "DECIMAL") {
      CKPT_ASSIGN_OR_RETURN(const nlohmann::json* unscaled, encode_member(v, "unscaled", "a decimal"));
      CKPT_ASSIGN_OR_RETURN(const nlohmann::json* scale, encode_member(v, "scale", "a decimal"));
      if (!scale->is_number_integer() || scale->get<int64_t>() != t.scale)
        return encode_at(encode_expected(fmt::format("the type's scale {}", t.scale), *scale), ".scale");
      if (t.precision <= 18) {
        auto u = encode_integer(*unscaled, INT64_MIN, INT64_MAX, "a 64-bit unscaled value (precision up to 18)");
        if (!u.ok()) return encode_at(std::move(u).error(), ".unscaled");
        put_le(b, slot, static_cast<uint64_t>(*u), 8);
      } else {
        // AbstractBinaryWriter#writeDecimal: 16 zeroed bytes reserved whatever the length.
        std::string bytes;
        CKPT_RETURN_IF_ERROR(encode_at(big_integer_bytes(*unscaled, &bytes), ".unscaled"));
        if (bytes.size() > 16) return encode_at(encode_expected("an unscaled value of at most 16 bytes", *unscaled), ".unscaled");
        const size_t at = b.size();
        b.append(bytes);
        b.append(16 - bytes.size(), '\0');
        put_le(b, slot, (static_cast<uint64_t>(at) << 32) | bytes.size(), 8);
      }
    } else if (k == "TIMESTAMP_WITHOUT_TIME_ZONE" || k == "TIMESTAMP_WITH_LOCAL_TIME_ZONE") {
      CKPT_ASSIGN_OR_RETURN(const nlohmann::json* millis, encode_member(v, "millis", "a timestamp"));
      CKPT_ASSIGN_OR_RETURN(const nlohmann::json* nanos, encode_member(v, "nano_of_milli", "a timestamp"));
      auto ms = encode_integer(*millis, INT64_MIN, INT64_MAX, "a 64-bit integer");
      if (!ms.ok()) return encode_at(std::move(ms).error(), ".millis");
      auto ns = encode_integer(*nanos, 0, t.precision <= 3 ? 0 : 999999, t.precision <= 3 ? "0 (precision up to 3)" : "0 to 999999");
      if (!ns.ok()) return encode_at(std::move(ns).error(), ".nano_of_milli");
      if (t.precision <= 3) {
        put_le(b, slot, static_cast<uint64_t>(*ms), 8);
      } else {
        std::string m(8, '\0');
        put_le(m, 0, static_cast<uint64_t>(*ms), 8);
        var(b, slot, m, static_cast<uint64_t>(*ns));
      }
    } else if (k == "CHAR" || k == "VARCHAR" || k == "BINARY" || k == "VARBINARY") {
      std::string bytes;
      if (k == "CHAR" || k == "VARCHAR") {
        if (!v.is_string()) return encode_expected("a string", v);
        bytes = v.get<std::string>();
      } else {
        const nlohmann::json* hex = json_member(v, "bytes");
        if (!hex || !hex->is_string() || !from_hex(hex->get_ref<const std::string&>(), &bytes))
          return encode_expected("{\"bytes\":\"<hex>\"}", v);
      }
      if (bytes.size() <= 7) {
        for (size_t i = 0; i < bytes.size(); ++i) b[slot + i] = bytes[i];
        b[slot + 7] = static_cast<char>(0x80 | bytes.size());
      } else {
        var(b, slot, bytes, bytes.size());
      }
    } else if (k == "ROW" || k == "STRUCTURED_TYPE" || k == "ARRAY" || k == "MAP" || k == "MULTISET") {
      std::string nested;
      if (k == "ARRAY") CKPT_RETURN_IF_ERROR(array(v, t.children[0], &nested));
      else if (k == "MAP" || k == "MULTISET") CKPT_RETURN_IF_ERROR(map(v, t, &nested));
      else CKPT_RETURN_IF_ERROR(row(v, t, &nested));
      var(b, slot, nested, nested.size());
    } else if (k == "RAW") {
      ByteWriter w;
      CKPT_RETURN_IF_ERROR(t.raw->encode(v, w));
      var(b, slot, w.buffer(), w.size());
    } else {
      return Error(ErrorCode::kNotSupported, fmt::format("{} fields are not written", k));
    }
    (void)width;
    return Status::OK();
  }
};

// i32 size, then one binary value (row, array or map) of that many bytes.
class BinaryValueDecoder final : public ValueDecoder {
 public:
  BinaryValueDecoder(std::string serializer_class, std::optional<Plan> plan)
      : ValueDecoder(std::move(serializer_class)), plan_(std::move(plan)) {}

  void read(ByteReader& r, nlohmann::json& out) const override {
    int32_t n = r.count(1, "binary value byte");
    uint64_t at = r.offset();
    std::string_view bytes = r.bytes(static_cast<size_t>(n));
    if (!r.ok()) return;
    if (!plan_) {
      out = {{"hex", to_hex(bytes)}, {"why", "the RowData field types were not understood"}};
      return;
    }
    ByteReader sub(bytes, at);
    BinaryReader reader(sub);
    RowRegion whole{0, bytes.size()};
    if (plan_->root == "ARRAY") reader.array(whole, plan_->children[0], out);
    else if (plan_->root == "MAP" || plan_->root == "MULTISET") reader.map(whole, *plan_, out);
    else reader.row(whole, *plan_, out);
    if (!sub.ok()) r.fail_at(sub.error()->offset.value_or(at), sub.error()->message, sub.error()->code);
  }
  void skip(ByteReader& r) const override { r.skip(static_cast<size_t>(r.count(1, "binary value byte"))); }
  Status encode(const nlohmann::json& v, ByteWriter& w) const override {
    std::string bytes;
    if (!plan_) {
      CKPT_ASSIGN_OR_RETURN(bytes, encode_opaque_hex(v, serializer_class()));
    } else {
      BinaryWriter writer;
      if (plan_->root == "ARRAY") CKPT_RETURN_IF_ERROR(writer.array(v, plan_->children[0], &bytes));
      else if (plan_->root == "MAP" || plan_->root == "MULTISET") CKPT_RETURN_IF_ERROR(writer.map(v, *plan_, &bytes));
      else CKPT_RETURN_IF_ERROR(writer.row(v, *plan_, &bytes));
    }
    w.i32(static_cast<int32_t>(bytes.size()));
    w.bytes(bytes);
    return Status::OK();
  }
  // Rows, arrays and maps alike (their field types play no part): hashByWords of the bytes.
  std::optional<int32_t> read_java_hash_code(ByteReader& r) const override {
    std::string_view bytes = r.bytes(static_cast<size_t>(r.count(1, "binary value byte")));
    if (!r.ok()) return std::nullopt;
    return flink_binary_section_hash(bytes);
  }

 private:
  std::optional<Plan> plan_;
};

}  // namespace

Result<DecoderPtr> make_row_data(const SerializerSnapshot& s) {
  if (!s.logical_types_decoded) return DecoderPtr(std::make_unique<BinaryValueDecoder>(s.serializer_class, std::nullopt));
  LogicalType row;
  row.root = "ROW";
  row.children = s.logical_types;
  CKPT_ASSIGN_OR_RETURN(auto plan, plan_of(row, &s, s.offset, 0));
  return DecoderPtr(std::make_unique<BinaryValueDecoder>(s.serializer_class, std::move(plan)));
}

Result<DecoderPtr> make_binary_value(const LogicalType& type, const SerializerSnapshot* internal,
                                     const std::string& serializer_class, uint64_t at) {
  const LogicalType* t = &type;
  for (int i = 0; t->root == "DISTINCT_TYPE" && !t->children.empty() && i < kMaxTypeDepth; ++i) t = &t->children[0];
  const std::string& k = t->root;
  if (k != "ROW" && k != "STRUCTURED_TYPE" && k != "ARRAY" && k != "MAP" && k != "MULTISET") return DecoderPtr();
  CKPT_ASSIGN_OR_RETURN(auto plan, plan_of(*t, internal, at, 0));
  return DecoderPtr(std::make_unique<BinaryValueDecoder>(serializer_class, std::move(plan)));
}

}  // namespace ckpt::decoders
