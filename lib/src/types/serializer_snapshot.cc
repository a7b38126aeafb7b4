// Parsing TypeSerializerSnapshot trees (formats/keyed-state.md §2).
#include "types/serializer_snapshot.h"

#include <cstring>

#include <fmt/format.h>

#include "types/avro_schema.h"
#include "types/flink_string.h"
#include "types/legacy_serializers.h"
#include "types/logical_types.h"
#include "types/serializer_classes.h"

namespace ckpt {
namespace {

using snapshot_class::Layout;

constexpr int32_t kProxyVersion = 2;
constexpr int32_t kCompositeMagic = 911108;   // CompositeTypeSerializerSnapshot
constexpr int32_t kNestedMagic = 1333245;     // NestedSerializersSnapshotDelegate
constexpr uint64_t kOptionalMapHeader = 0x4F2C69A3D70;  // LinkedOptionalMapSerializer
constexpr uint8_t kNestedHeader[8] = {0x00, 0x14, 0x57, 0xFD, 0x00, 0x00, 0x00, 0x01};

uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// A Java class or role name: what a resynchronising scan accepts as a plausible string.
bool plausible_name(const uint8_t* p, size_t n, bool upper_only) {
  if (n == 0) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = static_cast<char>(p[i]);
    bool ok = upper_only ? ((c >= 'A' && c <= 'Z') || c == '_')
                         : ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                            c == '.' || c == '$' || c == '_');
    if (!ok) return false;
  }
  return true;
}

// A state name: any text without control characters.
bool plausible_text(const uint8_t* p, size_t n) {
  if (n == 0 || n > 1024) return false;
  for (size_t i = 0; i < n; ++i) if (p[i] < 0x20 || p[i] == 0x7f) return false;
  return true;
}

class SnapshotParser {
 public:
  SnapshotParser(ByteReader& r, const SnapshotReadOptions& o) : r_(r), opt_(o) {}

  void versioned(SerializerSnapshot& s, int depth);

 private:
  void simple(SerializerSnapshot& s);
  void composite(SerializerSnapshot& s, int depth);
  void nested_delegate(SerializerSnapshot& s, int depth);
  void interpret_outer(SerializerSnapshot& s);
  void pojo(SerializerSnapshot& s, int depth);
  void kryo(SerializerSnapshot& s);
  void enumeration(SerializerSnapshot& s);
  void avro(SerializerSnapshot& s);
  void ttl_aware(SerializerSnapshot& s, int depth);
  void row_data(SerializerSnapshot& s, int depth);
  void parameters(SerializerSnapshot& s);
  void java_types(SerializerSnapshot& s, int depth);
  void sorted_map(SerializerSnapshot& s, int depth);
  void external_data_type(SerializerSnapshot& s);
  bool composite_magic_next() const;
  void legacy(SerializerSnapshot& s);
  void unknown(SerializerSnapshot& s, int depth);
  bool resync(SerializerSnapshot& s);
  bool looks_like_next_item(size_t p) const;
  bool meta_info_at(size_t p) const;
  bool utf_at(size_t p, size_t* len) const;
  // Bytes from the current position to the next nested-delegate header, or kNotFound.
  size_t distance_to_nested_header() const;
  static constexpr size_t kNotFound = ~size_t{0};

  // One LinkedOptionalMap: calls `entry(name, key frame or nullptr, value frame or nullptr)`.
  template <class F>
  void optional_map(F&& entry);
  void frame_snapshot(std::string_view frame, uint64_t base, SerializerSnapshot& out, int depth);

  ByteReader& r_;
  const SnapshotReadOptions& opt_;
};

