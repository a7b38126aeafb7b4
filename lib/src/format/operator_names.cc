// Operator names from uids and from Flink's compiled SQL plan (ckpt/names.h).
#include <algorithm>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "ckpt/names.h"
#include "format/flink_duration.h"
#include "format/plan_keys.h"
#include "support/json_input.h"

namespace ckpt {
namespace {

// Flink's default `table.exec.uid.format` (ExecutionConfigOptions.TABLE_EXEC_UID_FORMAT).
constexpr std::string_view kDefaultUidFormat = "<id>_<transformation>";
constexpr std::string_view kUidFormatOption = "table.exec.uid.format";
// A compiled plan is a few hundred KiB at most; this bounds what is read into memory.
constexpr uint64_t kMaxPlanBytes = uint64_t{64} << 20;

// Apache Commons' StringUtils.replaceEach as ExecNodeContext.generateUid uses it: one pass over
// `pattern`, each placeholder replaced where it starts, replacements never rescanned.
std::string replace_each(std::string_view pattern, const std::vector<std::pair<std::string_view, std::string>>& subs) {
  std::string out;
  for (size_t i = 0; i < pattern.size();) {
    bool replaced = false;
    for (const auto& [search, replacement] : subs) {
      if (pattern.substr(i, search.size()) == search) {
        out += replacement;
        i += search.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += pattern[i++];
  }
  return out;
}

Error plan_error(const std::string& file, std::string message) {
  Error e(ErrorCode::kCorruption, "not a compiled plan: " + std::move(message));
  e.file = file;
  return e;
}

std::string string_member(const nlohmann::json& object, std::string_view key) {
  const nlohmann::json* v = json_member(object, key);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

}  // namespace

const std::vector<std::string>& sql_transformation_names() {
  // Every name the planner's ExecNodes (flink-table-planner, org.apache.flink.table.planner.plan.
  // nodes.exec.{common,stream}) give createTransformationMeta / createTransformationUid, Flink
  // 1.15 to 2.x, by class: formats/metadata.md §5.1 lists them with their constants.
  static const std::vector<std::string> names = {
      // CommonExecTableSourceScan (and its partitioner), CommonExecValues
      "source", "values",
      // CommonExecSink
      "sink", "constraint-validator", "partitioner", "upsert-materialize", "timestamp-inserter", "row-kind-setter",
      // CommonExecCalc, CommonExecAsyncCalc, CommonExecPythonCalc, CommonExecPythonAsyncCalc
      "calc", "async-calc", "python-calc", "python-async-calc",
      // CommonExecCorrelate, CommonExecAsyncCorrelate, CommonExecPythonCorrelate, CommonExecExpand
      "correlate", "async-correlate", "python-correlate", "expand",
      // CommonExecLookupJoin, CommonExecMatch, CommonExecWindowTableFunction
      "lookup-join", "lookup-join-materialize", "match", "window",
      // StreamExecChangelogNormalize, StreamExecDropUpdateBefore, StreamExecDeduplicate, StreamExecWindowDeduplicate
      "changelog-normalize", "drop-update-before", "deduplicate", "window-deduplicate",
      // StreamExecGroupAggregate and its local / global / incremental / bundled / Python / table forms
      "group-aggregate", "local-group-aggregate", "global-group-aggregate", "incremental-group-aggregate",
      "bundled-group-aggregate", "python-group-aggregate", "group-table-aggregate",
      // StreamExecGroupWindowAggregate, StreamExecOverAggregate, StreamExecPythonOverAggregate
      "group-window-aggregate", "over-aggregate", "python-over-aggregate",
      // StreamExecWindowAggregate, StreamExecLocalWindowAggregate, StreamExecGlobalWindowAggregate
      "window-aggregate", "local-window-aggregate", "global-window-aggregate",
      // StreamExecJoin, StreamExecWindowJoin, StreamExecTemporalJoin, StreamExecIntervalJoin (five)
      "join", "window-join", "temporal-join", "interval-join", "filter-left", "filter-right", "pad-left", "pad-right",
      // StreamExecDeltaJoin, StreamExecMultiJoin, StreamExecLateralSnapshotJoin
      "delta-join", "multi-join", "lateral-snapshot-join",
      // StreamExecRank, StreamExecWindowRank, StreamExecSort, StreamExecSortLimit, StreamExecTemporalSort,
      // StreamExecLimit
      "rank", "window-rank", "sort", "sort-limit", "temporal-sort", "limit",
      // StreamExecWatermarkAssigner, StreamExecMiniBatchAssigner
      "watermark-assigner", "mini-batch-assigner",
      // StreamExecProcessTableFunction (without a uid of its own in the plan)
      "process",
      // CommonExecMLPredictTableFunction, StreamExecMlPredict, CommonExecVectorSearchTableFunction
      "ml-predict-table-function", "ml-predict", "vector-search-table-function"};
  return names;
}

// A node's "state" array as StateMetadata checks it: one entry per input, indices 0..n-1 each
// once, a TTL that TimeUtils parses.
static Status read_state_ttls(const nlohmann::json& node, int32_t id, const std::string& file, std::vector<int64_t>* out) {
  const nlohmann::json* states = json_member(node, "state");
  if (!states) return Status::OK();
  auto bad = [&](const std::string& why) { return plan_error(file, fmt::format("node {}: \"state\": {}", id, why)); };
  if (!states->is_array() || states->size() > 64) return bad("not an array of at most 64 entries");
  out->assign(states->size(), -1);
  for (const nlohmann::json& s : *states) {
    const nlohmann::json* index = json_member(s, "index");
    const nlohmann::json* ttl = json_member(s, "ttl");
    if (!index || !index->is_number_integer() || !ttl || !ttl->is_string())
      return bad("an entry without an integer \"index\" and a string \"ttl\"");
    int64_t i = index->get<int64_t>();
    if (i < 0 || i >= static_cast<int64_t>(out->size()) || (*out)[static_cast<size_t>(i)] != -1)
      return bad(fmt::format("index {} out of order (each of 0 to {} once)", i, out->size() - 1));
    Result<int64_t> ms = parse_flink_duration_ms(ttl->get<std::string>());
    if (!ms.ok()) return bad(std::move(ms).error().message);
    (*out)[static_cast<size_t>(i)] = *ms;
  }
  return Status::OK();
}

Status OperatorNames::add_plan(std::string_view json_text, const std::string& file) {
  Result<nlohmann::json> plan = parse_json_input(json_text);
  if (!plan.ok()) {
    Error e = std::move(plan).error();
    e.file = file;
    return e;
  }
  const nlohmann::json* nodes = json_member(*plan, "nodes");
  if (!nodes || !nodes->is_array()) return plan_error(file, "no \"nodes\" array");
  std::map<int32_t, std::vector<std::string>> keys = plan_key_columns(*plan);
  for (const nlohmann::json& node : *nodes) {
    const nlohmann::json* id = json_member(node, "id");
    if (!id || !id->is_number_integer()) return plan_error(file, "a node without an integer \"id\"");
    OperatorName name;
    name.plan_node = id->get<int32_t>();
    name.node_type = string_member(node, "type");
    name.description = string_member(node, "description");
    if (auto k = keys.find(name.plan_node); k != keys.end()) name.key_columns = k->second;
    CKPT_RETURN_IF_ERROR(read_state_ttls(node, name.plan_node, file, &name.state_ttls_ms));
    // "stream-exec-sink_1": ExecNodeContext's name and version.
    size_t cut = name.node_type.rfind('_');
    std::string type = cut == std::string::npos ? name.node_type : name.node_type.substr(0, cut);
    std::string version = cut == std::string::npos ? "" : name.node_type.substr(cut + 1);
    std::string format(kDefaultUidFormat);
    if (const nlohmann::json* config = json_member(node, "configuration")) {
      std::string own = string_member(*config, kUidFormatOption);
      if (!own.empty()) format = own;
    }
    for (const std::string& transformation : sql_transformation_names()) {
      name.uid = replace_each(format, {{"<id>", std::to_string(name.plan_node)},
                                       {"<type>", type},
                                       {"<version>", version},
                                       {"<transformation>", transformation}});
      by_id_[operator_id_of_uid(name.uid)] = name;
    }
    // A process table function given a uid in SQL keeps it in its node ("uid"): StreamExecProcess-
    // TableFunction uses it as it is, instead of the format's.
    const std::string own_uid = string_member(node, "uid");
    if (!own_uid.empty()) {
      name.uid = own_uid;
      by_id_[operator_id_of_uid(name.uid)] = name;
    }
  }
  return Status::OK();
}

Status OperatorNames::add_plan_file(const std::string& path) {
  Result<std::string> text = read_whole_file(path, kMaxPlanBytes);
  if (!text.ok()) return std::move(text).error();
  return add_plan(*text, path);
}

void OperatorNames::add_uid(const std::string& uid) {
  given_uids_.push_back(uid);
  OperatorName name;
  name.uid = uid;
  by_id_.emplace(operator_id_of_uid(uid), std::move(name));  // a plan's name, with its description, wins
}

Status OperatorNames::add_uids_file(const std::string& path) {
  Result<std::string> text = read_whole_file(path, kMaxPlanBytes);
  if (!text.ok()) return std::move(text).error();
  std::string_view rest = *text;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) add_uid(std::string(line));
  }
  return Status::OK();
}

const OperatorName* OperatorNames::find(const OperatorId& id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &it->second;
}

std::vector<std::string> OperatorNames::unmatched(const std::vector<OperatorId>& present) const {
  std::vector<std::string> out;
  for (const std::string& uid : given_uids_)
    if (std::find(present.begin(), present.end(), operator_id_of_uid(uid)) == present.end()) out.push_back(uid);
  return out;
}

std::vector<std::string> OperatorNames::unmatched(const Metadata& m) const {
  std::vector<OperatorId> present;
  for (const OperatorState& op : m.operators) present.push_back(op.id);
  return unmatched(present);
}

std::string OperatorNames::uid_of(const OperatorState& op) const {
  if (const OperatorName* n = find(op.id)) return n->uid;
  return op.uid;
}

std::string OperatorNames::description_of(const OperatorState& op) const {
  const OperatorName* n = find(op.id);
  return n ? n->description : std::string();
}

void append_named_operators(const Metadata& m, const OperatorNames& names, std::vector<NamedOperator>* out) {
  for (const OperatorState& op : m.operators) {
    NamedOperator n{operator_id_hex(op.id), names.uid_of(op), names.description_of(op)};
    if (n.uid.empty()) continue;
    auto same = [&](const NamedOperator& o) { return o.operator_id == n.operator_id; };
    if (std::none_of(out->begin(), out->end(), same)) out->push_back(std::move(n));
  }
}

}  // namespace ckpt
