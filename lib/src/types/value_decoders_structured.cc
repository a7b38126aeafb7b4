// Decoders of Flink's container and record serializers: tuples, rows, POJOs, lists, maps,
// nullable / either / TTL wrappers, timers, enums (formats/serializers.md §6, §7).
#include <algorithm>
#include <iterator>
#include <string_view>

#include <fmt/format.h>

#include "types/value_decoders.h"
#include "support/json_input.h"
#include "support/json_text.h"

namespace ckpt::decoders {
namespace {

// What a structured decoder does with its children.
enum class Shape {
  kTuple,           // fields in order, JSON array
  kList,            // i32 n + n elements
  kMap,             // i32 n + n x (key, bool isNull, value)
  kNullable,        // bool isNull; null -> padding bytes
  kEither,          // bool isLeft + left or right
  kOption,          // Scala Option: bool isSome + value
  kTry,             // Scala Try: bool isSuccess + value or throwable
  kGenericArray,    // i32 n + n x (bool present + element)
  kSet,             // Flink 2.x SetSerializer: i32 n + n x (bool isNull + element)
  kTtl,             // i64 timestamp + user value
  kTimer,           // i64 timestamp ^ sign bit, key, namespace
  kStreamElement,   // u8 tag + payload
  kBufferEntry,     // bool joined + element
  kUnion,           // u8 1 + first / u8 2 + second
  kLinkedList,      // i32 n, optional null mask, non-null elements
  kDelegate,        // the single child's bytes (ListView, MapView, TtlAware)
  kRow,             // null mask (+ RowKind bits) + non-null fields
  kTwoPhaseCommit,  // TwoPhaseCommitSinkFunction state: pending txn, pending commits, context
  kWindowKey,       // table WindowKey: i64 window + key
};

const char* row_kind_name(int kind) {
  static const char* kNames[] = {"+I", "-U", "+U", "-D"};
  return kNames[kind & 3];
}

class StructuredDecoder final : public ValueDecoder {
 public:
  StructuredDecoder(const SerializerSnapshot& s, Shape shape, std::vector<DecoderPtr> children)
      : ValueDecoder(s.serializer_class), shape_(shape), children_(std::move(children)),
        padding_(s.null_padding), row_kind_(s.row_kind), null_mask_(s.has_null_mask),
        nullable_txn_(s.nullable_pending_txn), outer_version_(s.outer_version) {}

  bool decodable() const override { return all_decodable(children_); }
  std::string why_not() const override { return first_why_not(children_); }

  int32_t fixed_length() const override {
    switch (shape_) {
      case Shape::kTuple: case Shape::kTtl: case Shape::kTimer: {
        int32_t sum = shape_ == Shape::kTuple ? 0 : 8;
        for (const auto& c : children_) {
          int32_t l = c->fixed_length();
          if (l < 0) return -1;
          sum += l;
        }
        return sum;
      }
      case Shape::kNullable: {
        int32_t l = children_[0]->fixed_length();
        return padding_ > 0 && l >= 0 ? l + 1 : -1;
      }
      case Shape::kDelegate: return children_[0]->fixed_length();
      default: return -1;
    }
  }

  // read()'s reads for the containers state values most often are, each child checked as it
  // would be read; the other shapes read into a scratch tree.
  void check(ByteReader& r) const override {
    switch (shape_) {
      case Shape::kTuple:
        for (const auto& c : children_) {
          if (!r.ok()) return;
          c->check(r);
        }
        return;
      case Shape::kList: {
        int32_t n = r.count(0, "list element");
        for (int32_t i = 0; i < n && r.ok(); ++i) children_[0]->check(r);
        return;
      }
      case Shape::kMap: {
        int32_t n = r.count(2, "map entry");
        for (int32_t i = 0; i < n && r.ok(); ++i) {
          children_[0]->check(r);
          if (!r.boolean()) children_[1]->check(r);
        }
        return;
      }
      case Shape::kNullable:
        if (r.boolean())
          r.skip(static_cast<size_t>(padding_));
        else
          children_[0]->check(r);
        return;
      case Shape::kOption:
        if (r.boolean()) children_[0]->check(r);
        return;
      case Shape::kTtl:
        r.i64();
        children_[1]->check(r);
        return;
      case Shape::kDelegate: children_[0]->check(r); return;
      default: ValueDecoder::check(r); return;
    }
  }

  // Whether read() gives an array of [key, value] pairs (a map state's heap value).
  bool reads_pairs() const override { return shape_ == Shape::kMap; }

