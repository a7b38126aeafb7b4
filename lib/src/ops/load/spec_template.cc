// The template of a bootstrap, from its spec (formats/load-spec.md).
#include "ops/load/spec_template.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "ckpt/metadata.h"
#include "format/java/java_serialization.h"
#include "format/key_groups.h"
#include "ops/rewrite/keyed_target.h"
#include "ops/load/spec_types.h"
#include "state/backend_meta.h"
#include "support/json_input.h"
#include "support/json_text.h"
#include "types/snapshot_bytes.h"

namespace ckpt {
namespace {

constexpr const char* kVoidNamespace =
    "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot";

class SpecReader {
 public:
  explicit SpecReader(std::string name) : name_(std::move(name)) {}

  Error fail(const std::string& where, const std::string& expected) const {
    return Error(ErrorCode::kInvalidArgument, fmt::format("{}: {}: expected {}", name_, where, expected));
  }
  Result<const nlohmann::json*> member(const nlohmann::json& o, const std::string& where, const char* key,
                                       bool required) const {
    const nlohmann::json* m = json_member(o, key);
    if (!m && required) return fail(where + "." + key, "a value (missing)");
    return m;
  }
  Result<std::string> text(const nlohmann::json& o, const std::string& where, const char* key) const {
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* m, member(o, where, key, true));
    if (!m->is_string() || m->get<std::string>().empty())
      return fail(where + "." + key, fmt::format("a non-empty string, got {}", json_text(*m)));
    return m->get<std::string>();
  }
  Result<int32_t> count(const nlohmann::json& o, const std::string& where, const char* key, int32_t fallback,
                        int32_t most) const {
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* m, member(o, where, key, false));
    if (!m) return fallback;
    if (!m->is_number_integer() || m->get<int64_t>() < 1 || m->get<int64_t>() > most)
      return fail(where + "." + key, fmt::format("an integer from 1 to {}, got {}", most, json_text(*m)));
    return m->get<int32_t>();
  }
  Result<SerializerSnapshot> type(const nlohmann::json& o, const std::string& where, const char* key) const {
    CKPT_ASSIGN_OR_RETURN(std::string t, text(o, where, key));
    auto s = spec_type_snapshot(t);
    if (!s.ok()) {
      Error e = std::move(s).error();
      e.message = fmt::format("{}: {}.{}: {}", name_, where, key, e.message);
      return e;
    }
    return s;
  }

 private:
  std::string name_;
};

struct SpecKind {
  const char* name;
  const char* option;       // KEYED_STATE_TYPE
  const char* type_prefix;  // what the state's type must be: a list state's LIST<T>, a map state's MAP<K, V>
};
constexpr SpecKind kSpecKinds[] = {
    {"value", "VALUE", ""},
    {"list", "LIST", "org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot"},
    {"map", "MAP", "org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot"},
    {"reducing", "REDUCING", ""},
    {"aggregating", "AGGREGATING", ""}};

Result<StateMetaInfo> spec_state(const SpecReader& spec, const nlohmann::json& s, const std::string& where) {
  if (!s.is_object()) return spec.fail(where, "an object with name, kind and type");
  StateMetaInfo info;
  CKPT_ASSIGN_OR_RETURN(info.name, spec.text(s, where, "name"));
  CKPT_ASSIGN_OR_RETURN(std::string kind, spec.text(s, where, "kind"));
  const SpecKind* k = nullptr;
  for (const SpecKind& c : kSpecKinds)
    if (kind == c.name) k = &c;
  if (!k) return spec.fail(where + ".kind", fmt::format("value, list, map, reducing or aggregating, got \"{}\"", kind));
  CKPT_ASSIGN_OR_RETURN(SerializerSnapshot value, spec.type(s, where, "type"));
  if (*k->type_prefix && value.snapshot_class != k->type_prefix)
    return spec.fail(where + ".type", fmt::format("{} for a {} state", kind == "list" ? "LIST<T>" : "MAP<K, V>", kind));
  for (const auto& [member, unused] : s.items()) {
    (void)unused;
    if (member != "name" && member != "kind" && member != "type")
      return spec.fail(where + "." + member, "no other members than name, kind and type");
  }
  info.backend_type = static_cast<int32_t>(BackendStateType::kKeyValue);
  info.options.emplace_back(meta_key::kKeyedStateType, k->option);
  info.serializers.emplace_back(meta_key::kValueSerializer, std::move(value));
  ByteWriter ns;
  write_simple_snapshot(ns, kVoidNamespace);
  ByteReader r(ns.buffer());
  CKPT_ASSIGN_OR_RETURN(SerializerSnapshot nss, read_serializer_snapshot(r, SnapshotFraming::kVersioned));
  info.serializers.emplace_back(meta_key::kNamespaceSerializer, std::move(nss));
  return info;
}

}  // namespace

