// format/state_bytes.h - how many bytes of state a subtask's handles point to, from `_metadata`
// alone: the totals progress is measured against (ckpt/progress.h).
#pragma once

#include <cstdint>

#include "ckpt/metadata.h"

namespace ckpt {

// The declared sizes of every stream under the subtask's managed and raw operator and keyed
// handles (a shared file counts once per reference, as readers read it); `operator_state`
// false leaves the operator handles out.
uint64_t subtask_state_bytes(const SubtaskState& st, bool operator_state = true);

}  // namespace ckpt
