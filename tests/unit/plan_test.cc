// plan_parts (ckpt/plan.h): every subtask in exactly one part, parts contiguous in dump order,
// the largest part as small as any contiguous cut allows; parse_shard's K/N.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <random>

#include "ckpt/plan.h"

namespace {

using namespace ckpt;

// Operators whose subtasks hold one operator-state file of the given sizes each (subtasks
// stored in reverse, a finished one among them: the plan sorts by index and leaves it out).
Metadata snapshot_of(const std::vector<std::vector<int64_t>>& sizes) {
  Metadata m;
  for (size_t o = 0; o < sizes.size(); ++o) {
    OperatorState op;
    op.id[15] = static_cast<uint8_t>(o + 1);
    for (size_t i = sizes[o].size(); i-- > 0;) {
      SubtaskState st;
      st.index = static_cast<int32_t>(i);
      OperatorHandle h;
      h.type = handle_type::kPartitionableOperator;
      h.delegate.type = handle_type::kRelativeFile;
      h.delegate.path = "f";
      h.delegate.size = sizes[o][i];
      st.managed_operator.push_back(h);
      op.subtasks.push_back(st);
    }
    SubtaskState finished;
    finished.index = static_cast<int32_t>(sizes[o].size());
    finished.finished = true;
    op.subtasks.push_back(finished);
    m.operators.push_back(op);
  }
  return m;
}

// The smallest largest part of any cut of `w` into at most `n` contiguous runs (exhaustive).
uint64_t best_cut(const std::vector<uint64_t>& w, int n) {
  const size_t u = w.size();
  std::vector<std::vector<uint64_t>> best(static_cast<size_t>(n) + 1,
                                          std::vector<uint64_t>(u + 1, std::numeric_limits<uint64_t>::max()));
  best[0][0] = 0;
  for (int k = 1; k <= n; ++k)
    for (size_t j = 0; j <= u; ++j)
      for (size_t i = 0; i <= j; ++i) {
        if (best[k - 1][i] == std::numeric_limits<uint64_t>::max()) continue;
        uint64_t sum = 0;
        for (size_t x = i; x < j; ++x) sum += w[x];
        best[k][j] = std::min(best[k][j], std::max(best[k - 1][i], sum));
      }
  return best[n][u];
}

}  // namespace

TEST_CASE("plan_parts cuts the subtasks into contiguous runs with the smallest largest part", "[ops]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 60; ++round) {
    std::vector<std::vector<int64_t>> sizes(1 + rng() % 4);
    for (auto& op : sizes) {
      op.resize(1 + rng() % 5);
      // Skewed: a few large subtasks among small ones, and empty ones.
      for (int64_t& s : op)
        s = rng() % 3 == 0 ? static_cast<int64_t>(rng() % 100000) : static_cast<int64_t>(rng() % 50);
    }
    const Metadata m = snapshot_of(sizes);
    std::vector<uint64_t> weights;
    for (const auto& op : sizes)
      for (int64_t s : op) weights.push_back(static_cast<uint64_t>(s));
    for (int n : {1, 2, 3, 7, 25}) {
      INFO("round " << round << ", " << n << " parts");
      const Plan plan = plan_parts(m, n);
      REQUIRE(plan.parts.size() == static_cast<size_t>(n));
      REQUIRE(plan.units.size() == weights.size());
      // Dump order: operators in file order, subtasks ascending.
      size_t at = 0;
      for (size_t o = 0; o < sizes.size(); ++o)
        for (size_t i = 0; i < sizes[o].size(); ++i, ++at) {
          CHECK(plan.units[at].op == &m.operators[o]);
          CHECK(plan.units[at].subtask == static_cast<int32_t>(i));
          CHECK(plan.units[at].bytes == weights[at]);
        }
      // The parts tile the units in order, each unit owned by its part alone.
      size_t next = 0;
      uint64_t largest = 0, total = 0;
      for (const PlanPart& p : plan.parts) {
        CHECK(p.first == next);
        uint64_t sum = 0;
        for (size_t i = p.first; i < p.first + p.count; ++i) {
          sum += weights[i];
          for (int k = 0; k < n; ++k) CHECK(plan.owns(k, *plan.units[i].op, plan.units[i].subtask) == (k == p.index));
        }
        CHECK(p.bytes == sum);
        next += p.count;
        largest = std::max(largest, sum);
        total += sum;
        // Empty parts only once the subtasks have run out.
        if (weights.size() >= static_cast<size_t>(n)) CHECK(p.count > 0);
      }
      CHECK(next == weights.size());
      CHECK(total == plan.bytes);
      CHECK(largest == best_cut(weights, n));
      CHECK(largest <= plan.bytes / static_cast<uint64_t>(n) + plan.largest_unit);
      // Finished subtasks belong to no part.
      for (const OperatorState& op : m.operators)
        for (int k = 0; k < n; ++k) CHECK_FALSE(plan.owns(k, op, op.subtasks.back().index));
    }
  }
}

TEST_CASE("plan_parts of a snapshot without subtasks gives N empty parts", "[ops]") {
  const Plan plan = plan_parts(Metadata{}, 4);
  REQUIRE(plan.parts.size() == 4);
  for (const PlanPart& p : plan.parts) CHECK(p.count == 0);
  CHECK(plan.bytes == 0);
}

TEST_CASE("parse_shard reads K/N from 0 and refuses anything else", "[ops]") {
  Result<ShardSpec> s = parse_shard("0/1");
  REQUIRE(s.ok());
  CHECK(s->index == 0);
  CHECK(s->count == 1);
  s = parse_shard("6/7");
  REQUIRE(s.ok());
  CHECK(s->index == 6);
  CHECK(s->count == 7);
  for (const char* bad : {"", "1", "1/1", "7/7", "-1/3", "1/0", "0/-2", "a/b", "1/2x", " 1/2", "1/2/3", "0/1000001"}) {
    INFO(bad);
    Result<ShardSpec> r = parse_shard(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::kInvalidArgument);
    CHECK(r.error().message.find("K/N") != std::string::npos);
  }
}