void SnapshotParser::versioned(SerializerSnapshot& s, int depth) {
  if (depth > opt_.max_depth) {
    r_.fail(fmt::format("serializer snapshots nested deeper than {}", opt_.max_depth));
    return;
  }
  size_t start = r_.position();
  s.offset = r_.offset();
  s.snapshot_class = r_.utf();
  s.version = r_.i32();
  if (!r_.ok()) return;
  std::string storage;
  s.serializer_class = std::string(snapshot_class::strip_snapshot_suffix(s.snapshot_class, &storage));
  if (s.version == kLegacyConfigSnapshotVersion) {
    legacy(s);
  } else {
    switch (snapshot_class::layout_of(s.snapshot_class)) {
      case Layout::kSimple: simple(s); break;
      case Layout::kComposite: composite(s, depth); break;
      case Layout::kPojo: pojo(s, depth); break;
      case Layout::kKryo: kryo(s); break;
      case Layout::kEnum: enumeration(s); break;
      case Layout::kAvro: avro(s); break;
      case Layout::kClassOnly:
        s.form = SnapshotForm::kClassOnly;
        s.type_class = r_.utf();
        break;
      case Layout::kTtlAware: ttl_aware(s, depth); break;
      case Layout::kRowData: row_data(s, depth); break;
      case Layout::kParameters: parameters(s); break;
      case Layout::kJavaTypes: java_types(s, depth); break;
      case Layout::kSortedMap: sorted_map(s, depth); break;
      case Layout::kUnknown: unknown(s, depth); break;
    }
  }
  if (!r_.ok()) return;
  s.raw.assign(reinterpret_cast<const char*>(r_.data()) + start, r_.position() - start);
}

void SnapshotParser::simple(SerializerSnapshot& s) {
  s.form = SnapshotForm::kSimple;
  // SimpleTypeSerializerSnapshot before version 3 stored the serializer class name.
  if (s.version < 3) s.type_class = r_.utf();
}

void SnapshotParser::composite(SerializerSnapshot& s, int depth) {
  s.form = SnapshotForm::kComposite;
  if (s.version >= 3) {
    uint64_t at = r_.offset();
    int32_t magic = r_.i32();
    if (r_.ok() && magic != kCompositeMagic) {
      r_.fail_at(at, fmt::format("expected composite snapshot magic {:#x} in {}, found {:#x}", kCompositeMagic,
                                 s.snapshot_class, static_cast<uint32_t>(magic)));
      return;
    }
    s.has_outer_magic = true;
    s.outer_version = r_.i32();
  } else {
    s.outer_version = s.version;
  }
  if (!r_.ok()) return;
  // The outer data is class specific and unframed; it always ends where the nested delegate's
  // header starts, so find that first and then interpret what lies before it.
  size_t at = distance_to_nested_header();
  if (at == kNotFound) {
    r_.fail(fmt::format("no nested serializer snapshots after the outer data of {}", s.snapshot_class));
    return;
  }
  s.outer_data = std::string(r_.bytes(at));
  interpret_outer(s);
  if (r_.ok()) nested_delegate(s, depth);
}

void SnapshotParser::interpret_outer(SerializerSnapshot& s) {
  const std::string& c = s.snapshot_class;
  uint64_t at = r_.offset() - s.outer_data.size();
  ByteReader o(s.outer_data, at);
  if (c.ends_with(".TupleSerializerSnapshot") || c.ends_with("CaseClassSerializerSnapshot") ||
      c.ends_with(".GenericArraySerializerSnapshot")) {
    s.type_class = o.utf();
  } else if (c.ends_with("$RowSerializerSnapshot")) {
    if (s.outer_version >= 4) s.row_kind = o.boolean();
    else s.row_kind = s.outer_version == 3;
  } else if (c.ends_with("$NullableSerializerSnapshot")) {
    s.null_padding = o.i32();
    if (o.ok() && s.null_padding < 0) o.fail_at(at, fmt::format("negative null padding {}", s.null_padding));
  } else if (c.ends_with("$LinkedListSerializerSnapshot")) {
    // Outer version 1 had no null mask, 2 always has one, 3+ stores the choice.
    if (s.outer_version >= 3) s.has_null_mask = o.boolean();
    else s.has_null_mask = s.outer_version == 2;
  } else if (c == "org.apache.flink.cep.nfa.NFAStateSerializerSnapshot") {
    // Outer version 2 (Flink 1.16) added the previous timestamp and stores whether it is written.
    s.nfa_previous_timestamp = s.outer_version >= 2 && o.boolean();
  } else if (c.ends_with("$ExternalSerializerSnapshot")) {
    external_data_type(s);
    return;
  } else if (c.ends_with("TwoPhaseCommitSinkFunction$StateSerializerSnapshot")) {
    // Outer version 3 introduced null pending transactions, 4 stores the choice.
    if (s.outer_version >= 4) s.nullable_pending_txn = o.boolean();
    else s.nullable_pending_txn = s.outer_version == 3;
  } else {
    return;  // outer data kept raw: meaningless for decoding
  }
  if (o.ok() && !o.at_end())
    o.fail(fmt::format("{} unexpected bytes in the outer data of {}", o.remaining(), c));
  if (!o.ok()) r_.fail_at(o.error()->offset.value_or(at), o.error()->message);
}