  void read(ByteReader& r, nlohmann::json& out) const override {
    switch (shape_) {
      case Shape::kTuple:
        out = nlohmann::json::array();
        for (const auto& c : children_) {
          if (!r.ok()) return;
          c->read(r, out.emplace_back());
        }
        return;
      case Shape::kList: {
        int32_t n = r.count(0, "list element");
        out = nlohmann::json::array();
        for (int32_t i = 0; i < n && r.ok(); ++i) children_[0]->read(r, out.emplace_back());
        return;
      }
      case Shape::kMap: {
        int32_t n = r.count(2, "map entry");
        out = nlohmann::json::array();
        for (int32_t i = 0; i < n && r.ok(); ++i) {
          nlohmann::json& pair = out.emplace_back(nlohmann::json::array());
          children_[0]->read(r, pair.emplace_back());
          if (r.boolean()) pair.emplace_back(nullptr);
          else children_[1]->read(r, pair.emplace_back());
        }
        return;
      }
      case Shape::kNullable:
        if (r.boolean()) {
          r.skip(static_cast<size_t>(padding_));
          out = nullptr;
        } else {
          children_[0]->read(r, out);
        }
        return;
      case Shape::kEither: {
        bool left = r.boolean();
        nlohmann::json v;
        children_[left ? 0 : 1]->read(r, v);
        out = {{left ? "left" : "right", std::move(v)}};
        return;
      }
      case Shape::kOption:
        if (r.boolean()) children_[0]->read(r, out);
        else out = nullptr;
        return;
      case Shape::kTry: {
        bool success = r.boolean();
        nlohmann::json v;
        children_[success ? 0 : 1]->read(r, v);
        out = {{success ? "success" : "failure", std::move(v)}};
        return;
      }
      case Shape::kGenericArray: {
        int32_t n = r.count(1, "array element");
        out = nlohmann::json::array();
        for (int32_t i = 0; i < n && r.ok(); ++i) {
          if (r.boolean()) children_[0]->read(r, out.emplace_back());
          else out.emplace_back(nullptr);
        }
        return;
      }
      case Shape::kSet: {
        int32_t n = r.count(1, "set element");
        out = nlohmann::json::array();
        for (int32_t i = 0; i < n && r.ok(); ++i) {
          if (r.boolean())
            out.emplace_back(nullptr);
          else
            children_[0]->read(r, out.emplace_back());
        }
        return;
      }
      case Shape::kTtl: read_long_then(r, "ttl_ts", *children_[1], "value", out); return;
      case Shape::kTimer: {
        auto ts = static_cast<int64_t>(r.u64() ^ 0x8000000000000000ULL);
        nlohmann::json key, ns;
        children_[0]->read(r, key);
        if (r.ok()) children_[1]->read(r, ns);
        out = {{"timestamp", ts}, {"key", std::move(key)}, {"namespace", std::move(ns)}};
        return;
      }
      case Shape::kStreamElement: read_stream_element(r, out); return;
      case Shape::kBufferEntry: {
        bool joined = r.boolean();
        nlohmann::json v;
        children_[0]->read(r, v);
        out = {{"joined", joined}, {"element", std::move(v)}};
        return;
      }
      case Shape::kUnion: {
        uint64_t at = r.offset();
        uint8_t tag = r.u8();
        if (!r.ok()) return;
        if (tag != 1 && tag != 2) {
          r.fail_at(at, fmt::format("unknown tagged union tag {} (expected 1 or 2)", tag));
          return;
        }
        nlohmann::json v;
        children_[tag - 1]->read(r, v);
        out = {{tag == 1 ? "one" : "two", std::move(v)}};
        return;
      }
      case Shape::kLinkedList: {
        int32_t n = r.count(0, "list element");
        std::string_view mask;
        if (null_mask_) mask = r.bytes((static_cast<size_t>(n) + 7) / 8);
        out = nlohmann::json::array();
        for (int32_t i = 0; i < n && r.ok(); ++i) {
          if (null_mask_ && (static_cast<uint8_t>(mask[i / 8]) & (0x80 >> (i % 8)))) out.emplace_back(nullptr);
          else children_[0]->read(r, out.emplace_back());
        }
        return;
      }
      case Shape::kDelegate: children_[0]->read(r, out); return;
      case Shape::kRow: read_row(r, out); return;
      case Shape::kTwoPhaseCommit: read_two_phase_commit(r, out); return;
      case Shape::kWindowKey: read_long_then(r, "window", *children_[0], "key", out); return;
    }
  }

