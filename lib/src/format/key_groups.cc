#include "format/key_groups.h"

#include <algorithm>

namespace ckpt {

int32_t flink_murmur_hash(int32_t code) {
  auto rotl = [](uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  uint32_t c = static_cast<uint32_t>(code);
  c *= 0xcc9e2d51u;
  c = rotl(c, 15);
  c *= 0x1b873593u;
  c = rotl(c, 13);
  c = c * 5 + 0xe6546b64u;
  c ^= 4;
  c ^= c >> 16;
  c *= 0x85ebca6bu;
  c ^= c >> 13;
  c *= 0xc2b2ae35u;
  c ^= c >> 16;
  auto v = static_cast<int32_t>(c);
  if (v >= 0) return v;
  if (v != INT32_MIN) return -v;
  return 0;
}

int32_t key_group_for_hash(int32_t java_hash, int32_t max_parallelism) {
  return max_parallelism > 0 ? flink_murmur_hash(java_hash) % max_parallelism : 0;
}

KeyGroupRange key_group_range_of_subtask(int32_t max_parallelism, int32_t parallelism, int32_t index) {
  const int64_t start = (int64_t{index} * max_parallelism + parallelism - 1) / parallelism;
  const int64_t end = ((int64_t{index} + 1) * max_parallelism - 1) / parallelism;
  return {static_cast<int32_t>(start), static_cast<int32_t>(end - start + 1)};
}

int32_t default_max_parallelism(int32_t parallelism) {
  int64_t want = int64_t{parallelism} + parallelism / 2, p = 1;
  while (p < want) p <<= 1;
  return static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(p, 128), 32768));
}

}  // namespace ckpt
