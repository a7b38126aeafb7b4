// ops/ttl_expiry.h - when a TTL value has expired, and which TTL a state has: what `ckpt edit
// --expire/--plan` drops and `ckpt advise`'s ttl rule counts, decided in one place.
//
// Flink's StateTtlConfig is not in a snapshot: a TTL state's values carry only their last-access
// timestamp (TtlStateFactory.TtlSerializer). The TTL itself comes from the user (STATE=DURATION)
// or from a compiled SQL plan, whose nodes give a TTL per input.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/metadata.h"
#include "ckpt/names.h"

namespace ckpt {

// TtlUtils.expired: last_access + ttl (capped at Long.MAX_VALUE) <= now.
bool ttl_expired(int64_t last_access, int64_t ttl, int64_t now);

// The TTL a SQL operator gives state `state` from its node's TTL per input: the one input's
// for a one-input node; for a two-input node (a join) input 0's for "left..." states and input
// 1's for "right..." ones. nullopt where the plan does not say (a state of neither side).
std::optional<int64_t> plan_state_ttl(const std::vector<int64_t>& ttl_per_input, std::string_view state);

// Per operator of `m` that `plan` (names from a compiled plan) names with a state TTL, its
// node's TTL per input. Errors (kInvalidArgument, naming `plan_file` and `flag`): the plan names
// no operator of `m` (a plan of another job).
Result<std::map<OperatorId, std::vector<int64_t>>> plan_ttls(const OperatorNames& plan, const Metadata& m,
                                                             const std::string& plan_file, std::string_view flag);

}  // namespace ckpt