  Status encode(const nlohmann::json& v, ByteWriter& w) const override {
    switch (shape_) {
      case Shape::kTuple: {
        if (!v.is_array() || v.size() != children_.size())
          return encode_expected(fmt::format("an array of {} fields", children_.size()), v);
        for (size_t i = 0; i < children_.size(); ++i)
          CKPT_RETURN_IF_ERROR(encode_at(children_[i]->encode(v[i], w), fmt::format("[{}]", i)));
        return Status::OK();
      }
      case Shape::kList: {
        if (!v.is_array()) return encode_expected("an array", v);
        w.i32(static_cast<int32_t>(v.size()));
        for (size_t i = 0; i < v.size(); ++i)
          CKPT_RETURN_IF_ERROR(encode_at(children_[0]->encode(v[i], w), fmt::format("[{}]", i)));
        return Status::OK();
      }
      case Shape::kMap: {
        if (!v.is_array()) return encode_expected("an array of [key, value] pairs", v);
        w.i32(static_cast<int32_t>(v.size()));
        for (size_t i = 0; i < v.size(); ++i) {
          const nlohmann::json& pair = v[i];
          if (!pair.is_array() || pair.size() != 2)
            return encode_at(encode_expected("a [key, value] pair", pair), fmt::format("[{}]", i));
          CKPT_RETURN_IF_ERROR(encode_at(children_[0]->encode(pair[0], w), fmt::format("[{}][0]", i)));
          w.boolean(pair[1].is_null());
          if (!pair[1].is_null())
            CKPT_RETURN_IF_ERROR(encode_at(children_[1]->encode(pair[1], w), fmt::format("[{}][1]", i)));
        }
        return Status::OK();
      }
      case Shape::kNullable:
        w.boolean(v.is_null());
        if (!v.is_null()) return children_[0]->encode(v, w);
        for (int32_t i = 0; i < padding_; ++i) w.u8(0);
        return Status::OK();
      case Shape::kEither: {
        const nlohmann::json* left = json_member(v, "left");
        const nlohmann::json* right = json_member(v, "right");
        if (!v.is_object() || v.size() != 1 || (!left && !right))
          return encode_expected("{\"left\":..} or {\"right\":..}", v);
        w.boolean(left != nullptr);
        return encode_at(children_[left ? 0 : 1]->encode(left ? *left : *right, w), left ? ".left" : ".right");
      }
      case Shape::kOption:
        w.boolean(!v.is_null());
        return v.is_null() ? Status::OK() : children_[0]->encode(v, w);
      case Shape::kTry: {
        const nlohmann::json* success = json_member(v, "success");
        const nlohmann::json* failure = json_member(v, "failure");
        if (!v.is_object() || v.size() != 1 || (!success && !failure))
          return encode_expected("{\"success\":..} or {\"failure\":..}", v);
        w.boolean(success != nullptr);
        return encode_at(children_[success ? 0 : 1]->encode(success ? *success : *failure, w),
                         success ? ".success" : ".failure");
      }
      case Shape::kGenericArray: {
        if (!v.is_array()) return encode_expected("an array", v);
        w.i32(static_cast<int32_t>(v.size()));
        for (size_t i = 0; i < v.size(); ++i) {
          w.boolean(!v[i].is_null());
          if (!v[i].is_null()) CKPT_RETURN_IF_ERROR(encode_at(children_[0]->encode(v[i], w), fmt::format("[{}]", i)));
        }
        return Status::OK();
      }
      case Shape::kSet: {
        if (!v.is_array()) return encode_expected("an array", v);
        w.i32(static_cast<int32_t>(v.size()));
        for (size_t i = 0; i < v.size(); ++i) {
          w.boolean(v[i].is_null());
          if (!v[i].is_null()) CKPT_RETURN_IF_ERROR(encode_at(children_[0]->encode(v[i], w), fmt::format("[{}]", i)));
        }
        return Status::OK();
      }
      case Shape::kTtl: return encode_long_then(v, w, "ttl_ts", *children_[1], "value");
      case Shape::kWindowKey: return encode_long_then(v, w, "window", *children_[0], "key");
      case Shape::kTimer: {
        CKPT_ASSIGN_OR_RETURN(const nlohmann::json* ts, encode_member(v, "timestamp", "a timer"));
        CKPT_ASSIGN_OR_RETURN(const nlohmann::json* key, encode_member(v, "key", "a timer"));
        CKPT_ASSIGN_OR_RETURN(const nlohmann::json* ns, encode_member(v, "namespace", "a timer"));
        auto t = encode_integer(*ts, INT64_MIN, INT64_MAX, "a 64-bit timestamp");
        if (!t.ok()) return encode_at(std::move(t).error(), ".timestamp");
        w.u64(static_cast<uint64_t>(*t) ^ 0x8000000000000000ULL);
        CKPT_RETURN_IF_ERROR(encode_at(children_[0]->encode(*key, w), ".key"));
        return encode_at(children_[1]->encode(*ns, w), ".namespace");
      }
      case Shape::kStreamElement: return encode_stream_element(v, w);
      case Shape::kBufferEntry: {
        CKPT_ASSIGN_OR_RETURN(const nlohmann::json* joined, encode_member(v, "joined", "a buffer entry"));
        CKPT_ASSIGN_OR_RETURN(const nlohmann::json* element, encode_member(v, "element", "a buffer entry"));
        if (!joined->is_boolean()) return encode_at(encode_expected("true or false", *joined), ".joined");
        w.boolean(joined->get<bool>());
        return encode_at(children_[0]->encode(*element, w), ".element");
      }
      case Shape::kUnion: {
        const nlohmann::json* one = json_member(v, "one");
        const nlohmann::json* two = json_member(v, "two");
        if (!v.is_object() || v.size() != 1 || (!one && !two)) return encode_expected("{\"one\":..} or {\"two\":..}", v);
        w.u8(one ? 1 : 2);
        return encode_at(children_[one ? 0 : 1]->encode(one ? *one : *two, w), one ? ".one" : ".two");
      }
      case Shape::kLinkedList: {
        if (!v.is_array()) return encode_expected("an array", v);
        w.i32(static_cast<int32_t>(v.size()));
        if (null_mask_) {
          std::string mask((v.size() + 7) / 8, '\0');
          for (size_t i = 0; i < v.size(); ++i)
            if (v[i].is_null()) mask[i / 8] = static_cast<char>(static_cast<uint8_t>(mask[i / 8]) | (0x80 >> (i % 8)));
          w.bytes(mask);
        }
        for (size_t i = 0; i < v.size(); ++i) {
          if (null_mask_ && v[i].is_null()) continue;
          CKPT_RETURN_IF_ERROR(encode_at(children_[0]->encode(v[i], w), fmt::format("[{}]", i)));
        }
        return Status::OK();
      }
      case Shape::kDelegate: return children_[0]->encode(v, w);
      case Shape::kRow: return encode_row(v, w);
      case Shape::kTwoPhaseCommit: return ValueDecoder::encode(v, w);
    }
    return ValueDecoder::encode(v, w);  // a shape without an encoder is refused, never written as nothing
  }

