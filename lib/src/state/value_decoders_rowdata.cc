// SQL RowData values in the BinaryRowData layout (formats/serializers.md §8), decoded field by
// field from the logical types of the RowDataSerializer snapshot.
#include <cstring>

#include <fmt/format.h>

#include "state/value_decoders.h"

namespace ckpt::decoders {
namespace {

constexpr uint64_t kInlineMark = uint64_t{1} << 63;

// A region of a binary value (a row, an array or a map) inside the value's bytes.
struct Region {
  size_t start = 0;
  size_t size = 0;
};

// Reads BinaryRowData / BinaryArrayData / BinaryMapData, all little endian (Flink writes them
// in the machine order of its MemorySegments, little endian on every supported platform).
class BinaryReader {
 public:
  explicit BinaryReader(ByteReader& r) : r_(r) {}

  void row(Region g, const std::vector<LogicalType>& types, nlohmann::json& out) {
    size_t arity = types.size();
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
      field(g, g.start + null_bytes + 8 * i, types[i], fields.emplace_back());
    }
    out = {{"kind", kKinds[kind]}, {"fields", std::move(fields)}};
  }

 private:
  static size_t slot_width(const LogicalType& t) {
    const std::string& k = t.root;
    if (k == "BOOLEAN" || k == "TINYINT") return 1;
    if (k == "SMALLINT") return 2;
    if (k == "INTEGER" || k == "FLOAT" || k == "DATE" || k == "TIME_WITHOUT_TIME_ZONE" ||
        k == "INTERVAL_YEAR_MONTH")
      return 4;
    return 8;
  }

  // One value whose fixed-size slot is at `slot`; variable parts are relative to `g.start`.
  void field(Region g, size_t slot, const LogicalType& t, nlohmann::json& out) {
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
    } else if (k == "ROW") {
      if (auto sub = nested(g, slot)) row(*sub, t.children, out);
    } else if (k == "ARRAY") {
      if (auto sub = nested(g, slot)) array(*sub, t.children[0], out);
    } else if (k == "MAP" || k == "MULTISET") {
      if (auto sub = nested(g, slot)) map(*sub, t, out);
    } else if (auto bytes = variable(g, slot)) {
      out = {{"hex", to_hex(*bytes)}, {"why", fmt::format("{} values need the job's classes", k)}};
    }
  }

  void array(Region g, const LogicalType& elem, nlohmann::json& out) {
    if (!fits(g, 0, 4, "array")) return;
    uint64_t n = le(g.start, 4);
    size_t width = slot_width(elem);
    size_t header = 4 + ((n + 31) / 32) * 4;
    if (n > g.size || !fits(g, 0, header + n * width, "array")) return;
    out = nlohmann::json::array();
    for (size_t i = 0; i < n && r_.ok(); ++i) {
      if (byte(g.start + 4 + i / 8) & (1u << (i % 8))) out.emplace_back(nullptr);
      else field(g, g.start + header + i * width, elem, out.emplace_back());
    }
  }

  void map(Region g, const LogicalType& t, nlohmann::json& out) {
    if (!fits(g, 0, 4, "map")) return;
    size_t key_bytes = static_cast<uint32_t>(le(g.start, 4));
    if (!fits(g, 4, key_bytes, "map keys")) return;
    Region keys{g.start + 4, key_bytes};
    Region values{g.start + 4 + key_bytes, g.size - 4 - key_bytes};
    LogicalType count;
    count.root = "INTEGER";
    const LogicalType& value_type = t.root == "MAP" ? t.children[1] : count;
    nlohmann::json ks, vs;
    array(keys, t.children[0], ks);
    if (r_.ok()) array(values, value_type, vs);
    if (!r_.ok()) return;
    if (ks.size() != vs.size()) {
      r_.fail_at(abs(g.start), fmt::format("map with {} keys and {} values", ks.size(), vs.size()));
      return;
    }
    out = nlohmann::json::array();
    for (size_t i = 0; i < ks.size(); ++i) out.push_back({std::move(ks[i]), std::move(vs[i])});
  }

  // Strings and byte strings: up to 7 bytes inline in the slot, else (offset << 32 | length).
  std::optional<std::string_view> binary(Region g, size_t slot) {
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

  std::optional<std::string_view> variable(Region g, size_t slot) {
    uint64_t v = le(slot, 8);
    size_t off = static_cast<size_t>(v >> 32), len = static_cast<size_t>(v & 0xffffffffu);
    if (!fits(g, off, len, "variable-length field")) return std::nullopt;
    return view(g.start + off, len);
  }

  std::optional<Region> nested(Region g, size_t slot) {
    uint64_t v = le(slot, 8);
    size_t off = static_cast<size_t>(v >> 32), len = static_cast<size_t>(v & 0xffffffffu);
    if (!fits(g, off, len, "nested value")) return std::nullopt;
    return Region{g.start + off, len};
  }

  bool fits(Region g, size_t off, size_t len, const char* what) {
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

class RowDataDecoder final : public ValueDecoder {
 public:
  explicit RowDataDecoder(const SerializerSnapshot& s)
      : ValueDecoder(s.serializer_class), types_(s.logical_types), known_(s.logical_types_decoded) {}

  void read(ByteReader& r, nlohmann::json& out) const override {
    int32_t n = r.count(1, "binary row byte");
    uint64_t at = r.offset();
    std::string_view bytes = r.bytes(static_cast<size_t>(n));
    if (!r.ok()) return;
    if (!known_) {
      out = {{"hex", to_hex(bytes)}, {"why", "the RowData field types were not understood"}};
      return;
    }
    ByteReader row(bytes, at);
    BinaryReader(row).row(Region{0, bytes.size()}, types_, out);
    if (!row.ok()) r.fail_at(row.error()->offset.value_or(at), row.error()->message);
  }
  void skip(ByteReader& r) const override { r.skip(static_cast<size_t>(r.count(1, "binary row byte"))); }

 private:
  std::vector<LogicalType> types_;
  bool known_;
};

}  // namespace

Result<DecoderPtr> make_row_data(const SerializerSnapshot& s) {
  return DecoderPtr(std::make_unique<RowDataDecoder>(s));
}

}  // namespace ckpt::decoders
