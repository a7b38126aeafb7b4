// plan_parts: a linear partition of a snapshot's subtasks by bytes (ckpt/plan.h).
#include "ckpt/plan.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "format/state_bytes.h"

namespace ckpt {

namespace {

constexpr int32_t kMaxShards = 1'000'000;

std::optional<int32_t> parse_int(std::string_view s) {
  int32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// The parts a greedy cut from the front needs when no part may exceed `cap`.
int64_t parts_needed(const std::vector<PlanUnit>& units, uint64_t cap) {
  int64_t parts = 0;
  uint64_t sum = 0;
  bool open = false;
  for (const PlanUnit& u : units) {
    if (open && sum + u.bytes <= cap) {
      sum += u.bytes;
      continue;
    }
    ++parts;
    sum = u.bytes;
    open = true;
  }
  return parts;
}

}  // namespace

Result<ShardSpec> parse_shard(std::string_view text) {
  const size_t slash = text.find('/');
  std::optional<int32_t> k, n;
  if (slash != std::string_view::npos) {
    k = parse_int(text.substr(0, slash));
    n = parse_int(text.substr(slash + 1));
  }
  if (!k || !n || *n < 1 || *n > kMaxShards || *k < 0 || *k >= *n)
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("--shard: expected K/N with 0 <= K < N <= {} (parts numbered from 0), found '{}'",
                             kMaxShards, text));
  return ShardSpec{*k, *n};
}

bool Plan::owns(int32_t index, const OperatorState& op, int32_t subtask) const {
  auto it = part_of.find({&op, subtask});
  return it != part_of.end() && it->second == index;
}

Plan plan_parts(const Metadata& metadata, int32_t count) {
  Plan plan;
  count = std::max(count, 1);
  for (const OperatorState& op : metadata.operators) {
    std::vector<const SubtaskState*> subtasks;
    for (const SubtaskState& st : op.subtasks)
      if (!st.finished) subtasks.push_back(&st);
    std::stable_sort(subtasks.begin(), subtasks.end(),
                     [](const SubtaskState* a, const SubtaskState* b) { return a->index < b->index; });
    for (const SubtaskState* st : subtasks) {
      PlanUnit u{&op, st->index, subtask_state_bytes(*st)};
      plan.bytes += u.bytes;
      plan.largest_unit = std::max(plan.largest_unit, u.bytes);
      plan.units.push_back(u);
    }
  }
  // The smallest cap a greedy cut into at most `count` parts meets: it exists between the
  // largest unit (each unit alone) and the total (one part).
  uint64_t lo = plan.largest_unit, hi = std::max(plan.bytes, plan.largest_unit);
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (parts_needed(plan.units, mid) <= count)
      hi = mid;
    else
      lo = mid + 1;
  }
  const uint64_t cap = lo;
  size_t next = 0;
  for (int32_t k = 0; k < count; ++k) {
    PlanPart part;
    part.index = k;
    part.first = next;
    const size_t parts_after = static_cast<size_t>(count - k - 1);
    while (next < plan.units.size()) {
      const uint64_t b = plan.units[next].bytes;
      // Leave one unit for each later part while there are no more than that; never exceed
      // the cap, except with the first unit (which alone is within it).
      if (part.count > 0 && (plan.units.size() - next <= parts_after || part.bytes + b > cap)) break;
      part.bytes += b;
      ++part.count;
      plan.part_of[{plan.units[next].op, plan.units[next].subtask}] = k;
      ++next;
    }
    plan.parts.push_back(part);
  }
  return plan;
}

}  // namespace ckpt