  // Containers of the common types written without a tree; the rest through read().
  void write_json(ByteReader& r, std::string& out) const override {
    switch (shape_) {
      case Shape::kTuple:
        out += '[';
        for (size_t i = 0; i < children_.size() && r.ok(); ++i) {
          if (i) out += ',';
          children_[i]->write_json(r, out);
        }
        out += ']';
        return;
      case Shape::kList: {
        int32_t n = r.count(0, "list element");
        out += '[';
        for (int32_t i = 0; i < n && r.ok(); ++i) {
          if (i) out += ',';
          children_[0]->write_json(r, out);
        }
        out += ']';
        return;
      }
      case Shape::kMap: {
        int32_t n = r.count(2, "map entry");
        out += '[';
        for (int32_t i = 0; i < n && r.ok(); ++i) {
          out += i ? ",[" : "[";
          children_[0]->write_json(r, out);
          out += ',';
          if (r.boolean()) out += "null";
          else children_[1]->write_json(r, out);
          out += ']';
        }
        out += ']';
        return;
      }
      case Shape::kNullable:
        if (r.boolean()) {
          r.skip(static_cast<size_t>(padding_));
          out += "null";
        } else {
          children_[0]->write_json(r, out);
        }
        return;
      case Shape::kOption:
        if (r.boolean()) children_[0]->write_json(r, out);
        else out += "null";
        return;
      case Shape::kTtl:
        out += "{\"ttl_ts\":";  // members in key order, as the tree prints
        append_json_integer(out, r.i64());
        out += ",\"value\":";
        children_[1]->write_json(r, out);
        out += '}';
        return;
      case Shape::kDelegate: children_[0]->write_json(r, out); return;
      default: ValueDecoder::write_json(r, out); return;
    }
  }

  // The same containers as write_json(), straight into the Value.
  void read_value(ByteReader& r, Value& out) const override {
    switch (shape_) {
      case Shape::kTuple: {
        std::vector<Value> fields(children_.size());
        for (size_t i = 0; i < children_.size() && r.ok(); ++i) children_[i]->read_value(r, fields[i]);
        out = Value::array(std::move(fields));
        return;
      }
      case Shape::kList: {
        int32_t n = r.count(0, "list element");
        std::vector<Value> elements;  // not reserved: n is checked against no minimum size
        for (int32_t i = 0; i < n && r.ok(); ++i) children_[0]->read_value(r, elements.emplace_back());
        out = Value::array(std::move(elements));
        return;
      }
      case Shape::kMap: {
        int32_t n = r.count(2, "map entry");
        std::vector<Value> pairs;
        for (int32_t i = 0; i < n && r.ok(); ++i) {
          std::vector<Value> pair(2);
          children_[0]->read_value(r, pair[0]);
          if (!r.boolean()) children_[1]->read_value(r, pair[1]);
          pairs.push_back(Value::array(std::move(pair)));
        }
        out = Value::array(std::move(pairs));
        return;
      }
      case Shape::kNullable:
        if (r.boolean()) {
          r.skip(static_cast<size_t>(padding_));
          out = Value();
        } else {
          children_[0]->read_value(r, out);
        }
        return;
      case Shape::kOption:
        if (r.boolean())
          children_[0]->read_value(r, out);
        else
          out = Value();
        return;
      case Shape::kTtl: {
        int64_t ttl = r.i64();
        std::vector<Value> members(2);
        members[0] = Value::integer(ttl);
        children_[1]->read_value(r, members[1]);
        out = Value::object({"ttl_ts", "value"}, std::move(members));  // key order, as the tree
        return;
      }
      case Shape::kDelegate: children_[0]->read_value(r, out); return;
      default: ValueDecoder::read_value(r, out); return;
    }
  }

  std::optional<int32_t> java_hash_code(const nlohmann::json& v) const override {
    switch (shape_) {
      case Shape::kTuple: {
        // Tuple1..25#hashCode: 31 * result + field hash, starting from the first field's.
        if (!v.is_array() || v.size() != children_.size() || children_.empty()) return std::nullopt;
        int32_t h = 0;
        for (size_t i = 0; i < children_.size(); ++i) {
          int32_t fh = 0;
          if (!v[i].is_null()) {
            auto c = children_[i]->java_hash_code(v[i]);
            if (!c) return std::nullopt;
            fh = *c;
          }
          h = i == 0 ? fh : static_cast<int32_t>(31u * static_cast<uint32_t>(h) + static_cast<uint32_t>(fh));
        }
        return h;
      }
      case Shape::kList: {
        if (!v.is_array()) return std::nullopt;
        uint32_t h = 1;
        for (const auto& e : v) {
          uint32_t eh = 0;
          if (!e.is_null()) {
            auto c = children_[0]->java_hash_code(e);
            if (!c) return std::nullopt;
            eh = static_cast<uint32_t>(*c);
          }
          h = 31u * h + eh;
        }
        return static_cast<int32_t>(h);
      }
      case Shape::kSet: {
        // AbstractSet#hashCode: the sum of the non-null elements' hashes, whatever their order.
        if (!v.is_array()) return std::nullopt;
        uint32_t h = 0;
        for (const auto& e : v) {
          if (e.is_null()) continue;
          auto c = children_[0]->java_hash_code(e);
          if (!c) return std::nullopt;
          h += static_cast<uint32_t>(*c);
        }
        return static_cast<int32_t>(h);
      }
      case Shape::kNullable: case Shape::kDelegate: case Shape::kOption:
        return v.is_null() ? std::nullopt : children_[0]->java_hash_code(v);
      case Shape::kRow: return row_hash_code(v);
      default: return std::nullopt;
    }
  }

