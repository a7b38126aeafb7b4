// upgrade_snapshot(): the legacy-config rule's states rewritten into the serializer snapshot
// forms Flink 1.8+ (and so 2.x) reads, as an edit of the snapshot rewrite (ops/rewrite/snapshot_rewrite.h).
//
// Flink 1.2-1.7 stored a TypeSerializerConfigSnapshot beside the Java-serialized serializer
// itself; Flink 1.17+ reads neither (FLINK-29807). The serializer object says everything its
// modern snapshot holds (types/legacy_serializers.h gives it as that snapshot's model), so the
// proxy is written again in its current version with those snapshots, written here in the bytes
// of each class's writeSnapshot. The state bytes were written by the same serializers and stay
// as they are.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "ckpt/upgrade.h"
#include "ops/rewrite/snapshot_rewrite.h"
#include "ops/upgrade/collection_fields.h"
#include "ops/upgrade/upgrade_rules.h"
#include "state/backend_meta.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "types/legacy_serializers.h"
#include "types/snapshot_bytes.h"

namespace ckpt {
namespace {

constexpr int32_t kModernKeyedProxy = 6;     // KeyedBackendSerializationProxy.VERSION (1.8+)
constexpr int32_t kModernOperatorProxy = 6;  // OperatorBackendSerializationProxy.VERSION (1.17+)

// The outer snapshot of a CompositeTypeSerializerSnapshot subclass this writer knows: its
// getCurrentOuterSnapshotVersion() and whether writeOuterSnapshot writes the class name.
struct OuterForm {
  std::string_view suffix;
  int32_t outer_version;
  bool class_name;
};
constexpr OuterForm kOuterForms[] = {
    {".TupleSerializerSnapshot", 2, true},         // TupleSerializerSnapshot.VERSION, tupleClass
    {".GenericArraySerializerSnapshot", 1, true},  // componentClass
    {".ListSerializerSnapshot", 1, false},        {".ArrayListSerializerSnapshot", 1, false},
    {".MapSerializerSnapshot", 1, false},         {".JavaEitherSerializerSnapshot", 1, false},
};

// TypeSerializerSnapshot.writeVersionedSnapshot of the model `s`: class, version, body.
Status write_modern(const SerializerSnapshot& s, ByteWriter& w, int depth) {
  if (depth > 64) return Error(ErrorCode::kNotSupported, "serializer nesting too deep to rewrite");
  if (s.form == SnapshotForm::kSimple) {
    write_simple_snapshot(w, s.snapshot_class.c_str());  // SimpleTypeSerializerSnapshot v3: no body
    return Status::OK();
  }
  if (s.form == SnapshotForm::kComposite) {
    for (const OuterForm& f : kOuterForms) {
      if (!s.snapshot_class.ends_with(f.suffix)) continue;
      if (f.class_name && s.type_class.empty())
        return Error(ErrorCode::kNotSupported, fmt::format("{} without its class", s.snapshot_class));
      ByteWriter outer;
      if (f.class_name) outer.utf(s.type_class);
      w.utf(s.snapshot_class);
      w.i32(3);  // CompositeTypeSerializerSnapshot's own version
      w.i32(911108);
      w.i32(f.outer_version);
      w.bytes(outer.buffer());
      w.i32(1333245);  // NestedSerializersSnapshotDelegate: magic, version, count, snapshots
      w.i32(1);
      w.i32(static_cast<int32_t>(s.nested.size()));
      for (const SerializerSnapshot& n : s.nested) CKPT_RETURN_IF_ERROR(write_modern(n, w, depth + 1));
      return Status::OK();
    }
  }
  return Error(ErrorCode::kNotSupported,
               fmt::format("no Flink 1.8+ snapshot of {} is written yet",
                           s.serializer_class.empty() ? s.snapshot_class : s.serializer_class));
}

// The snapshot Flink 2.x reads in place of `s`, or why there is none. A snapshot already in a
// current form is kept as it is (its own rules are the check's business).
Result<SerializerSnapshot> modern_form(const SerializerSnapshot& s) {
  if (s.form != SnapshotForm::kLegacyConfig) return s;
  std::optional<SerializerSnapshot> model = legacy_equivalent(s);
  if (!model)
    return Error(ErrorCode::kNotSupported,
                 fmt::format("its Java-serialized serializer {} is not one ckpt reads", s.serializer_class));
  ByteWriter w;
  CKPT_RETURN_IF_ERROR(write_modern(*model, w, 0));
  // Read back as any snapshot is, so what is written is what the readers (and the check) see.
  ByteReader r(w.buffer());
  SnapshotReadOptions strict;
  strict.resync_unknown = false;
  CKPT_ASSIGN_OR_RETURN(SerializerSnapshot modern, read_serializer_snapshot(r, SnapshotFraming::kVersioned, strict));
  std::vector<UpgradeFinding> findings;
  judge_serializer(modern, "", findings);
  if (!findings.empty()) return Error(ErrorCode::kNotSupported, findings.front().reason);
  return modern;
}

bool has_legacy_config(const std::vector<StateMetaInfo>& states) {
  for (const StateMetaInfo& s : states)
    for (const auto& [role, snap] : s.serializers)
      if (snap.form == SnapshotForm::kLegacyConfig) return true;
  return false;
}

// Every serializer of `m` in its modern form, in place; the reason of the first that has none.
std::optional<std::string> modernize(StateMetaInfo& m) {
  for (auto& [role, snap] : m.serializers) {
    Result<SerializerSnapshot> modern = modern_form(snap);
    if (!modern.ok()) return fmt::format("{}: {}", role, modern.error().message);
    snap = std::move(modern).value();
  }
  return std::nullopt;
}

// The values of the states whose Kryo collection fields are re-encoded (collection_fields.h),
// pair by pair; every other pair is left as it is.
class FieldsEdit : public KeyedEdit {
 public:
  // (index of the state in the input proxy, its fields)
  explicit FieldsEdit(std::vector<std::pair<size_t, const CollectionFields*>> states) : states_(std::move(states)) {}