void SnapshotParser::nested_delegate(SerializerSnapshot& s, int depth) {
  uint64_t at = r_.offset();
  int32_t magic = r_.i32();
  int32_t version = r_.i32();
  if (!r_.ok()) return;
  if (magic != kNestedMagic || version != 1) {
    r_.fail_at(at, fmt::format("expected nested serializer snapshots (magic {:#x}, version 1), found {:#x} version {}",
                               kNestedMagic, static_cast<uint32_t>(magic), version));
    return;
  }
  int32_t n = r_.count(6, "nested serializer snapshot");
  for (int32_t i = 0; i < n && r_.ok(); ++i) {
    SerializerSnapshot child;
    versioned(child, depth + 1);
    s.nested.push_back(std::move(child));
  }
}

template <class F>
void SnapshotParser::optional_map(F&& entry) {
  uint64_t at = r_.offset();
  uint64_t header = r_.u64();
  if (r_.ok() && header != kOptionalMapHeader) {
    r_.fail_at(at, fmt::format("expected optional map header {:#x}, found {:#x}", kOptionalMapHeader, header));
    return;
  }
  int32_t n = r_.count(4, "optional map entry");
  for (int32_t i = 0; i < n && r_.ok(); ++i) {
    std::string name = r_.utf();
    std::string_view key, value;
    uint64_t key_at = 0, value_at = 0;
    bool has_key = r_.boolean();
    if (has_key) {
      int32_t len = r_.count(1, "optional map key frame byte");
      key_at = r_.offset();
      key = r_.bytes(len);
    }
    bool has_value = r_.boolean();
    if (has_value) {
      int32_t len = r_.count(1, "optional map value frame byte");
      value_at = r_.offset();
      value = r_.bytes(len);
    }
    if (!r_.ok()) return;
    entry(name, has_key ? &key : nullptr, key_at, has_value ? &value : nullptr, value_at);
  }
}

void SnapshotParser::frame_snapshot(std::string_view frame, uint64_t base, SerializerSnapshot& out, int depth) {
  ByteReader sub(frame, base);
  SnapshotParser p(sub, opt_);
  p.versioned(out, depth + 1);
  if (sub.ok() && !sub.at_end())
    sub.fail(fmt::format("{} unexpected bytes after a framed serializer snapshot", sub.remaining()));
  if (!sub.ok()) {
    const Error& e = *sub.error();
    r_.fail_at(e.offset.value_or(base), e.message, e.code);
  }
}