  // Row#hashCode changed with Flink's versions, which the snapshot's outer version tells apart:
  // up to 1.10 (version <= 2) Arrays.deepHashCode(fields); from 1.13 (version 4+)
  // RowUtils.deepHashCodeRow, 31 * RowKind byte + a 1-seeded 31-fold of each field's
  // deepHashCodeInternal. 1.11 and 1.12 (version 3) hashed rows yet another way: not recomputed.
  std::optional<int32_t> row_hash_code(const nlohmann::json& v) const {
    const nlohmann::json* fields_member = json_member(v, "fields");
    const nlohmann::json* kind_member = json_member(v, "kind");
    if (!fields_member || !kind_member || !kind_member->is_string()) return std::nullopt;
    const nlohmann::json& fields = *fields_member;
    if (!fields.is_array() || fields.size() != children_.size() || outer_version_ == 3) return std::nullopt;
    uint32_t h = 1;
    for (size_t i = 0; i < children_.size(); ++i) {
      std::optional<int32_t> f = 0;
      if (outer_version_ <= 2) {
        if (!fields[i].is_null()) f = children_[i]->java_hash_code(fields[i]);
      } else {
        f = deep_hash_code(*children_[i], fields[i]);
      }
      if (!f) return std::nullopt;
      h = 31u * h + static_cast<uint32_t>(*f);
    }
    if (outer_version_ <= 2) return static_cast<int32_t>(h);
    static const std::string kKinds[] = {"+I", "-U", "+U", "-D"};
    const auto kind = std::find(std::begin(kKinds), std::end(kKinds), kind_member->get_ref<const std::string&>());
    if (kind == std::end(kKinds)) return std::nullopt;
    return static_cast<int32_t>(31u * static_cast<uint32_t>(kind - std::begin(kKinds)) + h);
  }

  // RowUtils.deepHashCodeInternal: null 0, a java.util.List a 1-seeded 31-fold of its elements'
  // deep hashes, any other object Arrays.deepHashCode(new Object[]{o}) = 31 + o.hashCode().
  // Maps and object arrays (their own deep forms) are not recomputed.
  static std::optional<int32_t> deep_hash_code(const ValueDecoder& d, const nlohmann::json& v) {
    if (v.is_null()) return 0;
    const auto* s = dynamic_cast<const StructuredDecoder*>(&d);
    if (s && (s->shape_ == Shape::kNullable || s->shape_ == Shape::kDelegate || s->shape_ == Shape::kOption))
      return deep_hash_code(*s->children_[0], v);
    if (s && s->shape_ == Shape::kList) {
      if (!v.is_array()) return std::nullopt;
      uint32_t h = 1;
      for (const auto& e : v) {
        auto eh = deep_hash_code(*s->children_[0], e);
        if (!eh) return std::nullopt;
        h = 31u * h + static_cast<uint32_t>(*eh);
      }
      return static_cast<int32_t>(h);
    }
    if (s && (s->shape_ == Shape::kMap || s->shape_ == Shape::kGenericArray || s->shape_ == Shape::kSet))
      return std::nullopt;
    auto h = d.java_hash_code(v);
    if (!h) return std::nullopt;
    return static_cast<int32_t>(31u + static_cast<uint32_t>(*h));
  }

 private:
  void read_stream_element(ByteReader& r, nlohmann::json& out) const {
    uint64_t at = r.offset();
    uint8_t tag = r.u8();
    if (!r.ok()) return;
    switch (tag) {
      case 0: {  // record with timestamp
        int64_t ts = r.i64();
        nlohmann::json v;
        children_[0]->read(r, v);
        out = {{"record", std::move(v)}, {"timestamp", ts}};
        return;
      }
      case 1: {
        nlohmann::json v;
        children_[0]->read(r, v);
        out = {{"record", std::move(v)}};
        return;
      }
      case 2: out = {{"watermark", r.i64()}}; return;
      case 3: {
        int64_t marked = r.i64();
        int64_t lower = r.i64();
        int64_t upper = r.i64();
        int32_t subtask = r.i32();
        out = {{"latency_marker", {{"marked_time", marked}, {"operator_lower", lower},
                                   {"operator_upper", upper}, {"subtask", subtask}}}};
        return;
      }
      case 4: out = {{"watermark_status", r.i32()}}; return;
      default: r.fail_at(at, fmt::format("unknown stream element tag {}", tag));
    }
  }

  // An i64, then one child's value: {first: the long, second: the value} (TTL, WindowKey).
  static void read_long_then(ByteReader& r, const char* first, const ValueDecoder& child, const char* second,
                             nlohmann::json& out) {
    int64_t v = r.i64();
    nlohmann::json c;
    child.read(r, c);
    out = {{first, v}, {second, std::move(c)}};
  }

  static Status encode_long_then(const nlohmann::json& v, ByteWriter& w, const char* first, const ValueDecoder& child,
                                 const char* second) {
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* a, encode_member(v, first, "an object"));
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* b, encode_member(v, second, "an object"));
    auto x = encode_integer(*a, INT64_MIN, INT64_MAX, "a 64-bit integer");
    if (!x.ok()) return encode_at(std::move(x).error(), fmt::format(".{}", first));
    w.i64(*x);
    return encode_at(child.encode(*b, w), fmt::format(".{}", second));
  }

