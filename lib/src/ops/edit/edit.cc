// edit_snapshot: the edit plan applied by rewrite_snapshot's hooks.
#include "ckpt/edit.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "ckpt/io.h"

#include "ops/convert/snapshot_rewrite.h"
#include "ops/edit/edit_keys.h"
#include "ops/edit/edit_plan.h"
#include "state/operator_state_cut.h"

namespace ckpt {

namespace {

// Entries dropped per (output operator id, state), and whether any subtask had the state.
class DropCounts {
 public:
  void add(const OperatorId& op, const std::string& state, uint64_t entries) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& [found, n] = counts_[{op, state}];
    found = true;
    n += entries;
  }
  // found, entries
  std::pair<bool, uint64_t> get(const OperatorId& op, const std::string& state) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = counts_.find({op, state});
    return it == counts_.end() ? std::pair<bool, uint64_t>{false, 0} : it->second;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::pair<OperatorId, std::string>, std::pair<bool, uint64_t>> counts_;
};

// The pairs of the proxy states dropped, counted.
class DropKeyedStates : public KeyedEdit {
 public:
  DropKeyedStates(std::vector<size_t> dropped, std::vector<std::string> names, OperatorId op, DropCounts& counts)
      : dropped_(std::move(dropped)), names_(std::move(names)), op_(op), counts_(counts), entries_(dropped_.size()) {}
  ~DropKeyedStates() override {
    for (size_t i = 0; i < names_.size(); ++i) counts_.add(op_, names_[i], entries_[i]);
  }

  // Counts only: the engine leaves out the states the proxy no longer names.
  Status key_group(int32_t, std::vector<std::vector<RocksPair>>& by_state) override {
    for (size_t i = 0; i < dropped_.size(); ++i)
      if (dropped_[i] < by_state.size()) entries_[i] += by_state[dropped_[i]].size();
    return Status::OK();
  }

 private:
  std::vector<size_t> dropped_;     // input proxy indices
  std::vector<std::string> names_;  // their names, in the same order
  OperatorId op_;
  DropCounts& counts_;
  std::vector<uint64_t> entries_;
};

// Edits applied one after the other (each sees the previous one's output).
class EditChain : public KeyedEdit {
 public:
  explicit EditChain(std::vector<std::unique_ptr<KeyedEdit>> edits) : edits_(std::move(edits)) {}
  Status key_group(int32_t kg, std::vector<std::vector<RocksPair>>& by_state) override {
    for (auto& e : edits_) CKPT_RETURN_IF_ERROR(e->key_group(kg, by_state));
    return Status::OK();
  }

 private:
  std::vector<std::unique_ptr<KeyedEdit>> edits_;
};

// The edits that are not null, as one (null for none).
std::unique_ptr<KeyedEdit> chained(std::vector<std::unique_ptr<KeyedEdit>> edits) {
  std::erase_if(edits, [](const std::unique_ptr<KeyedEdit>& e) { return !e; });
  if (edits.empty()) return nullptr;
  if (edits.size() == 1) return std::move(edits.front());
  return std::make_unique<EditChain>(std::move(edits));
}

}  // namespace

Result<std::vector<std::string>> read_key_lines(const std::string& path) {
  CKPT_ASSIGN_OR_RETURN(std::string text, read_whole_file(path));
  std::vector<std::string> out;
  std::string_view rest = text;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) out.emplace_back(line);
  }
  return out;
}

