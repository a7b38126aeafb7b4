// Each operation of `ckpt edit` as an edit of the snapshot rewrite.
#include "ops/edit/edit_steps.h"

#include <algorithm>

#include <fmt/format.h>

#include "ops/ttl_expiry.h"
#include "state/operator_state_cut.h"

namespace ckpt {

namespace {

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

// What --max-parallelism `n` and --parallelism need of an operator.
Status check_regroup(const OperatorState& op, int32_t n, const EditOptions& options) {
  if (n < 1 || n > 32768)
    return Error(ErrorCode::kInvalidArgument, fmt::format("--max-parallelism {} is not in 1..32768", n));
  const int32_t parallelism = options.parallelism ? options.parallelism : op.parallelism;
  if (parallelism < 1 || parallelism > n)
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("operator {}: parallelism {} is not in 1..{} (its max parallelism)",
                             operator_id_hex(op.id), parallelism, n));
  if (parallelism == op.parallelism) return Status::OK();
  for (const SubtaskState& st : op.subtasks)
    if (!st.legacy.empty() || !st.managed_operator.empty() || !st.raw_operator.empty() || !st.raw_keyed.is_null() ||
        !st.input_channels.empty() || !st.result_subpartitions.empty())
      return Error(ErrorCode::kNotSupported,
                   fmt::format("--parallelism: operator {} has state other than keyed state, which Flink redistributes "
                               "on restore (keep its parallelism here)",
                               operator_id_hex(op.id)));
  return Status::OK();
}

// What the operations name and the subtasks have, as the parts of a run record it (found()).
std::string drop_state_found(const OperatorId& op, const std::string& state) {
  return fmt::format("drop-state {}/{}", operator_id_hex(op), state);
}
std::string expire_found(const std::string& state) { return "expire " + state; }

Status no_expire_state(const std::string& state) {
  return Error(ErrorCode::kInvalidArgument, fmt::format("--expire: no operator has a keyed state '{}'", state));
}
Status no_dropped_state(const OperatorId& op, const std::string& state) {
  return Error(ErrorCode::kInvalidArgument,
               fmt::format("--drop-state: operator {} has no state '{}'", operator_id_hex(op), state));
}

}  // namespace

void DropCounts::add(const OperatorId& op, const std::string& state, uint64_t entries) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& [found, n] = counts_[{op, state}];
  found = true;
  n += entries;
}

std::pair<bool, uint64_t> DropCounts::get(const OperatorId& op, const std::string& state) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = counts_.find({op, state});
  return it == counts_.end() ? std::pair<bool, uint64_t>{false, 0} : it->second;
}

Status OperatorChanges::prepare(const Metadata& in, const StreamOpener&) {
  CKPT_ASSIGN_OR_RETURN(plan_, plan_edit(in, options_));
  return Status::OK();
}

Status OperatorChanges::operators(Metadata& out, const OutputIds&) { return apply_operator_changes(plan_, out); }

std::optional<OperatorId> OperatorChanges::renamed(const OperatorId& id) const {
  auto it = plan_.new_ids.find(id);
  if (it == plan_.new_ids.end()) return std::nullopt;
  return it->second;
}

Status EraseKeys::operators(Metadata& out, const OutputIds& ids) {
  // Listed before the operator changes: --keys-operator names an operator of the input.
  CKPT_ASSIGN_OR_RETURN(auto selected, select_operators(out, keys_operator_));
  for (const OperatorState* op : selected) {
    // Erasure must be complete: raw keyed state (the timers of Flink < 1.10 RocksDB jobs
    // with heap timers) holds keys ckpt cannot cut out of it.
    for (const SubtaskState& st : op->subtasks)
      if (!st.raw_keyed.is_null())
        return Error(ErrorCode::kNotSupported,
                     fmt::format("--delete-keys: operator {} has raw keyed state (timers of an old RocksDB job), "
                                 "from which keys cannot be erased",
                                 operator_id_hex(op->id)));
    key_operators_.insert(ids(op->id));
  }
  return Status::OK();
}

Result<std::unique_ptr<KeyedEdit>> EraseKeys::keyed(const OperatorState& op, int32_t, KeyedBackendMeta& meta) {
  if (!key_operators_.count(op.id)) return std::unique_ptr<KeyedEdit>();
  return deletion_.edit_for(op, meta);
}