void SnapshotParser::pojo(SerializerSnapshot& s, int depth) {
  s.form = SnapshotForm::kPojo;
  if (s.version != 2) {
    r_.not_supported_at(s.offset, fmt::format("unsupported POJO serializer snapshot version {}", s.version));
    return;
  }
  s.type_class = r_.utf();
  optional_map([&](const std::string& name, const std::string_view* key, uint64_t key_at,
                   const std::string_view* value, uint64_t value_at) {
    if (key) {
      // The key frame names the field: declaring class, then field name.
      ByteReader k(*key, key_at);
      (void)k.utf();
      (void)k.utf();
      if (k.ok() && !k.at_end()) k.fail("unexpected bytes after a POJO field name");
      if (!k.ok()) { r_.fail_at(k.error()->offset.value_or(key_at), k.error()->message); return; }
    }
    s.field_names.push_back(key ? name : std::string());
    SerializerSnapshot field;
    if (value) frame_snapshot(*value, value_at, field, depth);
    s.nested.push_back(std::move(field));
  });
  auto subclasses = [&](std::vector<std::string>& names, std::vector<SerializerSnapshot>& snaps) {
    optional_map([&](const std::string& name, const std::string_view*, uint64_t, const std::string_view* value,
                     uint64_t value_at) {
      names.push_back(name);
      SerializerSnapshot sub;
      if (value) frame_snapshot(*value, value_at, sub, depth);
      snaps.push_back(std::move(sub));
    });
  };
  subclasses(s.pojo_registered_subclasses, s.pojo_registered_snapshots);
  subclasses(s.pojo_nonregistered_subclasses, s.pojo_nonregistered_snapshots);
}

void SnapshotParser::kryo(SerializerSnapshot& s) {
  s.form = SnapshotForm::kKryo;
  s.type_class = r_.utf();
  // Registrations (framed, not modelled: a registered class is written by an id, which a
  // reader refuses), then default serializers and default serializer classes, keyed by the
  // class they serialize: its values' bytes are then that serializer's, not Kryo's own.
  auto ignore = [](const std::string&, const std::string_view*, uint64_t, const std::string_view*, uint64_t) {};
  auto defaults = [&s](const std::string& name, const std::string_view*, uint64_t, const std::string_view*, uint64_t) {
    s.kryo_default_serializers.push_back(name);
  };
  optional_map(ignore);
  for (int i = 0; i < 2 && r_.ok(); ++i) optional_map(defaults);
}

void SnapshotParser::enumeration(SerializerSnapshot& s) {
  s.form = SnapshotForm::kEnum;
  s.type_class = r_.utf();
  int32_t n = r_.count(2, "enum constant");
  for (int32_t i = 0; i < n && r_.ok(); ++i) s.enum_constants.push_back(r_.utf());
}

void SnapshotParser::avro(SerializerSnapshot& s) {
  s.form = SnapshotForm::kOpaqueKnown;
  if (s.version == 1) {
    s.avro_schema_offset = r_.offset();
    s.avro_schema = r_.utf();
  } else if (s.version == 2) {
    s.type_class = r_.utf();
    s.avro_schema_offset = r_.offset();
    s.avro_schema = r_.utf();
  } else if (s.version == 3) {
    read_flink_string(r_, &s.type_class);
    s.avro_schema_offset = r_.offset();
    read_flink_string(r_, &s.avro_schema);
  } else {
    r_.not_supported_at(s.offset, fmt::format("unsupported Avro serializer snapshot version {}", s.version));
  }
  // A schema Avro would not accept is an error here, in the file that holds it; one naming a
  // type it does not define only leaves the values opaque (make_decoder).
  if (!r_.ok()) return;
  Result<AvroSchema> schema = parse_avro_schema(s);
  if (!schema.ok() && schema.error().code == ErrorCode::kCorruption)
    r_.fail_at(*schema.error().offset, schema.error().message);
}

void SnapshotParser::ttl_aware(SerializerSnapshot& s, int depth) {
  s.form = SnapshotForm::kComposite;
  s.outer_version = s.version;
  s.outer_data = std::string(r_.bytes(1));  // bool: TTL enabled
  SerializerSnapshot inner;
  versioned(inner, depth + 1);
  s.nested.push_back(std::move(inner));
}