  Status key_group(int32_t, std::vector<std::vector<RocksPair>>& by_state) override {
    for (const auto& [index, fields] : states_) {
      if (index >= by_state.size()) continue;
      for (RocksPair& p : by_state[index]) {
        Status s = fields->transcode(p.value, scratch_);
        if (!s.ok()) return p.origin ? Status(p.origin->locate(p, Error(s.error()))) : s;
        p.value.swap(scratch_);
      }
    }
    return Status::OK();
  }

 private:
  std::vector<std::pair<size_t, const CollectionFields*>> states_;
  std::string scratch_;
};

// The rewrite's one edit: every proxy's serializer snapshots in the forms Flink 2.x reads, and
// the values of POJO collection fields in the bytes Flink 2.x reads; other values are left as
// they are.
class Rewriter : public SnapshotEdit {
 public:
  explicit Rewriter(const UpgradeWriteOptions& o) : drop_(o.drop_incompatible) {}

  // The states with Kryo collection fields, read whole before anything is written: one type per
  // field must hold for every subtask's values.
  Status prepare(const Metadata& in, const StreamOpener& streams) override {
    CKPT_ASSIGN_OR_RETURN(fields_, scan_collection_fields(in, streams));
    return Status::OK();
  }

  Result<std::unique_ptr<KeyedEdit>> keyed(const OperatorState& op, int32_t, KeyedBackendMeta& meta) override {
    std::vector<std::string> input_names;
    for (const StateMetaInfo& s : meta.states) input_names.push_back(s.name);
    CKPT_RETURN_IF_ERROR(rewrite_proxy(op, meta));
    return rewrite_fields(op, meta, input_names);
  }
  Status operator_state(const OperatorState& op, int32_t, OperatorHandle& h, std::string& bytes) override {
    return rewrite_operator_proxy(op, h, bytes);
  }

  UpgradeWriteReport report() {
    std::lock_guard<std::mutex> lock(mu_);
    UpgradeWriteReport r;
    r.states = actions_;
    for (const UpgradeStateAction& a : actions_) {
      if (a.action == "rewritten")
        ++r.rewritten;
      else if (a.action == "dropped")
        ++r.dropped;
      else
        ++r.left;
    }
    return r;
  }

