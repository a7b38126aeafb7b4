// The Kryo collection fields of a state: walked, typed and re-encoded (collection_fields.h).
#include "ops/upgrade/collection_fields.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "state/keyed_state_codec.h"
#include "state/raw_keyed_reader.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "types/serializer_classes.h"
#include "types/snapshot_bytes.h"
#include "types/value_decoder.h"

namespace ckpt {
namespace {

// The POJO field types Flink 2.0's TypeExtractor gives List/Map/Set type information
// (FLIP-398): the interfaces themselves (upgrade_rules.cc, the same list).
constexpr std::array<std::string_view, 3> kCollectionInterfaces = {"java.util.List", "java.util.Map", "java.util.Set"};

bool is_field_target(const SerializerSnapshot& s) {
  return s.form == SnapshotForm::kKryo && std::find(kCollectionInterfaces.begin(), kCollectionInterfaces.end(),
                                                    s.type_class) != kCollectionInterfaces.end();
}

// PojoSerializer's flags byte (PojoSerializer.IS_NULL, NO_SUBCLASS).
constexpr uint8_t kPojoIsNull = 1, kPojoNoSubclass = 2;

bool contains_target(const SerializerSnapshot& s, bool pojo_field, int depth = 0) {
  if (depth > 64) return false;
  if (pojo_field && is_field_target(s)) return true;
  const bool pojo = s.form == SnapshotForm::kPojo;
  for (const SerializerSnapshot& n : s.nested)
    if (contains_target(n, pojo, depth + 1)) return true;
  for (const SerializerSnapshot& n : s.pojo_registered_snapshots)
    if (contains_target(n, false, depth + 1)) return true;
  for (const SerializerSnapshot& n : s.pojo_nonregistered_snapshots)
    if (contains_target(n, false, depth + 1)) return true;
  return false;
}

// One step of the walk over a value's bytes: copy what no field of interest is in, descend into
// POJOs and TTL values that hold one, re-encode the fields.
struct Node {
  enum class Kind { kCopy, kTtl, kPojo, kField } kind = Kind::kCopy;
  std::unique_ptr<ValueDecoder> decoder;         // kCopy (null: a POJO field the class no longer has)
  std::vector<Node> children;                    // kTtl: the value; kPojo: the fields
  size_t field = 0;                              // kField: its index in the state's fields
  std::string declared;                          // kField: java.util.List, Map or Set
  const SerializerSnapshot* snapshot = nullptr;  // kField, kPojo, kTtl: where it stands in the tree
};

std::string where_name(const std::string& where, const SerializerSnapshot& parent, size_t i) {
  const bool named =
      parent.form == SnapshotForm::kPojo && i < parent.field_names.size() && !parent.field_names[i].empty();
  return where + " > " + (named ? "field " + parent.field_names[i] : std::to_string(i));
}

}  // namespace

bool has_collection_field(const SerializerSnapshot& s) { return contains_target(s, false); }

struct CollectionFields::Impl {
  StateMetaInfo state;
  StateKind kind = StateKind::kUnknown;
  Node root;  // the value (VALUE ...), a list's element or a map's value
  std::vector<std::string> where;
  std::vector<const SerializerSnapshot*> field_snapshots;
  std::vector<std::unique_ptr<ValueDecoder>> encoders;  // after rewrite(): one per field

  Result<Node> build(const SerializerSnapshot& s, const std::string& at, bool pojo_field) {
    Node n;
    n.snapshot = &s;
    if (pojo_field && is_field_target(s)) {
      n.kind = Node::Kind::kField;
      n.field = where.size();
      n.declared = s.type_class;
      where.push_back(at);
      field_snapshots.push_back(&s);
      return n;
    }
    if (!contains_target(s, pojo_field)) {
      if (s.snapshot_class.empty() && s.form == SnapshotForm::kUnknown) return n;  // a removed field's slot
      CKPT_ASSIGN_OR_RETURN(n.decoder, make_decoder(s));
      return n;
    }
    if (s.form == SnapshotForm::kPojo) {
      if (!s.pojo_registered_snapshots.empty() || !s.pojo_nonregistered_snapshots.empty())
        for (const auto* list : {&s.pojo_registered_snapshots, &s.pojo_nonregistered_snapshots})
          for (const SerializerSnapshot& sub : *list)
            if (contains_target(sub, false))
              return Error(ErrorCode::kNotSupported,
                           fmt::format("{}: a subclass of {} holds a Kryo collection field, which the rewrite does "
                                       "not walk",
                                       at, s.type_class));
      n.kind = Node::Kind::kPojo;
      for (size_t i = 0; i < s.nested.size(); ++i) {
        CKPT_ASSIGN_OR_RETURN(Node child, build(s.nested[i], where_name(at, s, i), true));
        n.children.push_back(std::move(child));
      }
      return n;
    }
    if (s.snapshot_class == snapshot_class::kTtl && s.nested.size() == 2 && !contains_target(s.nested[0], false)) {
      n.kind = Node::Kind::kTtl;
      CKPT_ASSIGN_OR_RETURN(Node child, build(s.nested[1], at + " > 1", false));
      n.children.push_back(std::move(child));
      return n;
    }
    return Error(ErrorCode::kNotSupported,
                 fmt::format("{}: the Kryo collection field sits inside {}, which the rewrite does not walk yet", at,
                             s.display_name()));
  }

