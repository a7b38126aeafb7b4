// ops/selection_check.h - a filter that selects nothing is an error naming what exists.
//
// `dump --subtask 9` on an operator of parallelism 4 used to print nothing and exit 0, which a
// script cannot tell from an empty state. These checks run after select_operators() and name
// the subtasks, key-group ranges or states the selected operators do have.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"

namespace ckpt {

// What a subtask must hold to count as selectable (restore wants keyed state, dump anything).
enum class SubtaskNeed { kAny, kKeyed };

// kNotFound when `subtask` is set and no unfinished subtask of `ops` has that index, or when
// `key_groups` is set and no such subtask's keyed handle holds one of them. `file` is the
// `_metadata` the error names.
Status check_subtask_selection(const std::vector<const OperatorState*>& ops, std::optional<int32_t> subtask,
                               std::optional<std::pair<int32_t, int32_t>> key_groups, SubtaskNeed need,
                               const std::string& file);

// kNotFound when `state` is not among `existing` (the names the backend proxies gave). Callers
// pass `complete` false when a state may exist that no proxy names (legacy raw-keyed timers, a
// change log's own states, a proxy that could not be read): then nothing is refused.
Status check_state_selection(const std::string& state, const std::set<std::string>& existing, bool complete,
                             const std::string& file);

// True when `op` may hold states no backend proxy names (raw keyed state, change logs).
bool may_hold_unnamed_states(const OperatorState& op);

}  // namespace ckpt
