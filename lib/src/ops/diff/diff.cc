// ckpt diff: structure and files of two snapshots compared (ckpt/diff.h).
#include "ckpt/diff.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ckpt/walk.h"
#include "ops/diff/diff_internal.h"
#include "ops/engine/input_checks.h"
#include "ops/selection_check.h"

namespace ckpt {

namespace {

std::string absolute_uri(const std::string& uri) {
  if (auto local = local_path_of_uri(uri)) return std::filesystem::path(*local).lexically_normal().string();
  return uri;
}

// One side's files: identity -> declared size, in order of first reference, and per subtask.
struct SideFiles {
  std::vector<std::string> order;
  std::unordered_map<std::string, int64_t> size;
  // (operator index, subtask) -> identities, each once.
  std::map<std::pair<size_t, int32_t>, std::vector<std::string>> by_subtask;
  int64_t total = 0;
};

SideFiles collect_files(const Metadata& m, const SnapshotLocation& where) {
  SideFiles out;
  std::map<std::pair<size_t, int32_t>, std::unordered_set<std::string>> seen;
  for_each_stream(m, [&](const StreamHandle& s, const StreamSite& site) {
    std::string id = file_identity(s, where);
    if (id.empty()) return;
    int64_t size = s.state_size();
    auto [it, fresh] = out.size.emplace(id, size);
    if (fresh) {
      out.order.push_back(id);
      if (size > 0) out.total += size;
    } else if (size > it->second) {
      out.total += size - std::max<int64_t>(it->second, 0);
      it->second = size;
    }
    auto key = std::make_pair(site.operator_index, site.subtask);
    if (seen[key].insert(id).second) out.by_subtask[key].push_back(id);
  });
  return out;
}

std::string range_text(const KeyGroupRange& r) {
  if (r.count <= 0) return "none";
  return std::to_string(r.first) + "-" + std::to_string(int64_t{r.first} + r.count - 1);
}

// Per subtask, the key groups each keyed slot holds: a range that shrank has lost the entries
// of the key groups it dropped, though every file may be the same. Compared only at the same
// parallelism (a rescale moves every range, and is reported as such); a subtask without the
// handle on one side is a file difference, not a range one.
void diff_ranges(const OperatorState& a, const OperatorState& b, const std::string& id, DiffReport& r) {
  if (a.parallelism != b.parallelism || a.max_parallelism != b.max_parallelism) return;
  for (auto [slot, what] : {std::pair{&SubtaskState::managed_keyed, "key-group-range"},
                            std::pair{&SubtaskState::raw_keyed, "raw-key-group-range"}}) {
    std::map<int32_t, KeyGroupRange> in_a;
    for (const SubtaskState& st : a.subtasks)
      if (!st.finished && !(st.*slot).is_null()) in_a.emplace(st.index, (st.*slot).range);
    for (const SubtaskState& st : b.subtasks) {
      if (st.finished || (st.*slot).is_null()) continue;
      auto it = in_a.find(st.index);
      if (it == in_a.end() || it->second == (st.*slot).range) continue;
      StructureChange c{what, id, "", range_text(it->second), range_text((st.*slot).range)};
      c.subtask = st.index;
      r.structure.push_back(std::move(c));
    }
  }
}

void diff_operators(const Metadata& a, const Metadata& b, DiffReport& r) {
  std::unordered_map<std::string, const OperatorState*> in_b;
  for (const OperatorState& op : b.operators) in_b.emplace(operator_id_hex(op.id), &op);
  std::unordered_set<std::string> in_a;
  for (const OperatorState& op : a.operators) {
    std::string id = operator_id_hex(op.id);
    in_a.insert(id);
    auto it = in_b.find(id);
    if (it == in_b.end()) {
      r.structure.push_back({"operator-removed", id, "", op.uid.empty() ? op.name : op.uid, ""});
      continue;
    }
    const OperatorState& ob = *it->second;
    if (op.parallelism != ob.parallelism)
      r.structure.push_back({"parallelism", id, "", std::to_string(op.parallelism), std::to_string(ob.parallelism)});
    if (op.max_parallelism != ob.max_parallelism)
      r.structure.push_back(
          {"max-parallelism", id, "", std::to_string(op.max_parallelism), std::to_string(ob.max_parallelism)});
    diff_ranges(op, ob, id, r);
  }
  for (const OperatorState& op : b.operators) {
    std::string id = operator_id_hex(op.id);
    if (!in_a.count(id)) r.structure.push_back({"operator-added", id, "", "", op.uid.empty() ? op.name : op.uid});
  }
}

void diff_files(const Metadata& a, const SnapshotLocation& wa, const Metadata& b, const SnapshotLocation& wb,
                DiffReport& r) {
  SideFiles fa = collect_files(a, wa);
  SideFiles fb = collect_files(b, wb);
  r.a_full_bytes = fa.total;
  r.b_full_bytes = fb.total;
  for (const std::string& id : fb.order) {
    int64_t size = fb.size[id];
    if (fa.size.count(id)) {
      r.files_shared.push_back({id, size});
    } else {
      r.files_added.push_back({id, size});
      if (size > 0) r.b_incremental_bytes += size;
    }
  }
  for (const std::string& id : fa.order)
    if (!fb.size.count(id)) r.files_removed.push_back({id, fa.size[id]});

  // Per operator (by id, A's order then B's new ones) and subtask.
  std::map<std::pair<std::string, int32_t>, SubtaskFileDiff> rows;
  std::vector<std::pair<std::string, int32_t>> order;
  auto row = [&](const std::string& op, int32_t subtask) -> SubtaskFileDiff& {
    auto key = std::make_pair(op, subtask);
    auto it = rows.find(key);
    if (it == rows.end()) {
      order.push_back(key);
      it = rows.emplace(key, SubtaskFileDiff{op, subtask}).first;
    }
    return it->second;
  };
  auto bytes = [](int64_t s) { return s > 0 ? s : 0; };
  for (const auto& [key, ids] : fa.by_subtask) {
    SubtaskFileDiff& d = row(operator_id_hex(a.operators[key.first].id), key.second);
    for (const std::string& id : ids) {
      if (fb.size.count(id)) continue;  // counted as shared from B's side
      ++d.removed;
      d.removed_bytes += bytes(fa.size[id]);
    }
  }
  for (const auto& [key, ids] : fb.by_subtask) {
    SubtaskFileDiff& d = row(operator_id_hex(b.operators[key.first].id), key.second);
    for (const std::string& id : ids) {
      if (fa.size.count(id)) {
        ++d.shared;
        d.shared_bytes += bytes(fb.size[id]);
      } else {
        ++d.added;
        d.added_bytes += bytes(fb.size[id]);
      }
    }
  }
  for (const auto& key : order) r.subtasks.push_back(rows[key]);
}

}  // namespace

std::string file_identity(const StreamHandle& s, const SnapshotLocation& where) {
  switch (s.type) {
    case handle_type::kFile:
      return absolute_uri(s.path);
    case handle_type::kRelativeFile: {
      std::error_code ec;  // fails only if the working directory is gone: the identity stays relative
      std::filesystem::path dir = std::filesystem::absolute(where.directory.empty() ? "." : where.directory, ec);
      return (dir / s.path).lexically_normal().string();
    }
    case handle_type::kSegmentFile:
      return absolute_uri(s.path) + "@" + std::to_string(s.start) + "+" + std::to_string(s.size);
    default:
      return {};
  }
}

bool DiffReport::keys_differ() const {
  for (const KeyDiffCounts& k : keys)
    if (k.differs()) return true;
  return false;
}

DiffReport diff_metadata(const Metadata& a, const SnapshotLocation& where_a, const Metadata& b,
                         const SnapshotLocation& where_b) {
  DiffReport r;
  r.a = where_a.metadata_path;
  r.b = where_b.metadata_path;
  diff_operators(a, b, r);
  diff_files(a, where_a, b, where_b, r);
  return r;
}

Result<DiffReport> diff_snapshots(const std::string& a, const std::string& b, const DiffOptions& options,
                                  KeyChangeSink* changes) {
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation wa, locate_snapshot(a));
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation wb, locate_snapshot(b));
  CKPT_ASSIGN_OR_RETURN(Metadata ma, read_metadata_file(wa.metadata_path));
  CKPT_ASSIGN_OR_RETURN(Metadata mb, read_metadata_file(wb.metadata_path));
  CKPT_RETURN_IF_ERROR(check_relative_paths(ma, wa.metadata_path));
  CKPT_RETURN_IF_ERROR(check_relative_paths(mb, wb.metadata_path));
  CKPT_RETURN_IF_ERROR(check_key_group_ranges(ma, wa.metadata_path));
  CKPT_RETURN_IF_ERROR(check_key_group_ranges(mb, wb.metadata_path));
  DiffReport r = diff_metadata(ma, wa, mb, wb);
  std::map<std::string, OperatorStates> sa = collect_states(ma, wa, options.remap);
  std::map<std::string, OperatorStates> sb = collect_states(mb, wb, options.remap);
  diff_states(sa, sb, r);
  append_named_operators(ma, options.names, &r.named);
  append_named_operators(mb, options.names, &r.named);
  r.naming = !options.names.empty();
  for (const std::string& uid : options.names.unmatched(ma)) {
    std::vector<std::string> in_b = options.names.unmatched(mb);
    if (std::find(in_b.begin(), in_b.end(), uid) != in_b.end()) r.unmatched_uids.push_back(uid);
  }
  if (options.keys) {
    // Entries compared from a side verify rejects would be reported as the state's changes.
    const ProblemSink stop = [](Error&& e) -> Status { return std::move(e); };
    CKPT_RETURN_IF_ERROR(check_structure(ma, wa, options.remap, {}, stop));
    CKPT_RETURN_IF_ERROR(check_structure(mb, wb, options.remap, {}, stop));
  }
  if (options.keys && !options.state.empty()) {
    std::set<std::string> names;
    bool complete = true;
    for (const auto* side : {&sa, &sb})
      for (const auto& [id, states] : *side) {
        for (const auto& [name, shape] : states.states) names.insert(name);
        complete &= states.notes.empty();
      }
    for (const Metadata* m : {&ma, &mb})
      for (const OperatorState& op : m->operators) complete &= !may_hold_unnamed_states(op);
    CKPT_RETURN_IF_ERROR(check_state_selection(options.state, names, complete, wa.metadata_path));
  }
  if (options.keys) CKPT_RETURN_IF_ERROR(diff_keys(wa, ma, sa, wb, mb, sb, options, r, changes));
  return r;
}

}  // namespace ckpt
