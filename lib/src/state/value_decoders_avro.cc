// Avro values as Flink's AvroSerializer writes them: not Avro's binary encoding but Flink's
// DataOutputEncoder (formats/serializers.md §9), decoded with the writer schema of the snapshot.
#include <map>

#include <fmt/format.h>

#include "state/value_decoders.h"

namespace ckpt::decoders {
namespace {

constexpr int kMaxDepth = 64;

enum class AvroKind { kNull, kBoolean, kInt, kLong, kFloat, kDouble, kBytes, kString, kRecord, kEnum, kArray,
                      kMap, kUnion, kFixed };

struct AvroNode {
  AvroKind kind = AvroKind::kNull;
  std::string name;                       // record / enum / fixed full name
  std::vector<std::string> field_names;   // record fields; enum symbols
  std::vector<size_t> children;           // record fields, union branches, array item, map value
  size_t fixed_size = 0;
};

// The schema as a graph of nodes (named types may refer to themselves).
class AvroSchema {
 public:
  Status parse(const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) return Error(ErrorCode::kCorruption, "avro schema is not valid JSON");
    auto root = node(j, "");
    if (!root.ok()) return root.error();
    root_ = *root;
    return Status::OK();
  }
  const AvroNode& at(size_t i) const { return nodes_[i]; }
  size_t root() const { return root_; }

 private:
  Result<size_t> node(const nlohmann::json& j, const std::string& ns) {
    if (nodes_.size() > 10000) return Error(ErrorCode::kCorruption, "avro schema too large");
    if (j.is_array()) {
      size_t id = add(AvroKind::kUnion);
      for (const auto& b : j) {
        CKPT_ASSIGN_OR_RETURN(size_t c, node(b, ns));
        nodes_[id].children.push_back(c);
      }
      return id;
    }
    if (j.is_string()) return primitive_or_named(j.get<std::string>(), ns);
    if (!j.is_object() || !j.contains("type")) return Error(ErrorCode::kCorruption, "avro schema node without a type");
    const auto& type = j["type"];
    if (!type.is_string()) return node(type, ns);
    std::string t = type.get<std::string>();
    if (t == "record" || t == "error" || t == "enum" || t == "fixed") {
      std::string name = j.value("name", "");
      std::string space = j.value("namespace", ns);
      std::string full = name.find('.') != std::string::npos || space.empty() ? name : space + "." + name;
      std::string inner_ns = full.substr(0, full.rfind('.') == std::string::npos ? 0 : full.rfind('.'));
      size_t id = add(t == "enum" ? AvroKind::kEnum : t == "fixed" ? AvroKind::kFixed : AvroKind::kRecord);
      nodes_[id].name = full;
      named_[full] = id;
      if (t == "enum") {
        for (const auto& s : j.value("symbols", nlohmann::json::array())) nodes_[id].field_names.push_back(s);
      } else if (t == "fixed") {
        nodes_[id].fixed_size = j.value("size", size_t{0});
      } else {
        for (const auto& f : j.value("fields", nlohmann::json::array())) {
          if (!f.is_object() || !f.contains("type")) return Error(ErrorCode::kCorruption, "avro field without a type");
          CKPT_ASSIGN_OR_RETURN(size_t c, node(f["type"], inner_ns));
          nodes_[id].field_names.push_back(f.value("name", ""));
          nodes_[id].children.push_back(c);
        }
      }
      return id;
    }
    if (t == "array" || t == "map") {
      size_t id = add(t == "array" ? AvroKind::kArray : AvroKind::kMap);
      const char* key = t == "array" ? "items" : "values";
      if (!j.contains(key)) return Error(ErrorCode::kCorruption, fmt::format("avro {} without {}", t, key));
      CKPT_ASSIGN_OR_RETURN(size_t c, node(j[key], ns));
      nodes_[id].children.push_back(c);
      return id;
    }
    return primitive_or_named(t, ns);
  }

  Result<size_t> primitive_or_named(const std::string& t, const std::string& ns) {
    static const std::map<std::string, AvroKind> kPrimitives = {
        {"null", AvroKind::kNull},   {"boolean", AvroKind::kBoolean}, {"int", AvroKind::kInt},
        {"long", AvroKind::kLong},   {"float", AvroKind::kFloat},     {"double", AvroKind::kDouble},
        {"bytes", AvroKind::kBytes}, {"string", AvroKind::kString}};
    if (auto p = kPrimitives.find(t); p != kPrimitives.end()) return add(p->second);
    if (auto n = named_.find(t); n != named_.end()) return n->second;
    if (auto n = named_.find(ns + "." + t); n != named_.end()) return n->second;
    return Error(ErrorCode::kNotSupported, fmt::format("avro type {} is not defined in the schema", t));
  }

  size_t add(AvroKind k) {
    nodes_.emplace_back();
    nodes_.back().kind = k;
    return nodes_.size() - 1;
  }

  std::vector<AvroNode> nodes_;
  std::map<std::string, size_t> named_;
  size_t root_ = 0;
};

class AvroDecoder final : public ValueDecoder {
 public:
  AvroDecoder(const SerializerSnapshot& s, AvroSchema schema)
      : ValueDecoder(s.serializer_class), schema_(std::move(schema)) {}

  void read(ByteReader& r, nlohmann::json& out) const override { value(r, schema_.root(), out, 0); }

 private:
  // DataOutputEncoder's block counts: unsigned 7-bit groups, low first.
  static uint64_t count(ByteReader& r) { return r.varint(10); }

  void value(ByteReader& r, size_t id, nlohmann::json& out, int depth) const {
    if (depth > kMaxDepth) {
      r.fail(fmt::format("avro values nested deeper than {}", kMaxDepth));
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
  AvroSchema schema;
  Status st = schema.parse(s.avro_schema);
  if (!st.ok()) return make_opaque(s, fmt::format("avro schema not understood: {}", st.error().message));
  return DecoderPtr(std::make_unique<AvroDecoder>(s, std::move(schema)));
}

}  // namespace ckpt::decoders
