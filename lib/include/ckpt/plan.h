// ckpt/plan.h - a snapshot's work cut into N parts for any job runner.
//
// A snapshot beyond one machine is read, verified, restored, converted or edited in parts: the
// K-th of N runs of a Kubernetes Indexed Job, a Slurm or Spark array or GNU parallel each take
// one part, and ckpt has no scheduler of its own. A part is a set of whole subtasks (the unit
// every operation reads with one worker), balanced by the bytes of state their handles point
// to as `_metadata` declares them.
//
// The parts are contiguous runs of the subtasks in the order `ckpt dump` prints them (operators
// in file order, subtasks ascending, finished subtasks left out), so the outputs of the parts,
// concatenated in part order, are the output of one run, byte for byte. Among such cuts the plan
// has the smallest largest part (a linear partition: a binary search over that size, then the
// cut made greedily from the front, each part keeping at least one subtask while there are as
// many left as parts). Its largest part is therefore at most total/N + the largest subtask;
// parts beyond the number of subtasks are empty. The plan depends on `_metadata` and N alone:
// every part computes the same one without talking to the others.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"

namespace ckpt {

// Part `index` of `count`, numbered from 0 as a Kubernetes Indexed Job's JOB_COMPLETION_INDEX.
struct CKPT_API ShardSpec {
  int32_t index = 0;
  int32_t count = 1;
};

// "K/N" with 0 <= K < N (and N at most 1,000,000); kInvalidArgument saying what was expected.
CKPT_API Result<ShardSpec> parse_shard(std::string_view text);

struct CKPT_API PlanUnit {
  const OperatorState* op = nullptr;  // into the Metadata planned
  int32_t subtask = 0;
  uint64_t bytes = 0;  // the state the subtask's handles point to
};

struct CKPT_API PlanPart {
  int32_t index = 0;
  size_t first = 0;  // its units: Plan::units[first, first + count)
  size_t count = 0;
  uint64_t bytes = 0;
};

struct CKPT_API Plan {
  std::vector<PlanUnit> units;  // in dump order
  std::vector<PlanPart> parts;  // `count` of them, in order
  uint64_t bytes = 0;           // of every unit
  uint64_t largest_unit = 0;
  // Whether subtask `subtask` of `op` (an operator of the Metadata planned) is in part `index`.
  bool owns(int32_t index, const OperatorState& op, int32_t subtask) const;
  // The part of each (operator, subtask) unit.
  std::map<std::pair<const OperatorState*, int32_t>, int32_t> part_of;
};

// The units of `metadata` cut into `count` parts (count >= 1). The plan points into `metadata`.
CKPT_API Plan plan_parts(const Metadata& metadata, int32_t count);

}  // namespace ckpt
