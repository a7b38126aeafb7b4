// edit's operations resolved against a snapshot's operators, refused where they contradict.
#include "ops/edit/edit_plan.h"

#include <algorithm>

#include <fmt/format.h>

namespace ckpt {

namespace {

// The one operator `name` names (for `flag`).
Result<const OperatorState*> one_operator(const Metadata& m, const std::string& name, const char* flag) {
  auto selected = select_operators(m, name);
  if (!selected.ok()) return std::move(selected).error().with_context(flag);
  if (selected->size() > 1) {
    std::string ids;
    for (const OperatorState* op : *selected) ids += (ids.empty() ? "" : ", ") + operator_id_hex(op->id);
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: '{}' names {} operators ({}): give its id", flag, name, selected->size(), ids));
  }
  return selected->front();
}

EditChange change_of(const OperatorState& op, const char* what) {
  EditChange c;
  c.operator_id = c.new_id = operator_id_hex(op.id);
  c.what = what;
  return c;
}

Status renamed_once(const EditPlan& plan, const OperatorState& op, const char* flag) {
  if (plan.new_ids.count(op.id))
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: operator {} is given a new id twice", flag, operator_id_hex(op.id)));
  if (plan.dropped.count(op.id))
    return Error(ErrorCode::kInvalidArgument, fmt::format("{}: operator {} is dropped", flag, operator_id_hex(op.id)));
  return Status::OK();
}

}  // namespace

Result<EditPlan> plan_edit(const Metadata& m, const EditOptions& options) {
  EditPlan plan;
  for (const std::string& name : options.drop_operators) {
    CKPT_ASSIGN_OR_RETURN(const OperatorState* op, one_operator(m, name, "--drop-operator"));
    plan.dropped.insert(op->id);
    EditChange c = change_of(*op, "drop-operator");
    c.detail = fmt::format("{} subtasks", op->subtasks.size());
    plan.changes.push_back(std::move(c));
  }
  for (const auto& [name, uid] : options.set_uids) {
    if (uid.empty()) return Error(ErrorCode::kInvalidArgument, fmt::format("--set-uid: empty uid for '{}'", name));
    CKPT_ASSIGN_OR_RETURN(const OperatorState* op, one_operator(m, name, "--set-uid"));
    CKPT_RETURN_IF_ERROR(renamed_once(plan, *op, "--set-uid"));
    plan.new_ids[op->id] = operator_id_of_uid(uid);
    plan.new_uids[op->id] = uid;
    EditChange c = change_of(*op, "set-uid");
    c.new_id = operator_id_hex(operator_id_of_uid(uid));
    c.detail = uid;
    plan.changes.push_back(std::move(c));
  }
  for (const auto& [name, hex] : options.set_ids) {
    OperatorId id{};
    if (!parse_operator_id(hex, &id))
      return Error(ErrorCode::kInvalidArgument, fmt::format("--set-id: '{}' is not 32 hex digits", hex));
    CKPT_ASSIGN_OR_RETURN(const OperatorState* op, one_operator(m, name, "--set-id"));
    CKPT_RETURN_IF_ERROR(renamed_once(plan, *op, "--set-id"));
    plan.new_ids[op->id] = id;
    plan.new_uids[op->id] = "";
    EditChange c = change_of(*op, "set-id");
    c.new_id = operator_id_hex(id);
    plan.changes.push_back(std::move(c));
  }
  for (const auto& [name, state] : options.drop_states) {
    CKPT_ASSIGN_OR_RETURN(const OperatorState* op, one_operator(m, name, "--drop-state"));
    if (plan.dropped.count(op->id))
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("--drop-state: operator {} is dropped", operator_id_hex(op->id)));
    auto renamed = plan.new_ids.find(op->id);
    plan.drop_states[renamed == plan.new_ids.end() ? op->id : renamed->second].insert(state);
    EditChange c = change_of(*op, "drop-state");
    if (renamed != plan.new_ids.end()) c.new_id = operator_id_hex(renamed->second);
    c.state = state;
    plan.changes.push_back(std::move(c));
  }
  for (const auto& [name, n] : options.operator_max_parallelism) {
    CKPT_ASSIGN_OR_RETURN(const OperatorState* op, one_operator(m, name, "--max-parallelism"));
    if (plan.dropped.count(op->id))
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("--max-parallelism: operator {} is dropped", operator_id_hex(op->id)));
    auto [at, fresh] = plan.max_parallelism.emplace(op->id, n);
    if (!fresh && at->second != n)
      return Error(ErrorCode::kInvalidArgument, fmt::format("--max-parallelism: operator {} is given {} and {}",
                                                            operator_id_hex(op->id), at->second, n));
  }
  if (options.max_parallelism != 0)
    for (const OperatorState& op : m.operators)
      if (!plan.dropped.count(op.id)) plan.max_parallelism.emplace(op.id, options.max_parallelism);
  // Flink maps state to operators by id: two operators of one id cannot both be restored.
  std::map<OperatorId, OperatorId> owner;  // output id -> input id
  for (const OperatorState& op : m.operators) {
    if (plan.dropped.count(op.id)) continue;
    auto renamed = plan.new_ids.find(op.id);
    const OperatorId id = renamed == plan.new_ids.end() ? op.id : renamed->second;
    auto [at, fresh] = owner.emplace(id, op.id);
    if (!fresh)
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("operators {} and {} would share the id {}", operator_id_hex(at->second),
                               operator_id_hex(op.id), operator_id_hex(id)));
  }
  return plan;
}

Status apply_operator_changes(const EditPlan& plan, Metadata& m) {
  std::erase_if(m.operators, [&](const OperatorState& op) { return plan.dropped.count(op.id) > 0; });
  for (OperatorState& op : m.operators) {
    auto renamed = plan.new_ids.find(op.id);
    if (renamed == plan.new_ids.end()) continue;
    // V1-V4 files have no uid field; V5+ store the uid beside the id it hashes to.
    if (m.version >= 5) op.uid = plan.new_uids.at(op.id);
    op.id = renamed->second;
  }
  return Status::OK();
}

}  // namespace ckpt