void SnapshotParser::row_data(SerializerSnapshot& s, int depth) {
  s.form = SnapshotForm::kRowData;
  int32_t n = r_.count(4, "row field type");
  if (!r_.ok()) return;
  // The LogicalTypes are Java-serialized back to back; the nested delegate follows them.
  size_t at = distance_to_nested_header();
  if (at == kNotFound) {
    r_.fail("no nested serializer snapshots after the logical types of a RowData snapshot");
    return;
  }
  uint64_t types_at = r_.offset();
  s.outer_data = std::string(r_.bytes(at));
  s.outer_version = s.version;
  // Types that cannot be read leave the snapshot usable: its values then stay opaque.
  auto types = read_logical_types(s.outer_data, types_at, n);
  if (types.ok()) {
    s.logical_types = std::move(types).value();
    s.logical_types_decoded = true;
  }
  nested_delegate(s, depth);
  if (r_.ok() && static_cast<int32_t>(s.nested.size()) != n)
    r_.fail_at(s.offset, fmt::format("RowData snapshot has {} field types but {} field serializers", n, s.nested.size()));
}

void SnapshotParser::parameters(SerializerSnapshot& s) {
  s.form = SnapshotForm::kParameters;
  int n = snapshot_class::parameter_count(s.snapshot_class);
  for (int i = 0; i < n && r_.ok(); ++i) s.parameters.push_back(r_.i32());
}

bool SnapshotParser::composite_magic_next() const {
  return r_.remaining() >= 4 && be32(r_.data() + r_.position()) == static_cast<uint32_t>(kCompositeMagic);
}

void SnapshotParser::java_types(SerializerSnapshot& s, int depth) {
  // Every Flink version writes these bodies Java-serialized; a composite body (magic first)
  // is read as one, should a later version switch.
  if (composite_magic_next()) {
    composite(s, depth);
    return;
  }
  // A stream that cannot be read leaves the body's end unknown: resynchronise, as for an
  // unknown class, and keep the values opaque.
  ByteReader java(r_.data() + r_.position(), r_.remaining(), r_.offset());
  auto types = read_java_type_config(java, snapshot_class::java_type_count(s.snapshot_class));
  if (!types.ok()) {
    s.form = SnapshotForm::kUnknown;
    if (!opt_.resync_unknown) {
      const Error& e = types.error();
      r_.fail_at(e.offset.value_or(s.offset), e.message, e.code);
      return;
    }
    resync(s);
    return;
  }
  s.form = SnapshotForm::kJavaTypes;
  s.logical_types = std::move(types).value();
  s.logical_types_decoded = true;
  r_.skip(java.position());
}

void SnapshotParser::sorted_map(SerializerSnapshot& s, int depth) {
  // The comparator (generated code, Java-serialized) precedes the key and value snapshots;
  // where it cannot be read, its end is where the nested delegate's header starts.
  s.form = SnapshotForm::kComposite;
  s.outer_version = s.version;
  ByteReader java(r_.data() + r_.position(), r_.remaining(), r_.offset());
  size_t at = skip_java_object(java).ok() ? java.position() : distance_to_nested_header();
  if (at == kNotFound) {
    r_.fail(fmt::format("no nested serializer snapshots after the comparator of {}", s.snapshot_class));
    return;
  }
  s.outer_data = std::string(r_.bytes(at));
  nested_delegate(s, depth);
  if (r_.ok() && s.nested.size() != 2)
    r_.fail_at(s.offset, fmt::format("SortedMap snapshot has {} nested serializers (expected 2)", s.nested.size()));
}

void SnapshotParser::external_data_type(SerializerSnapshot& s) {
  // The DataType (Java-serialized) and isInternalInput. Its logical type names the attributes
  // of structured types; values decode through the nested internal serializer without it.
  ByteReader o(s.outer_data, r_.offset() - s.outer_data.size());
  auto type = read_data_type(o);
  if (!type.ok()) return;
  (void)o.boolean();
  if (!o.ok() || !o.at_end()) return;
  s.logical_types = {std::move(type).value()};
  s.logical_types_decoded = true;
}

