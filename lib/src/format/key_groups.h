// format/key_groups.h - Flink's KeyGroupRangeAssignment: which key group a key hash falls in,
// which key groups a subtask owns, the default max parallelism. One copy, below every verb that
// splits state by key group (edit, load, generate, the layout checks), so they cannot drift apart.
#pragma once

#include <cstdint>

#include "ckpt/metadata.h"

namespace ckpt {

// Flink's MathUtils.murmurHash(int): one murmur3 round + fmix32, made non-negative.
int32_t flink_murmur_hash(int32_t code);
// KeyGroupRangeAssignment.computeKeyGroupForKeyHash; 0 when max_parallelism <= 0.
int32_t key_group_for_hash(int32_t java_hash, int32_t max_parallelism);
// KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex: the range subtask `index` of
// `parallelism` owns. The arithmetic is in 64 bits: index * 32768 overflows nothing.
KeyGroupRange key_group_range_of_subtask(int32_t max_parallelism, int32_t parallelism, int32_t index);
// KeyGroupRangeAssignment.computeDefaultMaxParallelism: 1.5 x parallelism rounded up to a power
// of two, at least 128, at most 32768.
int32_t default_max_parallelism(int32_t parallelism);

}  // namespace ckpt