 private:
  Status rewrite_proxy(const OperatorState& op, KeyedBackendMeta& meta) {
    const bool legacy = meta.version != kModernKeyedProxy;
    if (!legacy && meta.key_serializer.form != SnapshotForm::kLegacyConfig && !has_legacy_config(meta.states))
      return Status::OK();
    Result<SerializerSnapshot> key = modern_form(meta.key_serializer);
    if (!key.ok()) {
      for (const StateMetaInfo& s : meta.states)
        note(op, s.name, true, "left", fmt::format("the key serializer: {}", key.error().message));
      return Status::OK();
    }
    std::vector<StateMetaInfo> states = meta.states;
    if (!rewrite_states(op, states, true)) return Status::OK();
    meta.key_serializer = std::move(key).value();
    meta.states = std::move(states);
    meta.version = kModernKeyedProxy;
    meta.legacy_bytes.clear();
    meta.compression = false;  // the writer re-frames key groups uncompressed
    meta.compression_byte = 0;
    return Status::OK();
  }

  // The states of `meta` with Kryo collection fields given their Flink 2.x serializers, and the
  // edit that re-encodes their values; those that cannot be are left (or dropped).
  Result<std::unique_ptr<KeyedEdit>> rewrite_fields(const OperatorState& op, KeyedBackendMeta& meta,
                                                    const std::vector<std::string>& input_names) {
    if (fields_.empty()) return std::unique_ptr<KeyedEdit>();
    const std::string id = operator_id_hex(op.id);
    const bool modern = meta.version == kModernKeyedProxy && meta.legacy_bytes.empty();
    std::vector<std::pair<size_t, const CollectionFields*>> edits;
    std::vector<StateMetaInfo> kept;
    for (StateMetaInfo& s : meta.states) {
      auto it = fields_.find({id, s.name});
      if (it == fields_.end()) {
        kept.push_back(std::move(s));
        continue;
      }
      const CollectionFieldsVerdict& v = it->second;
      const SerializerSnapshot* value = s.value_serializer();
      std::string why = !modern        ? "the backend's proxy stays in its pre-1.8 form, which names Kryo fields only"
                        : !v.rewritten ? v.reason
                        : (!value || value->raw != v.value_raw)
                            ? "this subtask's proxy describes the value serializer differently"
                            : "";
      if (!why.empty()) {
        note(op, s.name, true, drop_ && modern ? "dropped" : "left", why);
        if (!(drop_ && modern)) kept.push_back(std::move(s));
        continue;
      }
      const size_t index =
          static_cast<size_t>(std::find(input_names.begin(), input_names.end(), s.name) - input_names.begin());
      edits.emplace_back(index, v.fields.get());
      note(op, s.name, true, "rewritten", "");
      StateMetaInfo out = *v.rewritten;
      kept.push_back(std::move(out));
    }
    meta.states = std::move(kept);
    if (edits.empty()) return std::unique_ptr<KeyedEdit>();
    return std::unique_ptr<KeyedEdit>(std::make_unique<FieldsEdit>(std::move(edits)));
  }