  Status encode_stream_element(const nlohmann::json& v, ByteWriter& w) const {
    auto long_member = [&](const nlohmann::json& o, const char* name) -> Result<int64_t> {
      CKPT_ASSIGN_OR_RETURN(const nlohmann::json* m, encode_member(o, name, "an object"));
      auto x = encode_integer(*m, INT64_MIN, INT64_MAX, "a 64-bit integer");
      if (!x.ok()) return encode_at(std::move(x).error(), fmt::format(".{}", name)).error();
      return *x;
    };
    if (const nlohmann::json* record = json_member(v, "record")) {
      if (json_member(v, "timestamp")) {
        CKPT_ASSIGN_OR_RETURN(int64_t ts, long_member(v, "timestamp"));
        w.u8(0);
        w.i64(ts);
      } else {
        w.u8(1);
      }
      return encode_at(children_[0]->encode(*record, w), ".record");
    }
    if (json_member(v, "watermark")) {
      CKPT_ASSIGN_OR_RETURN(int64_t wm, long_member(v, "watermark"));
      w.u8(2);
      w.i64(wm);
      return Status::OK();
    }
    if (const nlohmann::json* m = json_member(v, "latency_marker")) {
      CKPT_ASSIGN_OR_RETURN(int64_t marked, long_member(*m, "marked_time"));
      CKPT_ASSIGN_OR_RETURN(int64_t lower, long_member(*m, "operator_lower"));
      CKPT_ASSIGN_OR_RETURN(int64_t upper, long_member(*m, "operator_upper"));
      CKPT_ASSIGN_OR_RETURN(const nlohmann::json* st, encode_member(*m, "subtask", "a latency marker"));
      CKPT_ASSIGN_OR_RETURN(int64_t subtask, encode_integer(*st, INT32_MIN, INT32_MAX, "a 32-bit subtask"));
      w.u8(3);
      w.i64(marked);
      w.i64(lower);
      w.i64(upper);
      w.i32(static_cast<int32_t>(subtask));
      return Status::OK();
    }
    if (const nlohmann::json* status = json_member(v, "watermark_status")) {
      CKPT_ASSIGN_OR_RETURN(int64_t s, encode_integer(*status, INT32_MIN, INT32_MAX, "a 32-bit status"));
      w.u8(4);
      w.i32(static_cast<int32_t>(s));
      return Status::OK();
    }
    return encode_expected("a stream element ({\"record\":..}, {\"watermark\":..}, ...)", v);
  }

  // RowSerializer: a mask (the row kind's two bits first where the snapshot has them, then a
  // null bit per field, high bit first), then the non-null fields.
  Status encode_row(const nlohmann::json& v, ByteWriter& w) const {
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* fields, encode_member(v, "fields", "a row"));
    const nlohmann::json* kind = json_member(v, "kind");
    if (!fields->is_array() || fields->size() != children_.size())
      return encode_at(encode_expected(fmt::format("an array of {} fields", children_.size()), *fields), ".fields");
    static const std::string kKinds[] = {"+I", "-U", "+U", "-D"};
    int k = 0;
    if (kind) {
      auto it = kind->is_string() ? std::find(std::begin(kKinds), std::end(kKinds), kind->get_ref<const std::string&>())
                                  : std::end(kKinds);
      if (it == std::end(kKinds)) return encode_at(encode_expected("\"+I\", \"-U\", \"+U\" or \"-D\"", *kind), ".kind");
      k = static_cast<int>(it - std::begin(kKinds));
    }
    if (!row_kind_ && k != 0) return encode_at(encode_expected("\"+I\" (this row serializer keeps no kind)", *kind), ".kind");
    size_t kind_bits = row_kind_ ? 2 : 0;
    std::string mask((kind_bits + children_.size() + 7) / 8, '\0');
    auto set = [&](size_t i) { mask[i / 8] = static_cast<char>(static_cast<uint8_t>(mask[i / 8]) | (0x80 >> (i % 8))); };
    if (row_kind_ && (k & 1)) set(0);
    if (row_kind_ && (k & 2)) set(1);
    for (size_t i = 0; i < children_.size(); ++i)
      if ((*fields)[i].is_null()) set(kind_bits + i);
    w.bytes(mask);
    for (size_t i = 0; i < children_.size(); ++i) {
      if ((*fields)[i].is_null()) continue;
      CKPT_RETURN_IF_ERROR(encode_at(children_[i]->encode((*fields)[i], w), fmt::format(".fields[{}]", i)));
    }
    return Status::OK();
  }

  void read_two_phase_commit(ByteReader& r, nlohmann::json& out) const {
    auto txn = [&](nlohmann::json& t) {
      nlohmann::json handle;
      children_[0]->read(r, handle);
      int64_t start = r.i64();
      t = {{"handle", std::move(handle)}, {"start_time", start}};
    };
    nlohmann::json pending;
    if (!nullable_txn_ || r.boolean()) txn(pending);
    int32_t n = r.count(8, "pending commit transaction");
    nlohmann::json commits = nlohmann::json::array();
    for (int32_t i = 0; i < n && r.ok(); ++i) txn(commits.emplace_back());
    nlohmann::json context;
    if (r.ok() && r.boolean()) children_[1]->read(r, context);
    out = {{"pending", std::move(pending)}, {"pending_commit", std::move(commits)}, {"context", std::move(context)}};
  }

  void read_row(ByteReader& r, nlohmann::json& out) const {
    size_t kind_bits = row_kind_ ? 2 : 0;
    size_t arity = children_.size();
    std::string_view mask = r.bytes((kind_bits + arity + 7) / 8);
    if (!r.ok()) return;
    auto bit = [&](size_t i) { return (static_cast<uint8_t>(mask[i / 8]) & (0x80 >> (i % 8))) != 0; };
    int kind = row_kind_ ? (bit(0) ? 1 : 0) | (bit(1) ? 2 : 0) : 0;
    nlohmann::json fields = nlohmann::json::array();
    for (size_t i = 0; i < arity && r.ok(); ++i) {
      if (bit(kind_bits + i)) fields.emplace_back(nullptr);
      else children_[i]->read(r, fields.emplace_back());
    }
    out = {{"kind", row_kind_name(kind)}, {"fields", std::move(fields)}};
  }

  Shape shape_;
  std::vector<DecoderPtr> children_;
  int32_t padding_;
  bool row_kind_;
  bool null_mask_;
  bool nullable_txn_;
  int32_t outer_version_;
};