Status Regroup::prepare(const Metadata& in, const StreamOpener& streams) {
  for (const OperatorState& op : in.operators) {
    auto target = plan_.max_parallelism.find(op.id);
    if (target == plan_.max_parallelism.end()) continue;
    if (plan_.dropped.count(op.id)) continue;  // not written: nothing to move (nor to write early)
    const int32_t n = target->second;
    CKPT_RETURN_IF_ERROR(check_regroup(op, n, options_));
    bool keyed = false;
    for (const SubtaskState& st : op.subtasks) keyed |= !st.managed_keyed.is_null() || !st.raw_keyed.is_null();
    if (!keyed) continue;
    const int32_t parallelism = options_.parallelism ? options_.parallelism : op.parallelism;
    RegroupOutput output;
    if (write_directly) {
      auto renamed = plan_.new_ids.find(op.id);
      output = {output_dir_, options_.to, operator_id_hex(renamed == plan_.new_ids.end() ? op.id : renamed->second)};
    }
    auto r = Regrouper::make(op, n, parallelism, streams, options_.jobs, nullptr, Regrouper::kRunBytes, check_blocks,
                             output);
    if (!r.ok()) return std::move(r).error().with_context(fmt::format("operator {}", operator_id_hex(op.id)));
    EditChange c;
    c.operator_id = c.new_id = operator_id_hex(op.id);
    c.what = "max-parallelism";
    c.detail = fmt::format("{} -> {}", op.max_parallelism, n);
    if (parallelism != op.parallelism) c.detail += fmt::format(", parallelism {} -> {}", op.parallelism, parallelism);
    c.entries = (*r)->pairs();  // writing directly: the timers so far (subtasks() adds the pairs)
    changes_[op.id] = regrouped_.size();
    regrouped_.push_back(std::move(c));
    regroupers_[op.id] = std::move(r).value();
  }
  return Status::OK();
}

Status Regroup::operators(Metadata& out, const OutputIds& ids) {
  if (plan_.max_parallelism.empty()) return Status::OK();
  std::map<OperatorId, std::unique_ptr<Regrouper>> by_output;
  for (auto& [id, r] : regroupers_) by_output[ids(id)] = std::move(r);
  regroupers_ = std::move(by_output);
  std::map<OperatorId, size_t> changes;
  for (const auto& [id, at] : changes_) changes[ids(id)] = at;
  changes_ = std::move(changes);
  std::map<OperatorId, int32_t> max_by_output;
  for (const auto& [id, n] : plan_.max_parallelism) max_by_output[ids(id)] = n;
  for (OperatorState& op : out.operators) {
    auto target = max_by_output.find(op.id);
    if (target == max_by_output.end()) continue;
    op.max_parallelism = target->second;
    if (!regroupers_.count(op.id)) continue;
    // `_metadata` lists only the subtasks that had state, but a key may now belong to any
    // subtask: each gets a record. With a new parallelism there is only keyed state
    // (check_regroup), so the records are all new.
    const int32_t parallelism = options_.parallelism ? options_.parallelism : op.parallelism;
    if (parallelism != op.parallelism) op.subtasks.clear();
    op.parallelism = parallelism;
    std::vector<SubtaskState> subtasks(static_cast<size_t>(parallelism));
    for (int32_t i = 0; i < parallelism; ++i) subtasks[i].index = i;
    for (SubtaskState& st : op.subtasks)
      if (st.index >= 0 && st.index < parallelism) subtasks[st.index] = std::move(st);
    op.subtasks = std::move(subtasks);
  }
  return Status::OK();
}

Status Regroup::subtasks(const std::vector<std::pair<const OperatorState*, const SubtaskState*>>& written, int jobs) {
  for (auto& [id, r] : regroupers_) {
    if (!r->writes_directly()) continue;
    std::vector<int32_t> indexes;
    for (const auto& [op, st] : written)
      if (op->id == id) indexes.push_back(st->index);
    Status s = r->write(indexes, jobs);
    if (!s.ok()) return std::move(s).error().with_context(fmt::format("operator {}", operator_id_hex(id)));
    regrouped_.at(changes_.at(id)).entries = r->pairs();
  }
  return Status::OK();
}

