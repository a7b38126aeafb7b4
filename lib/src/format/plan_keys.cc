// Key columns of a compiled plan's nodes, from their key specs and their inputs' row types.
#include "format/plan_keys.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

#include "support/json_input.h"

namespace ckpt {
namespace {

// The integers of a JSON array, or nothing if it holds anything else.
std::optional<std::vector<int64_t>> indexes(const nlohmann::json* a) {
  if (!a || !a->is_array()) return std::nullopt;
  std::vector<int64_t> out;
  for (const nlohmann::json& v : *a) {
    if (!v.is_number_integer()) return std::nullopt;
    out.push_back(v.get<int64_t>());
  }
  return out;
}

const nlohmann::json* member_path(const nlohmann::json& node, std::initializer_list<std::string_view> path) {
  const nlohmann::json* v = &node;
  for (std::string_view key : path) {
    v = json_member(*v, key);
    if (!v) return nullptr;
  }
  return v;
}

// Which input of the node its key columns index, and where the indexes are. The specs are
// those of the planner's ExecNodes (their @JsonProperty fields): StreamExecGroupAggregate,
// StreamExecGlobalGroupAggregate and the window aggregates ("grouping"), StreamExecRank
// ("partition"), StreamExecWindowRank ("partitionSpec"), StreamExecWindowDeduplicate
// ("partitionKeys"), StreamExecChangelogNormalize and StreamExecDeduplicate ("uniqueKeys"),
// StreamExecJoin, StreamExecTemporalJoin and StreamExecWindowJoin ("joinSpec": the left input's
// keys; the right input's key columns equal them by the join condition).
struct KeySpec {
  std::string_view node_type;  // without the "_<version>" suffix
  std::initializer_list<std::string_view> path;
};
const KeySpec kKeySpecs[] = {
    {"stream-exec-group-aggregate", {"grouping"}},
    {"stream-exec-global-group-aggregate", {"grouping"}},
    {"stream-exec-window-aggregate", {"grouping"}},
    {"stream-exec-global-window-aggregate", {"grouping"}},
    {"stream-exec-rank", {"partition", "fields"}},
    {"stream-exec-window-rank", {"partitionSpec", "fields"}},
    {"stream-exec-window-deduplicate", {"partitionKeys"}},
    {"stream-exec-changelog-normalize", {"uniqueKeys"}},
    {"stream-exec-deduplicate", {"uniqueKeys"}},
    {"stream-exec-join", {"joinSpec", "leftKeys"}},
    {"stream-exec-temporal-join", {"joinSpec", "leftKeys"}},
    {"stream-exec-window-join", {"joinSpec", "leftKeys"}},
};

// A backquoted name at `p` of a row type string; p is left after it.
std::optional<std::string> quoted_name(std::string_view s, size_t& p) {
  if (p >= s.size() || s[p] != '`') return std::nullopt;
  std::string name;
  for (++p; p < s.size(); ++p) {
    if (s[p] != '`') {
      name += s[p];
    } else if (p + 1 < s.size() && s[p + 1] == '`') {
      name += '`';
      ++p;
    } else {
      ++p;
      return name;
    }
  }
  return std::nullopt;
}

// "ROW<`a` INT, `b` ROW<`x` INT>, `c` VARCHAR(3) 'a comment'>": the top-level names.
std::vector<std::string> names_of_row_string(std::string_view s) {
  size_t p = 0;
  while (p < s.size() && s[p] == ' ') ++p;
  constexpr std::string_view kRow = "ROW<";
  if (s.substr(p, kRow.size()) != kRow) return {};
  p += kRow.size();
  std::vector<std::string> out;
  while (p < s.size()) {
    while (p < s.size() && s[p] == ' ') ++p;
    auto name = quoted_name(s, p);
    if (!name) return {};
    out.push_back(std::move(*name));
    // Skip the field's type (and comment) up to the ',' or '>' that ends it at depth 0.
    int depth = 0;
    for (; p < s.size(); ++p) {
      char c = s[p];
      if (c == '`') {
        if (!quoted_name(s, p)) return {};
        --p;
      } else if (c == '\'') {
        // A comment; '' is a quote inside it.
        for (++p; p < s.size(); ++p) {
          if (s[p] != '\'') continue;
          if (p + 1 < s.size() && s[p + 1] == '\'')
            ++p;
          else
            break;
        }
      } else if (c == '<' || c == '(') {
        ++depth;
      } else if ((c == '>' || c == ')') && depth > 0) {
        --depth;
      } else if (depth == 0 && (c == ',' || c == '>')) {
        break;
      }
    }
    if (p >= s.size()) return {};
    if (s[p++] == '>') return out;
  }
  return {};
}

}  // namespace

std::vector<std::string> plan_row_field_names(const nlohmann::json& type) {
  if (type.is_string()) return names_of_row_string(type.get_ref<const std::string&>());
  const nlohmann::json* fields = json_member(type, "fields");
  if (!fields || !fields->is_array()) return {};
  std::vector<std::string> out;
  for (const nlohmann::json& f : *fields) {
    const nlohmann::json* name = json_member(f, "name");
    if (!name || !name->is_string()) return {};
    out.push_back(name->get<std::string>());
  }
  return out;
}

std::map<int32_t, std::vector<std::string>> plan_key_columns(const nlohmann::json& plan) {
  std::map<int32_t, const nlohmann::json*> nodes;
  if (const nlohmann::json* all = json_member(plan, "nodes"); all && all->is_array())
    for (const nlohmann::json& n : *all)
      if (const nlohmann::json* id = json_member(n, "id"); id && id->is_number_integer())
        nodes[id->get<int32_t>()] = &n;
  // A node's inputs in the order of the plan's edges, which is the order of its input properties.
  std::map<int32_t, std::vector<int32_t>> inputs;
  if (const nlohmann::json* edges = json_member(plan, "edges"); edges && edges->is_array()) {
    for (const nlohmann::json& e : *edges) {
      const nlohmann::json* source = json_member(e, "source");
      const nlohmann::json* target = json_member(e, "target");
      if (source && target && source->is_number_integer() && target->is_number_integer())
        inputs[target->get<int32_t>()].push_back(source->get<int32_t>());
    }
  }
  std::map<int32_t, std::vector<std::string>> out;
  for (const auto& [id, node] : nodes) {
    const nlohmann::json* type = json_member(*node, "type");
    if (!type || !type->is_string()) continue;
    std::string_view t = type->get_ref<const std::string&>();
    t = t.substr(0, t.rfind('_'));
    const KeySpec* spec = nullptr;
    for (const KeySpec& k : kKeySpecs)
      if (k.node_type == t) spec = &k;
    auto in = inputs.find(id);
    if (!spec || in == inputs.end() || in->second.empty()) continue;
    auto keys = indexes(member_path(*node, spec->path));
    auto input = nodes.find(in->second.front());
    if (!keys || keys->empty() || input == nodes.end()) continue;
    const nlohmann::json* input_type = json_member(*input->second, "outputType");
    if (!input_type) continue;
    std::vector<std::string> columns = plan_row_field_names(*input_type);
    std::vector<std::string> names;
    for (int64_t k : *keys) {
      if (k < 0 || static_cast<size_t>(k) >= columns.size()) break;
      names.push_back(columns[static_cast<size_t>(k)]);
    }
    if (names.size() != keys->size()) continue;
    if (std::set<std::string>(names.begin(), names.end()).size() != names.size()) continue;
    out[id] = std::move(names);
  }
  return out;
}

}  // namespace ckpt