// PojoSerializer: flags byte, then fields (or a subclass' serializer).
class PojoDecoder final : public ValueDecoder {
 public:
  static constexpr uint8_t kIsNull = 1, kNoSubclass = 2, kIsSubclass = 4, kIsTaggedSubclass = 8;

  PojoDecoder(const SerializerSnapshot& s, std::vector<DecoderPtr> fields, std::vector<DecoderPtr> registered,
              std::vector<DecoderPtr> nonregistered)
      : ValueDecoder(s.serializer_class), class_(s.type_class), names_(s.field_names),
        fields_(std::move(fields)), registered_(std::move(registered)),
        nonregistered_names_(s.pojo_nonregistered_subclasses), nonregistered_(std::move(nonregistered)) {
    for (size_t i = 0; i < names_.size(); ++i)
      if (names_[i].empty()) names_[i] = fmt::format("missing-field-at-{}", i);
  }

  bool decodable() const override {
    for (const auto& f : fields_)
      if (f && !f->decodable()) return false;
    return true;
  }
  std::string why_not() const override {
    for (const auto& f : fields_)
      if (f && !f->decodable()) return f->why_not();
    return {};
  }

  void read(ByteReader& r, nlohmann::json& out) const override {
    uint64_t at = r.offset();
    uint8_t flags = r.u8();
    if (!r.ok()) return;
    if (flags & kIsNull) { out = nullptr; return; }
    if (flags & kIsSubclass) {
      std::string name = r.utf();
      if (!r.ok()) return;
      for (size_t i = 0; i < nonregistered_names_.size(); ++i)
        if (nonregistered_names_[i] == name && nonregistered_[i]) { nonregistered_[i]->read(r, out); return; }
      r.not_supported_at(at, fmt::format("POJO subclass {} of {} has no serializer snapshot", name, class_));
      return;
    }
    if (flags & kIsTaggedSubclass) {
      uint8_t tag = r.u8();
      if (!r.ok()) return;
      if (tag >= registered_.size() || !registered_[tag]) {
        r.fail_at(at, fmt::format("POJO subclass tag {} of {} is not registered", tag, class_));
        return;
      }
      registered_[tag]->read(r, out);
      return;
    }
    if (!(flags & kNoSubclass)) {
      r.fail_at(at, fmt::format("invalid POJO flags {:#x}", flags));
      return;
    }
    nlohmann::json fields = nlohmann::json::object();
    for (size_t i = 0; i < fields_.size() && r.ok(); ++i) {
      uint64_t field_at = r.offset();
      if (r.boolean()) { fields[names_[i]] = nullptr; continue; }
      if (!fields_[i]) {
        r.fail_at(field_at, fmt::format("field {} of {} holds a value but has no serializer", names_[i], class_));
        return;
      }
      fields_[i]->read(r, fields[names_[i]]);
    }
    out = {{"class", class_}, {"fields", std::move(fields)}};
  }

  Status encode(const nlohmann::json& v, ByteWriter& w) const override {
    if (v.is_null()) {
      w.u8(kIsNull);
      return Status::OK();
    }
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* cls, encode_member(v, "class", "a POJO"));
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* fields, encode_member(v, "fields", "a POJO"));
    if (!cls->is_string() || cls->get_ref<const std::string&>() != class_)
      return encode_at(encode_expected(fmt::format("\"{}\" (subclasses are not written yet)", class_), *cls), ".class");
    if (!fields->is_object()) return encode_at(encode_expected("an object of fields", *fields), ".fields");
    w.u8(kNoSubclass);
    for (size_t i = 0; i < fields_.size(); ++i) {
      const nlohmann::json* f = json_member(*fields, names_[i]);
      std::string step = fmt::format(".fields.{}", names_[i]);
      if (!f) return encode_at(encode_expected(fmt::format("the field \"{}\"", names_[i]), *fields), ".fields");
      w.boolean(f->is_null());
      if (f->is_null()) continue;
      if (!fields_[i]) return encode_at(encode_expected("null (the field has no serializer)", *f), step);
      CKPT_RETURN_IF_ERROR(encode_at(fields_[i]->encode(*f, w), step));
    }
    if (fields->size() != fields_.size())
      return encode_at(encode_expected(fmt::format("the {} fields of {}", fields_.size(), class_), *fields), ".fields");
    return Status::OK();
  }

 private:
  std::string class_;
  std::vector<std::string> names_;
  std::vector<DecoderPtr> fields_;
  std::vector<DecoderPtr> registered_;
  std::vector<std::string> nonregistered_names_;
  std::vector<DecoderPtr> nonregistered_;
};