void SnapshotParser::legacy(SerializerSnapshot& s) {
  s.form = SnapshotForm::kLegacyConfig;
  // TypeSerializerSerializationProxy: its own version, then the Java-serialized serializer.
  int32_t proxy_version = r_.i32();
  (void)proxy_version;
  int32_t len = r_.count(1, "serialized serializer byte");
  s.legacy_java_serializer = std::string(r_.bytes(len));
  s.legacy_config_version = r_.i32();
  if (!r_.ok()) return;
  // The serializer object says what the config payload repeats (formats/serializers.md §15).
  attach_legacy_nested(s);
  // The config snapshot's own payload is unframed and class specific.
  if (!resync(s)) return;
}

void SnapshotParser::unknown(SerializerSnapshot& s, int depth) {
  // An unknown composite still has a recognisable shape.
  if (composite_magic_next()) {
    composite(s, depth);
    return;
  }
  if (r_.remaining() >= sizeof kNestedHeader &&
      std::memcmp(r_.data() + r_.position(), kNestedHeader, sizeof kNestedHeader) == 0) {
    s.form = SnapshotForm::kComposite;
    s.outer_version = s.version;
    nested_delegate(s, depth);
    return;
  }
  s.form = SnapshotForm::kUnknown;
  if (!opt_.resync_unknown) {
    r_.not_supported_at(s.offset, fmt::format("unknown serializer snapshot class {}", s.snapshot_class));
    return;
  }
  resync(s);
}

size_t SnapshotParser::distance_to_nested_header() const {
  const uint8_t* base = r_.data() + r_.position();
  size_t left = r_.remaining();
  for (size_t at = 0; at + sizeof kNestedHeader <= left; ++at)
    if (std::memcmp(base + at, kNestedHeader, sizeof kNestedHeader) == 0) return at;
  return kNotFound;
}

bool SnapshotParser::utf_at(size_t p, size_t* len) const {
  if (p + 2 > r_.size()) return false;
  *len = (size_t{r_.data()[p]} << 8) | r_.data()[p + 1];
  return p + 2 + *len <= r_.size();
}

bool SnapshotParser::meta_info_at(size_t p) const {
  const uint8_t* d = r_.data();
  size_t size = r_.size();
  size_t n, m;
  if (!utf_at(p, &n) || !plausible_text(d + p + 2, n)) return false;
  size_t after = p + 2 + n;
  if (after + 8 > size) return false;
  int32_t type = static_cast<int32_t>(be32(d + after));
  int32_t options = static_cast<int32_t>(be32(d + after + 4));
  size_t q = after + 8;
  if (type < 0 || type > 4) return false;
  if (options > 0 && options <= 16 && utf_at(q, &m)) {
    std::string_view key(reinterpret_cast<const char*>(d + q + 2), m);
    return key == "KEYED_STATE_TYPE" || key == "OPERATOR_STATE_DISTRIBUTION_MODE";
  }
  if (options == 0 && q + 4 <= size) {
    int32_t sers = static_cast<int32_t>(be32(d + q));
    if (sers >= 1 && sers <= 8 && utf_at(q + 4, &m)) {
      std::string_view role(reinterpret_cast<const char*>(d + q + 6), m);
      return role.ends_with("_SERIALIZER");
    }
  }
  return false;
}

