// Filters that select nothing, refused with what exists (ops/selection_check.h).
#include "ops/selection_check.h"

#include <algorithm>

#include <fmt/format.h>

namespace ckpt {

namespace {

// An operator's many subtasks stay one line: "0-3, 5, 7-9".
std::string runs(std::vector<int32_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + (i == j ? std::to_string(v[i]) : fmt::format("{}-{}", v[i], v[j]));
    i = j + 1;
  }
  return out.empty() ? "none" : out;
}

// A job has a handful of operators; past that the list is cut, not the message's point.
constexpr size_t kListed = 8;

std::string listed(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size() && i < kListed; ++i) out += (i ? "; " : "") + parts[i];
  if (parts.size() > kListed) out += fmt::format("; and {} more operators", parts.size() - kListed);
  return out;
}

bool selectable(const SubtaskState& st, SubtaskNeed need) {
  return !st.finished && (need == SubtaskNeed::kAny || !st.managed_keyed.is_null());
}

Error not_found(const std::string& file, std::string message) {
  return Error(ErrorCode::kNotFound, std::move(message)).with_file(file);
}

}  // namespace

Status check_subtask_selection(const std::vector<const OperatorState*>& ops, std::optional<int32_t> subtask,
                               std::optional<std::pair<int32_t, int32_t>> key_groups, SubtaskNeed need,
                               const std::string& file) {
  if (!subtask && !key_groups) return Status::OK();
  bool subtask_found = false, key_group_found = false;
  std::vector<std::string> subtasks_exist, key_groups_exist;
  for (const OperatorState* op : ops) {
    std::vector<int32_t> indices;
    int32_t first = INT32_MAX, last = INT32_MIN;
    for (const SubtaskState& st : op->subtasks) {
      if (!selectable(st, need)) continue;
      indices.push_back(st.index);
      if (subtask && st.index != *subtask) continue;
      subtask_found = true;
      const KeyGroupRange& r = st.managed_keyed.range;
      if (st.managed_keyed.is_null() || r.empty()) continue;
      first = std::min(first, r.first);
      last = std::max(last, r.last());
      if (key_groups && r.first <= key_groups->second && r.last() >= key_groups->first) key_group_found = true;
    }
    std::string id = operator_id_hex(op->id).substr(0, 8);
    subtasks_exist.push_back(fmt::format("operator {} has subtasks {}", id, runs(indices)));
    key_groups_exist.push_back(first <= last
                                   ? fmt::format("operator {}{} holds key groups {}-{}", id,
                                                 subtask ? fmt::format(" subtask {}", *subtask) : "", first, last)
                                   : fmt::format("operator {} holds no keyed state{}", id,
                                                 subtask ? fmt::format(" in subtask {}", *subtask) : ""));
  }
  const char* what = need == SubtaskNeed::kKeyed ? " with keyed state" : "";
  if (subtask && !subtask_found)
    return not_found(file, fmt::format("no subtask {}{}: {}", *subtask, what, listed(subtasks_exist)));
  if (key_groups && !key_group_found)
    return not_found(file, fmt::format("no subtask{} holds key groups {}-{}: {}", what, key_groups->first,
                                       key_groups->second, listed(key_groups_exist)));
  return Status::OK();
}

Status check_state_selection(const std::string& state, const std::set<std::string>& existing, bool complete,
                             const std::string& file) {
  if (state.empty() || !complete || existing.count(state)) return Status::OK();
  std::string names;
  for (const std::string& n : existing) names += (names.empty() ? "'" : ", '") + n + "'";
  return not_found(file,
                   fmt::format("no state '{}': {}", state,
                               names.empty() ? "the selected operators have no states" : "the states are " + names));
}

bool may_hold_unnamed_states(const OperatorState& op) {
  for (const SubtaskState& st : op.subtasks) {
    if (!st.raw_keyed.is_null()) return true;
    uint8_t t = st.managed_keyed.type;
    if (t == handle_type::kChangelogBackend || t == handle_type::kChangelogBackendV1) return true;
  }
  return false;
}

}  // namespace ckpt