  Status rewrite_operator_proxy(const OperatorState& op, OperatorHandle& h, std::string& bytes) {
    ByteReader r(bytes);
    CKPT_ASSIGN_OR_RETURN(OperatorBackendMeta meta, read_operator_backend_meta(r));
    const size_t proxy_end = r.position();
    // Operator state keeps its Kryo collection fields (and the check's pojo-collection finding):
    // said here so that the output's report lists them.
    for (const auto* states : {&meta.list_states, &meta.broadcast_states})
      for (const StateMetaInfo& s : *states)
        for (const auto& [role, snap] : s.serializers)
          if (has_collection_field(snap)) {
            note(op, s.name, false, "left",
                 "a POJO collection field in operator state: the rewrite re-encodes keyed state only");
            break;
          }
    if (meta.version >= 5 && !has_legacy_config(meta.list_states) && !has_legacy_config(meta.broadcast_states))
      return Status::OK();
    std::vector<StateMetaInfo> all = meta.list_states;
    all.insert(all.end(), meta.broadcast_states.begin(), meta.broadcast_states.end());
    if (!rewrite_states(op, all, false)) return Status::OK();
    meta.broadcast_states.clear();
    for (StateMetaInfo& s : all)
      if (s.backend_type == static_cast<int32_t>(BackendStateType::kBroadcast)) meta.broadcast_states.push_back(s);
    meta.list_states.clear();
    for (StateMetaInfo& s : all)
      if (s.backend_type != static_cast<int32_t>(BackendStateType::kBroadcast)) meta.list_states.push_back(s);
    meta.version = kModernOperatorProxy;
    meta.compression = false;
    meta.legacy_bytes.clear();
    CKPT_ASSIGN_OR_RETURN(std::string proxy, write_operator_backend_meta(meta));
    // The states' offsets count from the stream's start: they move with the proxy's length.
    const int64_t delta = static_cast<int64_t>(proxy.size()) - static_cast<int64_t>(proxy_end);
    std::set<std::string> kept;
    for (const StateMetaInfo& s : all) kept.insert(s.name);
    std::erase_if(h.states, [&](const OperatorStateEntry& e) { return !kept.count(e.name); });
    for (OperatorStateEntry& e : h.states)
      for (int64_t& o : e.offsets) o += delta;
    bytes = proxy + bytes.substr(proxy_end);
    return Status::OK();
  }

  // Rewrites `states` in place; false if the backend must be copied unchanged. With --drop-
  // incompatible the states without a modern form are removed instead.
  bool rewrite_states(const OperatorState& op, std::vector<StateMetaInfo>& states, bool keyed) {
    std::vector<std::string> why(states.size());
    bool all = true;
    for (size_t i = 0; i < states.size(); ++i)
      if (auto reason = modernize(states[i])) {
        why[i] = *reason;
        all = false;
      }
    if (!all && !drop_) {
      for (size_t i = 0; i < states.size(); ++i)
        note(op, states[i].name, keyed, "left",
             why[i].empty() ? "another state of its backend has no Flink 2.x form" : why[i]);
      return false;
    }
    std::vector<StateMetaInfo> kept;
    for (size_t i = 0; i < states.size(); ++i) {
      note(op, states[i].name, keyed, why[i].empty() ? "rewritten" : "dropped", why[i]);
      if (why[i].empty()) kept.push_back(std::move(states[i]));
    }
    states = std::move(kept);
    return true;
  }

  void note(const OperatorState& op, const std::string& state, bool keyed, const char* action,
            const std::string& reason) {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string id = operator_id_hex(op.id);
    if (!seen_.insert({id, state, action}).second) return;
    actions_.push_back({id, state, keyed, action, reason});
  }

  bool drop_;
  CollectionFieldsScan fields_;  // prepare()'s, read only after
  std::mutex mu_;
  std::set<std::tuple<std::string, std::string, std::string>> seen_;
  std::vector<UpgradeStateAction> actions_;
};

}  // namespace

Result<UpgradeWriteReport> upgrade_snapshot(const std::string& path, const UpgradeWriteOptions& options) {
  if (options.target != "2.x")
    return Error(ErrorCode::kInvalidArgument, fmt::format("unknown upgrade target '{}', expected 2.x", options.target));
  Rewriter rw(options);
  RewriteOptions r;
  r.output = options.output;
  r.force = options.force;
  r.remap = options.remap;
  r.key_serializers_from = options.key_serializers_from;
  CKPT_ASSIGN_OR_RETURN(ConvertSummary written, rewrite_snapshot(path, r, {&rw}));
  UpgradeWriteReport report = rw.report();
  report.written = std::move(written);
  return report;
}

std::string upgrade_write_text(const UpgradeWriteReport& r) {
  std::string out;
  for (const UpgradeStateAction& a : r.states) {
    out += fmt::format("{} {} {}: {}", a.action, a.operator_id, a.state, a.keyed ? "keyed" : "operator");
    if (!a.reason.empty()) out += fmt::format(" ({})", a.reason);
    out += '\n';
  }
  out += fmt::format("Flink 2.x: {} states rewritten, {} left unchanged, {} dropped; {} files written to {}\n",
                     r.rewritten, r.left, r.dropped, r.written.files, r.written.output);
  return out;
}

}  // namespace ckpt
