// When TTL values expire (TtlUtils.expired), and the TTLs a compiled SQL plan gives.
#include "ops/ttl_expiry.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace ckpt {

bool ttl_expired(int64_t last_access, int64_t ttl, int64_t now) {
  const int64_t room = last_access > 0 ? std::min(std::numeric_limits<int64_t>::max() - last_access, ttl) : ttl;
  return last_access + room <= now;
}

std::optional<int64_t> plan_state_ttl(const std::vector<int64_t>& ttl_per_input, std::string_view state) {
  if (ttl_per_input.size() == 1) return ttl_per_input[0];
  if (ttl_per_input.size() == 2) {
    if (state.starts_with("left")) return ttl_per_input[0];
    if (state.starts_with("right")) return ttl_per_input[1];
  }
  return std::nullopt;
}

Result<std::map<OperatorId, std::vector<int64_t>>> plan_ttls(const OperatorNames& plan, const Metadata& m,
                                                             const std::string& plan_file, std::string_view flag) {
  // The plan's TTLs reach the operators it names; a plan of another job names none.
  std::map<OperatorId, std::vector<int64_t>> ttls;
  bool named = false;
  for (const OperatorState& op : m.operators)
    if (const OperatorName* n = plan.find(op.id); n && n->plan_node >= 0) {
      named = true;
      if (!n->state_ttls_ms.empty()) ttls.emplace(op.id, n->state_ttls_ms);
    }
  if (!named)
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{}: '{}' names no operator of the snapshot (a plan of another job?)", flag, plan_file));
  return ttls;
}

}  // namespace ckpt
