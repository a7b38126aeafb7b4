// The synthetic keyed job: a keyed proxy model (written by write_keyed_backend_meta) and seed-derived
// keys and values.
#include "ops/generate/generate_model.h"

#include <algorithm>

#include <fmt/format.h>

#include "state/keyed_state_codec.h"
#include "types/serializer_classes.h"
#include "types/snapshot_bytes.h"
#include "types/value_decoder.h"
#include "support/byte_writer.h"

namespace ckpt {

namespace {

constexpr const char* kStringSnapshot =
    "org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot";
constexpr const char* kVoidNamespaceSnapshot =
    "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot";
constexpr const char* kListSnapshot = "org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot";
constexpr const char* kMapSnapshot = "org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot";
constexpr const char* kLongSnapshot =
    "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot";

// A serializer snapshot in its nested (versioned) form, as `write` lays it out.
template <class Write>
Result<SerializerSnapshot> snapshot_of(Write&& write) {
  ByteWriter w;
  write(w);
  ByteReader r(w.buffer());
  return read_serializer_snapshot(r, SnapshotFraming::kVersioned);
}

Result<SerializerSnapshot> simple_snapshot(const char* cls) {
  return snapshot_of([&](ByteWriter& w) { write_simple_snapshot(w, cls); });
}

// A keyed KEY_VALUE state in VoidNamespace (formats/keyed-state.md §3) of kind 'v', 'l' or 'm'.
// With `ttl` each byte[] value is a TtlValue (TtlStateFactory.TtlSerializer: last access, then
// the value), where Flink's TTL states keep it: the value, each list element, each map value.
Result<StateMetaInfo> keyed_state(const std::string& name, char kind, bool ttl) {
  StateMetaInfo info;
  info.name = name;
  info.backend_type = static_cast<int32_t>(BackendStateType::kKeyValue);
  info.options.emplace_back(meta_key::kKeyedStateType, kind == 'v' ? "VALUE" : kind == 'l' ? "LIST" : "MAP");
  auto element = [ttl](ByteWriter& w) {
    if (ttl)
      write_composite_snapshot(w, snapshot_class::kTtl.data(), {kLongSnapshot, kBytePrimitiveArraySnapshot});
    else
      write_simple_snapshot(w, kBytePrimitiveArraySnapshot);
  };
  Result<SerializerSnapshot> value = snapshot_of(element);
  if (kind == 'l')
    value = snapshot_of([&](ByteWriter& w) {
      write_composite_head(w, kListSnapshot, 1);
      element(w);
    });
  if (kind == 'm')
    value = snapshot_of([&](ByteWriter& w) {
      write_composite_head(w, kMapSnapshot, 2);
      write_simple_snapshot(w, kStringSnapshot);
      element(w);
    });
  if (!value.ok()) return std::move(value).error();
  info.serializers.emplace_back(meta_key::kValueSerializer, std::move(value).value());
  CKPT_ASSIGN_OR_RETURN(SerializerSnapshot ns, simple_snapshot(kVoidNamespaceSnapshot));
  info.serializers.emplace_back(meta_key::kNamespaceSerializer, std::move(ns));
  return info;
}

// StringValue.writeString for ASCII: varint7 (length + 1), then one byte per char.
void append_ascii_string(std::string& out, std::string_view s) {
  uint64_t n = s.size() + 1;
  while (n >= 0x80) {
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
  out.append(s);
}

}  // namespace

uint64_t generate_mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

Result<GenerateModel> GenerateModel::make(const GenerateOptions& o) {
  if (o.operators < 1 || o.parallelism < 1 || o.max_parallelism < o.parallelism || o.max_parallelism > 32768)
    return Error(ErrorCode::kInvalidArgument,
                 "expected at least one operator and 1 <= parallelism <= max parallelism <= 32768");
  if (o.keys > UINT32_MAX) return Error(ErrorCode::kInvalidArgument, "at most 2^32-1 keys per operator");
  if (o.states.empty()) return Error(ErrorCode::kInvalidArgument, "no states to generate");
  if (o.ttl_span < 0 || o.ttl_span > o.ttl_newest)
    return Error(ErrorCode::kInvalidArgument, "the TTL span must be between 0 and the newest last access");
  GenerateModel m;
  m.options_ = o;
  // The keyed proxy (formats/keyed-state.md §4) as a model: its bytes come from write_keyed_backend_meta.
  CKPT_ASSIGN_OR_RETURN(m.meta_.key_serializer, simple_snapshot(kStringSnapshot));
  for (const std::string& s : o.states) {
    char kind = s == "value" ? 'v' : s == "list" ? 'l' : s == "map" ? 'm' : 0;
    if (!kind) return Error(ErrorCode::kInvalidArgument, fmt::format("unknown state kind '{}', expected value, list or map", s));
    for (char k : m.state_kinds_)
      if (k == kind) return Error(ErrorCode::kInvalidArgument, fmt::format("state kind '{}' named twice", s));
    m.state_kinds_.push_back(kind);
    CKPT_ASSIGN_OR_RETURN(StateMetaInfo info, keyed_state(s + "-state", kind, o.ttl_span > 0));
    m.meta_.states.push_back(std::move(info));
  }
  for (int32_t op = 0; op < o.operators; ++op) {
    OperatorId id;
    for (int i = 0; i < 2; ++i) {
      uint64_t h = generate_mix(o.seed * 1000003 + static_cast<uint64_t>(op) * 2 + i);
      for (int b = 0; b < 8; ++b) id[i * 8 + b] = static_cast<uint8_t>(h >> (8 * b));
    }
    m.operator_ids_.push_back(id);
  }
  m.keys_by_group_.resize(static_cast<size_t>(o.max_parallelism));
  for (uint64_t k = 0; k < o.keys; ++k) {
    std::string key = key_name(static_cast<uint32_t>(k));
    int32_t kg = key_group_for_hash(java_string_hash(key), o.max_parallelism);
    m.keys_by_group_[kg].push_back(static_cast<uint32_t>(k));
  }
  if (!o.hot_key_groups.empty()) {
    const uint64_t average = std::max<uint64_t>(1, o.keys / static_cast<uint64_t>(o.max_parallelism));
    const uint64_t target = average * o.hot_factor;
    std::vector<bool> hot(static_cast<size_t>(o.max_parallelism), false);
    for (int32_t kg : o.hot_key_groups) {
      if (kg < 0 || kg >= o.max_parallelism)
        return Error(ErrorCode::kInvalidArgument,
                     fmt::format("hot key group {} is outside 0 .. {}", kg, o.max_parallelism - 1));
      hot[static_cast<size_t>(kg)] = true;
    }
    if (o.hot_factor < 1 || target > (uint64_t{1} << 24))
      return Error(ErrorCode::kInvalidArgument, "the hot factor must be 1 or more, and hot key groups 16M keys at most");
    size_t missing = 0;
    for (int32_t kg = 0; kg < o.max_parallelism; ++kg)
      if (hot[static_cast<size_t>(kg)] && m.keys_by_group_[kg].size() < target) ++missing;
    // Keys past `keys` land in each key group once in max_parallelism on average: the scan is
    // bounded by what 2^32 indices give.
    for (uint64_t k = o.keys; missing > 0 && k <= UINT32_MAX; ++k) {
      int32_t kg = key_group_for_hash(java_string_hash(key_name(static_cast<uint32_t>(k))), o.max_parallelism);
      auto& keys = m.keys_by_group_[kg];
      if (!hot[static_cast<size_t>(kg)] || keys.size() >= target) continue;
      keys.push_back(static_cast<uint32_t>(k));
      if (keys.size() == target) --missing;
    }
  }
  return m;
}

std::string GenerateModel::key_bytes(uint32_t key) const {
  std::string out;
  append_ascii_string(out, key_name(key));
  return out;
}

std::string GenerateModel::byte_array(uint64_t h) const {
  ByteWriter w;
  // A TTL state's last access: spread over the span before the newest, from the same hash.
  if (options_.ttl_span > 0)
    w.i64(options_.ttl_newest - static_cast<int64_t>(generate_mix(~h) % static_cast<uint64_t>(options_.ttl_span + 1)));
  w.i32(static_cast<int32_t>(options_.value_size));
  std::string& b = w.buffer();
  b.reserve(b.size() + 4 + options_.value_size);
  for (uint32_t i = 0; i < options_.value_size; i += 8) {
    uint64_t x = generate_mix(h + i);
    for (uint32_t j = 0; j < 8 && i + j < options_.value_size; ++j) b.push_back(static_cast<char>(x >> (8 * j)));
  }
  return w.take();
}

std::string GenerateModel::key_name(uint32_t key) { return fmt::format("user-{:010d}", key); }
std::string GenerateModel::field_name(int32_t field) { return fmt::format("field-{}", field); }

void GenerateModel::entries(int32_t op, int32_t kg, uint32_t version, const EntryFn& fn) const {
  for (uint32_t key : keys_by_group_[kg]) {
    const uint64_t base = generate_mix(options_.seed ^ (uint64_t{static_cast<uint32_t>(op)} << 40) ^ key);
    // In a rewritten bucket about a tenth of the keys are absent: keys come and go.
    if (version > 0 && generate_mix(base + version) % 10 == 0) continue;
    for (size_t s = 0; s < state_kinds_.size(); ++s) {
      const uint64_t h = generate_mix(base * 31 + s * 7919 + uint64_t{version} * 104729);
      if (state_kinds_[s] == 'v') {
        fn(s, key, -1, byte_array(h));
      } else if (state_kinds_[s] == 'l') {
        std::string joined;
        for (uint64_t e = 0, n = 1 + h % 3; e < n; ++e) {
          if (e) joined.push_back(',');
          joined += byte_array(h + e + 1);
        }
        fn(s, key, -1, std::move(joined));
      } else {
        // Map fields come and go with the version too: 1-3 of them per key.
        for (uint64_t f = 0, n = 1 + h % 3; f < n; ++f) {
          std::string value(1, '\0');  // not null
          value += byte_array(h + f + 1);
          fn(s, key, static_cast<int32_t>(f), std::move(value));
        }
      }
    }
  }
}

void GenerateModel::pairs(int32_t op, int32_t kg, uint32_t version, std::vector<std::vector<RocksPair>>* by_state) const {
  by_state->assign(state_kinds_.size(), {});
  const int prefix_bytes = key_group_prefix_bytes(options_.max_parallelism);
  std::string prefix;
  uint32_t prefix_key = UINT32_MAX;
  entries(op, kg, version, [&](size_t s, uint32_t key, int32_t field, std::string&& value) {
    if (key != prefix_key) {
      prefix.clear();
      append_key_group_prefix(prefix, kg, prefix_bytes);
      prefix += key_bytes(key);
      prefix.push_back('\0');  // VoidNamespace
      prefix_key = key;
    }
    RocksPair p{prefix, std::move(value)};
    if (field >= 0) append_ascii_string(p.key, field_name(field));
    (*by_state)[s].push_back(std::move(p));
  });
}

}  // namespace ckpt