Result<EditSummary> edit_snapshot(const std::string& snapshot, const EditOptions& options) {
  EditPlan plan;
  DropCounts counts;
  std::unique_ptr<KeyDeletion> deletion;
  std::set<OperatorId> key_operators;  // output ids of the operators keys are erased from
  if (!options.delete_keys.empty()) {
    CKPT_ASSIGN_OR_RETURN(deletion, KeyDeletion::parse(options.delete_keys));
  }
  RewriteHooks hooks;
  hooks.operators = [&](Metadata& m) -> Status {
    CKPT_ASSIGN_OR_RETURN(plan, plan_edit(m, options));
    if (deletion) {
      CKPT_ASSIGN_OR_RETURN(auto selected, select_operators(m, options.keys_operator));
      for (const OperatorState* op : selected) {
        auto renamed = plan.new_ids.find(op->id);
        key_operators.insert(renamed == plan.new_ids.end() ? op->id : renamed->second);
      }
    }
    return apply_operator_changes(plan, m);
  };
  auto drop_states = [&](const OperatorState& op, KeyedBackendMeta& meta) -> Result<std::unique_ptr<KeyedEdit>> {
    auto drop = plan.drop_states.find(op.id);
    if (drop == plan.drop_states.end()) return std::unique_ptr<KeyedEdit>();
    std::vector<size_t> dropped;
    std::vector<std::string> names;
    for (size_t i = meta.states.size(); i-- > 0;)
      if (drop->second.count(meta.states[i].name)) {
        dropped.push_back(i);
        names.push_back(meta.states[i].name);
        meta.states.erase(meta.states.begin() + static_cast<std::ptrdiff_t>(i));
      }
    if (dropped.empty()) return std::unique_ptr<KeyedEdit>();
    return std::unique_ptr<KeyedEdit>(new DropKeyedStates(std::move(dropped), std::move(names), op.id, counts));
  };
  hooks.keyed = [&](const OperatorState& op, int32_t, KeyedBackendMeta& meta) -> Result<std::unique_ptr<KeyedEdit>> {
    // Keys first, on the states as read; then the states dropped from what is left.
    std::vector<std::unique_ptr<KeyedEdit>> edits(2);
    if (deletion && key_operators.count(op.id)) {
      CKPT_ASSIGN_OR_RETURN(edits[0], deletion->edit_for(op, meta));
    }
    CKPT_ASSIGN_OR_RETURN(edits[1], drop_states(op, meta));
    return chained(std::move(edits));
  };
  hooks.operator_state = [&](const OperatorState& op, int32_t, OperatorHandle& h, std::string& bytes) -> Status {
    auto drop = plan.drop_states.find(op.id);
    if (drop == plan.drop_states.end()) return Status::OK();
    std::set<std::string> here;
    std::map<std::string, uint64_t> elements;
    for (const OperatorStateEntry& s : h.states)
      if (drop->second.count(s.name)) {
        here.insert(s.name);
        elements[s.name] += s.offsets.size();
      }
    if (here.empty()) return Status::OK();
    CKPT_ASSIGN_OR_RETURN(uint64_t removed, cut_operator_states(h, bytes, here));
    (void)removed;
    for (const auto& [name, n] : elements) counts.add(op.id, name, n);
    return Status::OK();
  };
  hooks.finish = [&]() -> Status {
    for (const auto& [op, states] : plan.drop_states)
      for (const std::string& state : states)
        if (!counts.get(op, state).first)
          return Error(ErrorCode::kInvalidArgument,
                       fmt::format("--drop-state: operator {} has no state '{}'", operator_id_hex(op), state));
    return Status::OK();
  };

  RewriteOptions r;
  r.to = options.to;
  r.output = options.output;
  r.force = options.force;
  r.jobs = options.jobs;
  r.remap = options.remap;
  r.dry_run = options.dry_run;
  r.key_serializers_from = options.key_serializers_from;
  CKPT_ASSIGN_OR_RETURN(ConvertSummary written, rewrite_snapshot(snapshot, r, hooks));
  EditSummary summary;
  summary.written = std::move(written);
  summary.changes = plan.changes;
  for (EditChange& c : summary.changes) {
    if (c.what != "drop-state") continue;
    OperatorId id{};
    parse_operator_id(c.new_id, &id);
    c.entries = counts.get(id, c.state).second;
  }
  if (deletion) {
    summary.erased = deletion->erased();
    summary.unmatched_keys = deletion->unmatched();
  }
  return summary;
}

}  // namespace ckpt