Result<std::optional<KeyedSource>> Regroup::keyed_source(const OperatorState& op, const SubtaskState& st) {
  auto r = regroupers_.find(op.id);
  if (r == regroupers_.end()) return std::optional<KeyedSource>();
  std::optional<KeyedSource> s = r->second->source(st.index);
  if (!s && r->second->writes_directly())
    return Error(ErrorCode::kInvalidArgument, fmt::format("subtask {} was not written by the regrouping", st.index));
  return s;
}

Result<std::optional<RawKeyedStream>> Regroup::raw_keyed_source(const OperatorState& op, const SubtaskState& st) {
  auto r = regroupers_.find(op.id);
  if (r == regroupers_.end()) return std::optional<RawKeyedStream>();
  return r->second->raw_keyed(st.index);
}

Status ExpireEntries::prepare(const Metadata& in, const StreamOpener&) {
  if (options_.plan.empty()) return Status::OK();
  CKPT_ASSIGN_OR_RETURN(auto ttls, plan_ttls(plan_names_, in, options_.plan, "--plan"));
  expiry_.set_plan_ttls(std::move(ttls));
  return Status::OK();
}

Status ExpireEntries::finish() {
  for (const std::string& state : expiry_.not_found()) return no_expire_state(state);
  return Status::OK();
}

std::vector<std::string> ExpireEntries::found() const {
  std::vector<std::string> out;
  const std::vector<std::string> missing = expiry_.not_found();
  for (const auto& [state, ttl] : options_.expire)
    if (std::find(missing.begin(), missing.end(), state) == missing.end()) out.push_back(expire_found(state));
  return out;
}

Status ExpireEntries::finish_parts(const std::set<std::string>& found) {
  for (const std::string& state : expiry_.not_found())
    if (!found.count(expire_found(state))) return no_expire_state(state);
  return Status::OK();
}

Status UpsertEntries::prepare(const Metadata& in, const StreamOpener& streams) {
  // Every line checked before a pair is written.
  return upserts_.read(*options_.upsert, options_.upsert_name, in, streams);
}

Status UpsertEntries::operators(Metadata&, const OutputIds& ids) {
  upserts_.rename(ids);
  return Status::OK();
}

Result<std::unique_ptr<KeyedEdit>> DropStates::keyed(const OperatorState& op, int32_t, KeyedBackendMeta& meta) {
  auto drop = plan_.drop_states.find(op.id);
  if (drop == plan_.drop_states.end()) return std::unique_ptr<KeyedEdit>();
  std::vector<size_t> dropped;
  std::vector<std::string> names;
  for (size_t i = meta.states.size(); i-- > 0;)
    if (drop->second.count(meta.states[i].name)) {
      dropped.push_back(i);
      names.push_back(meta.states[i].name);
      meta.states.erase(meta.states.begin() + static_cast<std::ptrdiff_t>(i));
    }
  if (dropped.empty()) return std::unique_ptr<KeyedEdit>();
  // A Flink 1.2-1.6 proxy is written back as read: it would still register the dropped states.
  if (!meta.legacy_bytes.empty())
    return Error(ErrorCode::kNotSupported,
                 fmt::format("states cannot be dropped from a keyed backend proxy of version {} "
                             "(Flink 1.2-1.6), which ckpt copies as read",
                             meta.version));
  return std::unique_ptr<KeyedEdit>(new DropKeyedStates(std::move(dropped), std::move(names), op.id, counts_));
}

Status DropStates::operator_state(const OperatorState& op, int32_t, OperatorHandle& h, std::string& bytes) {
  auto drop = plan_.drop_states.find(op.id);
  if (drop == plan_.drop_states.end()) return Status::OK();
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
  for (const auto& [name, n] : elements) counts_.add(op.id, name, n);
  return Status::OK();
}

Status DropStates::finish() {
  for (const auto& [op, states] : plan_.drop_states)
    for (const std::string& state : states)
      if (!counts_.get(op, state).first) return no_dropped_state(op, state);
  return Status::OK();
}

std::vector<std::string> DropStates::found() const {
  std::vector<std::string> out;
  for (const auto& [op, states] : plan_.drop_states)
    for (const std::string& state : states)
      if (counts_.get(op, state).first) out.push_back(drop_state_found(op, state));
  return out;
}

Status DropStates::finish_parts(const std::set<std::string>& found) {
  for (const auto& [op, states] : plan_.drop_states)
    for (const std::string& state : states)
      if (!found.count(drop_state_found(op, state))) return no_dropped_state(op, state);
  return Status::OK();
}

}  // namespace ckpt