// EnumSerializer: i32 ordinal into the snapshot's constant list.
class EnumDecoder final : public ValueDecoder {
 public:
  explicit EnumDecoder(const SerializerSnapshot& s)
      : ValueDecoder(s.serializer_class), constants_(s.enum_constants) {}
  int32_t fixed_length() const override { return 4; }
  void read(ByteReader& r, nlohmann::json& out) const override {
    uint64_t at = r.offset();
    int32_t ordinal = r.i32();
    if (!r.ok()) return;
    if (ordinal < 0 || static_cast<size_t>(ordinal) >= constants_.size()) {
      r.fail_at(at, fmt::format("enum ordinal {} out of range (the snapshot has {} constants)", ordinal,
                                constants_.size()));
      return;
    }
    out = constants_[static_cast<size_t>(ordinal)];
  }
  void skip(ByteReader& r) const override { r.skip(4); }
  Status encode(const nlohmann::json& v, ByteWriter& w) const override {
    auto it = v.is_string() ? std::find(constants_.begin(), constants_.end(), v.get_ref<const std::string&>())
                            : constants_.end();
    if (it == constants_.end()) return encode_expected(fmt::format("one of the {} constants of the enum", constants_.size()), v);
    w.i32(static_cast<int32_t>(it - constants_.begin()));
    return Status::OK();
  }

 private:
  std::vector<std::string> constants_;
};

struct ShapeByClass {
  std::string_view suffix;
  Shape shape;
  size_t children;  // expected number of nested snapshots; 0 = any (>= 1 for tuples)
};

constexpr ShapeByClass kShapes[] = {
    {".TupleSerializerSnapshot", Shape::kTuple, 0},
    {".ScalaCaseClassSerializerSnapshot", Shape::kTuple, 0},
    {".Tuple2CaseClassSerializerSnapshot", Shape::kTuple, 2},
    {"$RowSerializerSnapshot", Shape::kRow, 0},
    {".ListSerializerSnapshot", Shape::kList, 1},
    {".ArrayListSerializerSnapshot", Shape::kList, 1},
    {".MapSerializerSnapshot", Shape::kMap, 2},
    {".SetSerializerSnapshot", Shape::kSet, 1},
    {".SortedMapSerializerSnapshot", Shape::kMap, 2},
    {"$NullableSerializerSnapshot", Shape::kNullable, 1},
    {".JavaEitherSerializerSnapshot", Shape::kEither, 2},
    {".ScalaOptionSerializerSnapshot", Shape::kOption, 1},
    {".ScalaEitherSerializerSnapshot", Shape::kEither, 2},
    {".ScalaTrySerializerSnapshot", Shape::kTry, 2},
    {".TraversableSerializerSnapshot", Shape::kGenericArray, 1},
    {".GenericArraySerializerSnapshot", Shape::kGenericArray, 1},
    {"$TtlSerializerSnapshot", Shape::kTtl, 2},
    {".TimerSerializerSnapshot", Shape::kTimer, 2},
    {"$StreamElementSerializerSnapshot", Shape::kStreamElement, 1},
    {"$BufferEntrySerializerSnapshot", Shape::kBufferEntry, 1},
    {"CoGroupedStreams$UnionSerializerSnapshot", Shape::kUnion, 2},
    {"$LinkedListSerializerSnapshot", Shape::kLinkedList, 1},
    {".ListViewSerializerSnapshot", Shape::kDelegate, 1},
    {".MapViewSerializerSnapshot", Shape::kDelegate, 1},
    {".TtlAwareSerializerSnapshot", Shape::kDelegate, 1},
    {"TwoPhaseCommitSinkFunction$StateSerializerSnapshot", Shape::kTwoPhaseCommit, 2},
    {"$WindowKeySerializerSnapshot", Shape::kWindowKey, 1},
};

Result<std::vector<DecoderPtr>> children_of(const std::vector<SerializerSnapshot>& nested, bool allow_missing) {
  std::vector<DecoderPtr> out;
  for (const auto& n : nested) {
    if (allow_missing && n.snapshot_class.empty()) {
      out.emplace_back();
      continue;
    }
    CKPT_ASSIGN_OR_RETURN(auto d, make_decoder(n));
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

bool all_decodable(const std::vector<DecoderPtr>& children) {
  for (const auto& c : children)
    if (!c->decodable()) return false;
  return true;
}

std::string first_why_not(const std::vector<DecoderPtr>& children) {
  for (const auto& c : children)
    if (!c->decodable()) return c->why_not();
  return {};
}

Result<DecoderPtr> make_structured(const SerializerSnapshot& s) {
  if (s.form == SnapshotForm::kPojo) {
    CKPT_ASSIGN_OR_RETURN(auto fields, children_of(s.nested, true));
    CKPT_ASSIGN_OR_RETURN(auto reg, children_of(s.pojo_registered_snapshots, true));
    CKPT_ASSIGN_OR_RETURN(auto nonreg, children_of(s.pojo_nonregistered_snapshots, true));
    return DecoderPtr(std::make_unique<PojoDecoder>(s, std::move(fields), std::move(reg), std::move(nonreg)));
  }
  if (s.form == SnapshotForm::kEnum) return DecoderPtr(std::make_unique<EnumDecoder>(s));
  if (s.form != SnapshotForm::kComposite) return DecoderPtr();
  for (const auto& entry : kShapes) {
    if (!s.snapshot_class.ends_with(entry.suffix)) continue;
    if ((entry.children > 0 && s.nested.size() != entry.children) ||
        (entry.children == 0 && entry.shape == Shape::kTuple && s.nested.empty()))
      return Error(ErrorCode::kCorruption,
                   fmt::format("{} snapshot has {} nested serializers", s.display_name(), s.nested.size()), s.offset);
    CKPT_ASSIGN_OR_RETURN(auto children, children_of(s.nested, false));
    return DecoderPtr(std::make_unique<StructuredDecoder>(s, entry.shape, std::move(children)));
  }
  return DecoderPtr();
}

}  // namespace ckpt::decoders