bool SnapshotParser::looks_like_next_item(size_t p) const {
  const uint8_t* d = r_.data();
  size_t size = r_.size();
  if (p == size) return true;
  size_t n;
  if (utf_at(p, &n) && n > 0) {
    const uint8_t* s = d + p + 2;
    size_t after = p + 2 + n;
    std::string_view text(reinterpret_cast<const char*>(s), n);
    bool has_i32 = after + 4 <= size;
    int32_t next = has_i32 ? static_cast<int32_t>(be32(d + after)) : 0;
    // A role key followed by the proxy version.
    if (plausible_name(s, n, true) && text.ends_with("_SERIALIZER") && has_i32 && next == kProxyVersion)
      return true;
    // A snapshot class name followed by a plausible version.
    if (n >= 10 && plausible_name(s, n, false) && text.ends_with("Snapshot") && has_i32 &&
        ((next >= 1 && next <= 16) || next == kLegacyConfigSnapshotVersion))
      return true;
    if (meta_info_at(p)) return true;
  }
  // An i16 state count in front of a meta info record.
  if (p + 2 <= size) {
    uint16_t count = static_cast<uint16_t>((d[p] << 8) | d[p + 1]);
    if (count >= 1 && count <= 0x7fff && meta_info_at(p + 2)) return true;
  }
  return false;
}

bool SnapshotParser::resync(SerializerSnapshot& s) {
  for (size_t p = r_.position(); p <= r_.size(); ++p) {
    if (looks_like_next_item(p)) {
      r_.seek(p);
      s.resynced = true;
      return true;
    }
  }
  r_.not_supported_at(s.offset, fmt::format("cannot find the end of serializer snapshot {}", s.snapshot_class));
  return false;
}

}  // namespace

const char* snapshot_form_name(SnapshotForm f) {
  switch (f) {
    case SnapshotForm::kSimple: return "simple";
    case SnapshotForm::kComposite: return "composite";
    case SnapshotForm::kPojo: return "pojo";
    case SnapshotForm::kKryo: return "kryo";
    case SnapshotForm::kEnum: return "enum";
    case SnapshotForm::kRowData: return "rowdata";
    case SnapshotForm::kClassOnly: return "class-only";
    case SnapshotForm::kOpaqueKnown: return "opaque";
    case SnapshotForm::kLegacyConfig: return "legacy-config";
    case SnapshotForm::kUnknown: return "unknown";
    case SnapshotForm::kParameters: return "parameters";
    case SnapshotForm::kJavaTypes: return "java-types";
  }
  return "unknown";
}

std::string_view SerializerSnapshot::body() const {
  if (raw.size() < 2) return {};
  size_t header = 2 + ((size_t{static_cast<uint8_t>(raw[0])} << 8) | static_cast<uint8_t>(raw[1])) + 4;
  return header <= raw.size() ? std::string_view(raw).substr(header) : std::string_view();
}

std::string SerializerSnapshot::display_name() const {
  std::string_view c = serializer_class;
  size_t dot = c.rfind('.');
  std::string name(dot == std::string_view::npos ? c : c.substr(dot + 1));
  std::string_view t = type_class;
  size_t tdot = t.rfind('.');
  if (form == SnapshotForm::kPojo || form == SnapshotForm::kKryo || form == SnapshotForm::kEnum)
    return name + "<" + type_class + ">";
  if (!t.empty() && form == SnapshotForm::kComposite)
    return name + "<" + std::string(tdot == std::string_view::npos ? t : t.substr(tdot + 1)) + ">";
  return name;
}

Result<SerializerSnapshot> read_serializer_snapshot(ByteReader& r, SnapshotFraming framing,
                                                    const SnapshotReadOptions& options) {
  if (framing == SnapshotFraming::kProxy) {
    uint64_t at = r.offset();
    int32_t v = r.i32();
    if (r.ok() && v != kProxyVersion)
      r.not_supported_at(at, fmt::format("unsupported serializer snapshot proxy version {} (expected 2)", v));
  }
  SerializerSnapshot s;
  if (r.ok()) SnapshotParser(r, options).versioned(s, 0);
  if (!r.ok()) return *r.error();
  return s;
}

void write_serializer_snapshot(ByteWriter& w, const SerializerSnapshot& s, SnapshotFraming framing) {
  if (framing == SnapshotFraming::kProxy) w.i32(kProxyVersion);
  w.bytes(s.raw);
}

}  // namespace ckpt