  // Reads one value of `n` at r; with `w`, writes it as Flink 2.x does; with `types`, unifies
  // the types of its fields into them.
  Status walk(const Node& n, ByteReader& r, ByteWriter* w, std::vector<KryoType>* types) const {
    switch (n.kind) {
      case Node::Kind::kCopy: {
        if (!n.decoder) return Error(ErrorCode::kCorruption, "a value for a POJO field the class no longer has");
        const size_t start = r.position();
        n.decoder->skip(r);
        if (!r.ok()) return *r.error();
        if (w) w->bytes(r.since(start));
        return Status::OK();
      }
      case Node::Kind::kTtl: {
        const int64_t last_access = r.i64();  // TtlSerializer: the last access time, then the value
        if (!r.ok()) return *r.error();
        if (w) w->i64(last_access);
        return walk(n.children[0], r, w, types);
      }
      case Node::Kind::kPojo: {
        const uint64_t at = r.offset();
        const uint8_t flags = r.u8();
        if (!r.ok()) return *r.error();
        if (w) w->u8(flags);
        if (flags & kPojoIsNull) return Status::OK();
        if (flags != kPojoNoSubclass)
          return Error(ErrorCode::kNotSupported,
                       fmt::format("a value of a subclass of {} (POJO flags {:#x} at offset {:#x}): the rewrite "
                                   "reads the POJO's own fields only",
                                   n.snapshot->type_class, flags, at));
        for (const Node& child : n.children) {
          const bool is_null = r.boolean();
          if (!r.ok()) return *r.error();
          if (w) w->boolean(is_null);
          if (!is_null) CKPT_RETURN_IF_ERROR(walk(child, r, w, types));
        }
        return Status::OK();
      }
      case Node::Kind::kField: {
        nlohmann::json value;
        KryoType t;
        CKPT_RETURN_IF_ERROR(read_kryo_typed(r, n.declared, n.snapshot->kryo_default_serializers, value, t));
        if (types) (*types)[n.field] = kryo_unify((*types)[n.field], t);
        if (w) {
          Status s = encoders[n.field]->encode(value, *w);
          if (!s.ok()) return Error(s.error()).with_context(where[n.field]);
        }
        return Status::OK();
      }
    }
    return Status::OK();
  }