Status write_spec_template(const std::string& spec_text, const std::string& spec_name, const std::string& dir,
                           ConvertTarget layout) {
  SpecReader spec(spec_name);
  auto parsed = parse_json_input(spec_text);
  if (!parsed.ok()) return spec.fail("the spec", fmt::format("a JSON object: {}", parsed.error().message));
  const nlohmann::json& root = *parsed;
  if (!root.is_object()) return spec.fail("the spec", "a JSON object with \"operators\"");
  CKPT_ASSIGN_OR_RETURN(const nlohmann::json* ops, spec.member(root, "spec", "operators", true));
  if (!ops->is_array() || ops->empty()) return spec.fail("operators", "a non-empty array of operators");
  Metadata m;
  m.version = 4;
  m.checkpoint_id = 1;
  std::set<std::string> ids;
  for (size_t o = 0; o < ops->size(); ++o) {
    const nlohmann::json& op = (*ops)[o];
    const std::string where = fmt::format("operators[{}]", o);
    if (!op.is_object()) return spec.fail(where, "an object");
    OperatorState os;
    const nlohmann::json* uid = json_member(op, "uid");
    const nlohmann::json* id = json_member(op, "id");
    if ((uid != nullptr) == (id != nullptr))
      return spec.fail(where, "either uid (Flink hashes it to the operator id) or id");
    if (uid) {
      CKPT_ASSIGN_OR_RETURN(std::string u, spec.text(op, where, "uid"));
      os.id = operator_id_of_uid(u);
    } else if (!id->is_string() || !parse_operator_id(id->get<std::string>(), &os.id)) {
      return spec.fail(where + ".id", fmt::format("32 hex digits, got {}", json_text(*id)));
    }
    const std::string hex = operator_id_hex(os.id);
    if (!ids.insert(hex).second) return spec.fail(where, fmt::format("an operator not given before (id {})", hex));
    CKPT_ASSIGN_OR_RETURN(os.parallelism, spec.count(op, where, "parallelism", 1, 32768));
    CKPT_ASSIGN_OR_RETURN(os.max_parallelism,
                          spec.count(op, where, "max_parallelism", default_max_parallelism(os.parallelism), 32768));
    if (os.max_parallelism < os.parallelism)
      return spec.fail(where + ".max_parallelism", fmt::format("at least the parallelism, {}", os.parallelism));
    KeyedBackendMeta meta;
    CKPT_ASSIGN_OR_RETURN(meta.key_serializer, spec.type(op, where, "key"));
    CKPT_ASSIGN_OR_RETURN(const nlohmann::json* states, spec.member(op, where, "states", true));
    if (!states->is_array() || states->empty()) return spec.fail(where + ".states", "a non-empty array of states");
    for (size_t s = 0; s < states->size(); ++s) {
      CKPT_ASSIGN_OR_RETURN(StateMetaInfo info, spec_state(spec, (*states)[s], fmt::format("{}.states[{}]", where, s)));
      if (meta.find(info.name))
        return spec.fail(fmt::format("{}.states[{}].name", where, s),
                         fmt::format("a state not named before, got \"{}\"", info.name));
      meta.states.push_back(std::move(info));
    }
    for (const auto& [member, unused] : op.items()) {
      (void)unused;
      static const std::set<std::string> kKnown = {"uid", "id", "parallelism", "max_parallelism", "key", "states"};
      if (!kKnown.count(member))
        return spec.fail(where + "." + member,
                         "no other members than uid or id, parallelism, max_parallelism, key and states");
    }
    for (int32_t sub = 0; sub < os.parallelism; ++sub) {
      KeyedTarget t;
      t.to = layout;
      t.out_dir = dir;
      t.op_hex = hex;
      t.subtask = sub;
      t.max_parallelism = os.max_parallelism;
      t.checkpoint_id = 1;
      t.range = key_group_range_of_subtask(os.max_parallelism, os.parallelism, sub);
      SubtaskState st;
      st.index = sub;
      KeyedTargetStats stats;
      CKPT_ASSIGN_OR_RETURN(st.managed_keyed,
                            write_keyed_target(
                                t, meta, [](const KeyGroupPairsFn&) { return Status::OK(); }, &stats));
      os.subtasks.push_back(std::move(st));
    }
    m.operators.push_back(std::move(os));
  }
  m.properties = savepoint_properties(layout == ConvertTarget::kCanonical);
  m.properties_raw = encode_checkpoint_properties(m.properties);
  CKPT_ASSIGN_OR_RETURN(std::string bytes, encode_metadata(m));
  return write_file_atomic(dir + "/_metadata", bytes);
}

}  // namespace ckpt
