// check_upgrade(): every state's serializers, from the backend proxies, through the rules of
// upgrade_rules.h.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "ckpt/metadata.h"
#include "ckpt/upgrade.h"
#include "ops/upgrade/collection_fields.h"
#include "ops/upgrade/upgrade_rules.h"
#include "state/proxy_reader.h"

namespace ckpt {
namespace {

// "KEY_SERIALIZER" -> "key": the role as the findings name it.
std::string role_name(std::string_view role) {
  constexpr std::string_view kSuffix = "_SERIALIZER";
  if (role.size() > kSuffix.size() && role.substr(role.size() - kSuffix.size()) == kSuffix)
    role = role.substr(0, role.size() - kSuffix.size());
  std::string out(role);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

class OperatorJudge {
 public:
  OperatorJudge(const OperatorState& op, UpgradeCheckReport& r) : op_(op), r_(r), first_(r.states.size()) {}

  // One state as a proxy names it; `key` is the keyed backend's key serializer (nullptr for
  // operator states, whose broadcast key serializer is among their own).
  void add(const StateMetaInfo& info, const SerializerSnapshot* key) {
    // A change log's proxy names no key serializer: a materialized part of another subtask may.
    if (key && key->snapshot_class.empty()) key = nullptr;
    if (StateUpgradeCheck* seen = find(info.name)) {
      if (key && seen->keyed && seen->key_serializer.empty()) judge_key(*seen, *key);
      return;
    }
    const bool keyed = key != nullptr || is_keyed_kind(info.kind());
    StateUpgradeCheck& s = add_row(info.name, state_kind_name(info.kind()), keyed);
    if (key) judge_key(s, *key);
    for (const auto& [role, snapshot] : info.serializers) {
      std::string where = role_name(role);
      if (where == "key") s.key_serializer = serializer_signature(snapshot);
      if (where == "value") s.serializer = serializer_signature(snapshot);
      judge_serializer(snapshot, where, s.findings);
    }
  }

  // A whole-state finding for states no proxy describes.
  void add_opaque(const std::string& name, const char* kind, bool keyed, UpgradeFinding f) {
    if (find(name)) return;
    add_row(name, kind, keyed).findings.push_back(std::move(f));
  }

  // Keyed states no proxy gave a key serializer (change logs without a materialized part).
  void finish() {
    for (size_t i = first_; i < r_.states.size(); ++i) {
      StateUpgradeCheck& s = r_.states[i];
      if (s.keyed && s.key_serializer.empty() && s.kind != "RAW_KEYED")
        s.findings.push_back(UpgradeFinding{UpgradeVerdict::kUnknown, "unknown-serializer", "", "key",
                                            "no proxy of this snapshot names the key serializer (a change log "
                                            "without a materialized part)"});
    }
  }

  void problem(const Error& e, int32_t subtask) {
    r_.problems.push_back(
        Error(e).with_context(fmt::format("operator {}, subtask {}", operator_id_hex(op_.id), subtask)).to_string());
  }

 private:
  static void judge_key(StateUpgradeCheck& s, const SerializerSnapshot& key) {
    s.key_serializer = serializer_signature(key);
    judge_serializer(key, "key", s.findings);
  }
  StateUpgradeCheck* find(const std::string& name) {
    for (size_t i = first_; i < r_.states.size(); ++i)
      if (r_.states[i].state == name) return &r_.states[i];
    return nullptr;
  }
  StateUpgradeCheck& add_row(const std::string& name, std::string kind, bool keyed) {
    StateUpgradeCheck s;
    s.operator_id = operator_id_hex(op_.id);
    s.uid = op_.uid;
    s.state = name;
    s.kind = std::move(kind);
    s.keyed = keyed;
    r_.states.push_back(std::move(s));
    return r_.states.back();
  }

  const OperatorState& op_;
  UpgradeCheckReport& r_;
  size_t first_;
};

void judge_operator(const OperatorState& op, ProxyReader& reader, UpgradeCheckReport& r) {
  OperatorJudge judge(op, r);
  for (const SubtaskState& st : op.subtasks) {
    for (const OperatorHandle& h : st.managed_operator) {
      if (h.is_null()) continue;
      Result<OperatorBackendMeta> meta = reader.operator_state(h);
      if (!meta.ok()) {
        judge.problem(meta.error(), st.index);
        continue;
      }
      for (const StateMetaInfo& info : meta->list_states) judge.add(info, nullptr);
      for (const StateMetaInfo& info : meta->broadcast_states) judge.add(info, nullptr);
    }
    Status status = reader.keyed(st.managed_keyed, [&](const KeyedBackendMeta& meta) {
      for (const StateMetaInfo& info : meta.states) judge.add(info, &meta.key_serializer);
    });
    if (!status.ok()) judge.problem(status.error(), st.index);
    if (st.raw_keyed.type != handle_type::kNull)
      judge.add_opaque("(raw keyed state)", "RAW_KEYED", true,
                       UpgradeFinding{UpgradeVerdict::kUnknown, "raw-keyed-state", "", "",
                                      "raw keyed state (timers that RocksDB backends with heap timers wrote up to "
                                      "Flink 1.12, or the job's own bytes) is not checked: no proxy names its "
                                      "serializers"});
    if (!st.legacy.empty())
      judge.add_opaque("(legacy operator state)", "LEGACY", false,
                       UpgradeFinding{UpgradeVerdict::kFail, "legacy-state", "", "",
                                      "Checkpointed operator state of Flink 1.2: Flink 1.17 and later restore no "
                                      "savepoint of Flink < 1.8"});
  }
  judge.finish();
}

// The pojo-collection findings of keyed states say whether `upgrade --output` rewrites them: that
// takes their values (the element types are in the bytes only), so only those states are read.
void judge_collection_fields(const Metadata& m, const StreamOpener& streams, UpgradeCheckReport& r) {
  bool any = false;
  for (const StateUpgradeCheck& s : r.states)
    for (const UpgradeFinding& f : s.findings) any = any || (s.keyed && f.rule == "pojo-collection");
  if (!any) return;
  Result<CollectionFieldsScan> scan = scan_collection_fields(m, streams);
  if (!scan.ok()) {
    r.problems.push_back(Error(scan.error()).with_context("reading the values of POJO collection fields").to_string());
    return;
  }
  for (StateUpgradeCheck& s : r.states) {
    auto it = scan->find({s.operator_id, s.state});
    if (it == scan->end()) continue;
    const CollectionFieldsVerdict& v = it->second;
    const std::string note = v.rewritten ? "; upgrade --output rewrites it: " + v.description()
                                         : "; upgrade --output cannot rewrite it: " + v.reason;
    for (UpgradeFinding& f : s.findings)
      if (f.rule == "pojo-collection") f.reason += note;
  }
}

}  // namespace

const char* upgrade_verdict_name(UpgradeVerdict v) {
  switch (v) {
    case UpgradeVerdict::kOk: return "ok";
    case UpgradeVerdict::kUnknown: return "unknown";
    case UpgradeVerdict::kFail: return "fail";
  }
  return "unknown";
}

Result<UpgradeCheckReport> check_upgrade(const std::string& path, const UpgradeOptions& options) {
  if (options.target != "2.x")
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("upgrade target '{}' is not supported (the one target is 2.x)", options.target));
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(path));
  CKPT_ASSIGN_OR_RETURN(Metadata m, read_metadata_file(where.metadata_path));
  UpgradeCheckReport r;
  r.snapshot = where.metadata_path;
  r.target = options.target;
  r.metadata_version = m.version;
  ProxyReader reader(where, options.remap);
  for (const OperatorState& op : m.operators) judge_operator(op, reader, r);
  judge_collection_fields(m, StreamOpener::for_snapshot(where, options.remap), r);
  for (StateUpgradeCheck& s : r.states) {
    std::stable_sort(s.findings.begin(), s.findings.end(),
                     [](const UpgradeFinding& a, const UpgradeFinding& b) { return a.verdict > b.verdict; });
    s.verdict = worst_verdict(s.findings);
    ++(s.verdict == UpgradeVerdict::kOk     ? r.ok_count
       : s.verdict == UpgradeVerdict::kFail ? r.fail_count
                                            : r.unknown_count);
  }
  return r;
}

}  // namespace ckpt
