// ops/edit/edit_plan.h - the operations of `ckpt edit` resolved against one snapshot's operators.
//
// Every operator name is resolved once, on the input, before anything is read: a name that fits
// no operator or several is refused, as are operations that contradict each other (an operator
// dropped and re-identified) and ids that two operators of the output would share.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ckpt/edit.h"
#include "ckpt/metadata.h"

namespace ckpt {

struct EditPlan {
  std::set<OperatorId> dropped;                             // input ids
  std::map<OperatorId, OperatorId> new_ids;                 // input id -> output id
  std::map<OperatorId, std::string> new_uids;               // input id -> uid stored (V5+), "" clears it
  std::map<OperatorId, std::set<std::string>> drop_states;  // output id -> state names
  std::map<OperatorId, int32_t> max_parallelism;            // input id -> its new max parallelism
  std::vector<EditChange> changes;                          // one per operation, in the order given
};

Result<EditPlan> plan_edit(const Metadata& m, const EditOptions& options);

// `m` with the plan's operators dropped and re-identified.
Status apply_operator_changes(const EditPlan& plan, Metadata& m);

}  // namespace ckpt