  // The RocksDB value of the state's kind: a value, a list's elements joined by ',', or a map
  // value behind its null flag (formats/keyed-state.md §10).
  Status value(std::string_view bytes, ByteWriter* w, std::vector<KryoType>* types) const {
    ByteReader r(bytes);
    if (kind == StateKind::kMap) {
      const bool is_null = r.boolean();
      if (!r.ok()) return *r.error();
      if (w) w->boolean(is_null);
      if (!is_null) CKPT_RETURN_IF_ERROR(walk(root, r, w, types));
    } else if (kind == StateKind::kList) {
      while (true) {
        CKPT_RETURN_IF_ERROR(walk(root, r, w, types));
        if (r.at_end()) break;
        const uint64_t at = r.offset();
        const uint8_t d = r.u8();
        if (!r.ok()) return *r.error();
        if (d != static_cast<uint8_t>(kListDelimiter))
          return Error(
              ErrorCode::kCorruption,
              fmt::format("list element followed by {:#04x} at offset {:#x}, expected the delimiter ','", d, at));
        if (w) w->u8(d);
      }
    } else {
      CKPT_RETURN_IF_ERROR(walk(root, r, w, types));
    }
    if (!r.at_end())
      return Error(ErrorCode::kCorruption,
                   fmt::format("{} bytes after the value at offset {:#x}", r.remaining(), r.offset()));
    return Status::OK();
  }
};

CollectionFields::CollectionFields(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CollectionFields::~CollectionFields() = default;

const std::vector<std::string>& CollectionFields::where() const { return impl_->where; }

Result<std::unique_ptr<CollectionFields>> CollectionFields::make(const StateMetaInfo& state,
                                                                 const SerializerSnapshot& key) {
  if (has_collection_field(key))
    return Error(ErrorCode::kNotSupported,
                 "the key holds a Kryo collection field: re-encoding it would change the bytes entries are found by");
  auto impl = std::make_unique<Impl>();
  impl->state = state;
  impl->kind = state.kind();
  const StateMetaInfo& st = impl->state;  // the nodes point into the copy
  for (const auto& [role, snap] : st.serializers)
    if (role != meta_key::kValueSerializer && has_collection_field(snap))
      return Error(ErrorCode::kNotSupported,
                   fmt::format("the {} holds a Kryo collection field: re-encoding it would change the bytes entries "
                               "are found by",
                               role));
  const SerializerSnapshot* v = st.value_serializer();
  if (!v || !has_collection_field(*v)) return Error(ErrorCode::kInvalidArgument, "the state has no collection field");
  const SerializerSnapshot* root = v;
  std::string at = "value";
  switch (impl->kind) {
    case StateKind::kValue:
    case StateKind::kReducing:
    case StateKind::kAggregating:
    case StateKind::kFolding: break;
    case StateKind::kList:
      if (v->form != SnapshotForm::kComposite || v->nested.size() != 1)
        return Error(ErrorCode::kNotSupported, fmt::format("a list state whose serializer is {}", v->display_name()));
      root = &v->nested[0];
      at += " > 0";
      break;
    case StateKind::kMap:
      if (v->form != SnapshotForm::kComposite || v->nested.size() != 2)
        return Error(ErrorCode::kNotSupported, fmt::format("a map state whose serializer is {}", v->display_name()));
      if (has_collection_field(v->nested[0]))
        return Error(ErrorCode::kNotSupported,
                     "the map's user key holds a Kryo collection field: re-encoding it would change the bytes "
                     "entries are found by");
      root = &v->nested[1];
      at += " > 1";
      break;
    default:
      return Error(ErrorCode::kNotSupported, fmt::format("a {} state is not rewritten", state_kind_name(impl->kind)));
  }
  CKPT_ASSIGN_OR_RETURN(impl->root, impl->build(*root, at, false));
  return std::unique_ptr<CollectionFields>(new CollectionFields(std::move(impl)));
}

Status CollectionFields::observe(std::string_view rocks_value, std::vector<KryoType>& types) const {
  types.resize(impl_->where.size());
  return impl_->value(rocks_value, nullptr, &types);
}

Status CollectionFields::transcode(std::string_view rocks_value, std::string& out) const {
  if (impl_->encoders.size() != impl_->where.size())
    return Error(ErrorCode::kInvalidArgument, "transcode() before rewrite()");
  ByteWriter w;
  CKPT_RETURN_IF_ERROR(impl_->value(rocks_value, &w, nullptr));
  out = w.take();
  return Status::OK();
}

namespace {

// `s`'s bytes with the snapshots of `replaced` (pointers into s's tree) swapped for the bytes
// beside them. A POJO frames each field's snapshot with its i32 length (LinkedOptionalMap,
// formats/keyed-state.md §2.5), which is written anew; composites nest theirs unframed.
Result<std::string> spliced(const SerializerSnapshot& s,
                            const std::vector<std::pair<const SerializerSnapshot*, std::string>>& replaced) {
  for (const auto& [snap, bytes] : replaced)
    if (snap == &s) return bytes;
  std::string out = s.raw;
  // Back to front, so the offsets of the ones before stay valid.
  for (size_t i = s.nested.size(); i-- > 0;) {
    const SerializerSnapshot& n = s.nested[i];
    if (n.raw.empty()) continue;
    CKPT_ASSIGN_OR_RETURN(std::string inner, spliced(n, replaced));
    if (inner == n.raw) continue;
    if (n.offset < s.offset || n.offset - s.offset + n.raw.size() > out.size())
      return Error(ErrorCode::kInvalidArgument, "a nested snapshot outside its parent's bytes");
    const size_t at = static_cast<size_t>(n.offset - s.offset);
    if (s.form == SnapshotForm::kPojo) {
      if (at < 4) return Error(ErrorCode::kInvalidArgument, "a POJO field snapshot without its length");
      ByteReader len(std::string_view(out).substr(at - 4, 4));
      if (static_cast<size_t>(len.i32()) != n.raw.size())
        return Error(ErrorCode::kInvalidArgument, "a POJO field snapshot whose length is not before it");
      ByteWriter w;
      w.i32(static_cast<int32_t>(inner.size()));
      out.replace(at - 4, 4, w.buffer());
    }
    out.replace(at, n.raw.size(), inner);
  }
  return out;
}

constexpr std::string_view kSimpleClasses[] = {
    // KryoType::Kind kInt .. kDouble, in that order.
    "IntSerializer$IntSerializerSnapshot",      "StringSerializer$StringSerializerSnapshot",
    "FloatSerializer$FloatSerializerSnapshot",  "BooleanSerializer$BooleanSerializerSnapshot",
    "ByteSerializer$ByteSerializerSnapshot",    "CharSerializer$CharSerializerSnapshot",
    "ShortSerializer$ShortSerializerSnapshot",  "LongSerializer$LongSerializerSnapshot",
    "DoubleSerializer$DoubleSerializerSnapshot"};

Status write_flink2(const KryoType& t, ByteWriter& w, int depth) {
  using Kind = KryoType::Kind;
  if (depth > 64) return Error(ErrorCode::kNotSupported, "collections nested too deep");
  if (t.kind >= Kind::kInt && t.kind <= Kind::kDouble) {
    const std::string cls = std::string(snapshot_class::kBase) +
                            std::string(kSimpleClasses[static_cast<int>(t.kind) - static_cast<int>(Kind::kInt)]);
    write_simple_snapshot(w, cls.c_str());
    return Status::OK();
  }
  const std::string name = kryo_type_name(t);
  switch (t.kind) {
    case Kind::kList:
    case Kind::kSet:
    case Kind::kMap: {
      for (const KryoType& a : t.args)
        if (a.kind == Kind::kNone)
          return Error(ErrorCode::kNotSupported,
                       fmt::format("{}: no value holds an element, so the element type is not known", name));
      // ListSerializer and MapSerializer's keys write no null (Flink's ListSerializer.serialize
      // hands each element to the element serializer); SetSerializer and a map's values flag them.
      if (t.kind == Kind::kList && t.args[0].null_seen)
        return Error(ErrorCode::kNotSupported, fmt::format("{}: a list holds a null element, which "
                                                           "ListSerializer does not write",
                                                           name));
      if (t.kind == Kind::kMap && t.args[0].null_seen)
        return Error(ErrorCode::kNotSupported,
                     fmt::format("{}: a map holds a null key, which MapSerializer does not write", name));
      const std::string cls = std::string(snapshot_class::kBase) + (t.kind == Kind::kList  ? "ListSerializerSnapshot"
                                                                    : t.kind == Kind::kSet ? "SetSerializerSnapshot"
                                                                                           : "MapSerializerSnapshot");
      // Each is a CompositeTypeSerializerSnapshot of outer version 1 without outer data.
      write_composite_head(w, cls.c_str(), static_cast<int32_t>(t.args.size()));
      for (const KryoType& a : t.args) CKPT_RETURN_IF_ERROR(write_flink2(a, w, depth + 1));
      return Status::OK();
    }
    case Kind::kNone: return Error(ErrorCode::kNotSupported, "no value was read, so the type is not known");
    case Kind::kMixed:
      return Error(ErrorCode::kNotSupported,
                   fmt::format("values of several types ({}): Flink 2.x's serializers take one", t.other));
    default: return Error(ErrorCode::kNotSupported, fmt::format("{} has no Flink 2.x serializer ckpt writes", name));
  }
}

}  // namespace

Result<std::string> flink2_collection_snapshot(const KryoType& t) {
  ByteWriter w;
  CKPT_RETURN_IF_ERROR(write_flink2(t, w, 0));
  return w.take();
}

Result<StateMetaInfo> CollectionFields::rewrite(const std::vector<KryoType>& types) {
  Impl& m = *impl_;
  if (types.size() != m.where.size()) return Error(ErrorCode::kInvalidArgument, "one type per field expected");
  std::vector<std::pair<const SerializerSnapshot*, std::string>> replaced;
  std::vector<std::unique_ptr<ValueDecoder>> encoders;
  SnapshotReadOptions strict;
  strict.resync_unknown = false;
  for (size_t i = 0; i < types.size(); ++i) {
    // The declared interface must be what the values are.
    const std::string& declared = m.field_snapshots[i]->type_class;
    const KryoType::Kind want = declared == "java.util.List"  ? KryoType::Kind::kList
                                : declared == "java.util.Set" ? KryoType::Kind::kSet
                                                              : KryoType::Kind::kMap;
    if (types[i].kind != want && types[i].kind != KryoType::Kind::kNone)
      return Error(ErrorCode::kNotSupported,
                   fmt::format("{}: a field declared {} holds {}", m.where[i], declared, kryo_type_name(types[i])));
    Result<std::string> bytes = flink2_collection_snapshot(
        types[i].kind == KryoType::Kind::kNone ? KryoType{want, false, {}, {KryoType{}}} : types[i]);
    if (!bytes.ok()) return Error(bytes.error()).with_context(m.where[i]);
    ByteReader r(*bytes);
    CKPT_ASSIGN_OR_RETURN(SerializerSnapshot snap, read_serializer_snapshot(r, SnapshotFraming::kVersioned, strict));
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ValueDecoder> enc, make_decoder(snap));
    encoders.push_back(std::move(enc));
    replaced.emplace_back(m.field_snapshots[i], std::move(bytes).value());
  }
  StateMetaInfo out = m.state;
  for (auto& [role, snap] : out.serializers) {
    if (role != meta_key::kValueSerializer) continue;
    CKPT_ASSIGN_OR_RETURN(std::string raw, spliced(*m.state.value_serializer(), replaced));
    ByteReader r(raw);
    CKPT_ASSIGN_OR_RETURN(snap, read_serializer_snapshot(r, SnapshotFraming::kVersioned, strict));
    if (has_collection_field(snap)) return Error(ErrorCode::kInvalidArgument, "a collection field was not replaced");
  }
  m.encoders = std::move(encoders);
  return out;
}

std::string CollectionFieldsVerdict::description() const {
  std::string out;
  if (!fields) return out;
  for (size_t i = 0; i < fields->where().size() && i < types.size(); ++i)
    out += fmt::format("{}{} as {}", i ? "; " : "", fields->where()[i], kryo_type_name(types[i]));
  return out;
}

Result<CollectionFieldsScan> scan_collection_fields(const Metadata& m, const StreamOpener& streams) {
  CollectionFieldsScan scan;
  for (const OperatorState& op : m.operators) {
    const std::string id = operator_id_hex(op.id);
    for (const SubtaskState& st : op.subtasks) {
      if (st.managed_keyed.is_null()) continue;
      // A handle whose proxy cannot be read here is the rewrite's and the check's to report.
      Result<RawKeyedSource> opened = open_raw_keyed(st.managed_keyed, streams, op.max_parallelism);
      if (!opened.ok()) continue;
      RawKeyedSource& raw = *opened;
      // The states of this handle to read, by their index in its proxy.
      std::vector<std::pair<size_t, CollectionFieldsVerdict*>> read;
      for (size_t i = 0; i < raw.meta.states.size(); ++i) {
        const StateMetaInfo& state = raw.meta.states[i];
        bool any = false;
        for (const auto& [role, snap] : state.serializers) any = any || has_collection_field(snap);
        if (!any) continue;
        auto [it, added] = scan.try_emplace({id, state.name});
        CollectionFieldsVerdict& v = it->second;
        const SerializerSnapshot* value = state.value_serializer();
        const std::string value_raw = value ? value->raw : std::string();
        if (added) {
          v.value_raw = value_raw;
          Result<std::unique_ptr<CollectionFields>> f = CollectionFields::make(state, raw.meta.key_serializer);
          if (f.ok())
            v.fields = std::move(f).value();
          else
            v.reason = f.error().message;
        } else if (v.fields && v.value_raw != value_raw) {
          v.fields.reset();
          v.reason = "the subtasks' proxies describe the state's value serializer differently";
        }
        if (v.fields) read.emplace_back(i, &v);
      }
      if (read.empty()) continue;
      auto observe = [&](int32_t, std::vector<std::vector<RocksPair>>& by_state) -> Status {
        for (auto& [index, v] : read) {
          if (!v->fields || index >= by_state.size()) continue;
          for (const RocksPair& p : by_state[index]) {
            Status s = v->fields->observe(p.value, v->types);
            if (!s.ok()) {
              // Where the value lies (file and offset), as the rewrite's own read would say.
              v->reason = (p.origin ? p.origin->locate(p, Error(s.error())) : Error(s.error())).to_string();
              v->fields.reset();
              break;
            }
          }
        }
        return Status::OK();
      };
      // A handle whose values cannot be read leaves its states as they are (the copy reports
      // the damage when it reads them too).
      Status values = read_raw_keyed(st.managed_keyed, raw, streams, op.max_parallelism, observe);
      if (!values.ok())
        for (auto& [index, v] : read) {
          v->reason = "its values could not be read: " + values.error().to_string();
          v->fields.reset();
        }
    }
  }
  for (auto& [key, v] : scan) {
    if (!v.fields) continue;
    Result<StateMetaInfo> info = v.fields->rewrite(v.types);
    if (info.ok()) {
      v.rewritten = std::move(info).value();
    } else {
      v.reason = info.error().message;
    }
  }
  return scan;
}

}  // namespace ckpt
