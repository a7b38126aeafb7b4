// KeyGroupSpill: pairs come back key group by key group, ascending, sorted by key or in the
// order they were added, whether they fit one run in memory or are merged from several.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ops/key_group_spill.h"
#include "state/layout_transcoder.h"

using namespace ckpt;

namespace {

// key group -> state -> keys, as produced.
using Produced = std::map<int32_t, std::vector<std::vector<std::string>>>;

Produced produce(KeyGroupSpill& spill, int32_t subtask, size_t states) {
  Produced out;
  int32_t previous = -1;
  Status s = spill.produce(subtask, states, [&](int32_t kg, std::vector<std::vector<RocksPair>>& by_state) -> Status {
    CHECK(kg > previous);
    previous = kg;
    auto& keys = out[kg];
    keys.resize(by_state.size());
    for (size_t i = 0; i < by_state.size(); ++i)
      for (const RocksPair& p : by_state[i]) {
        CHECK(p.value == "v" + p.key);
        keys[i].push_back(p.key);
      }
    return Status::OK();
  });
  REQUIRE(s.ok());
  return out;
}

}  // namespace

TEST_CASE("spilled pairs come back by key group in the order added or sorted - in one run or merged from many", "[ops]") {
  const std::vector<KeyGroupRange> ranges = {{0, 8}, {8, 8}};
  // 64 MiB: read and sorted whole; 256: sorted runs merged; 2400: the file (2300 bytes) fits
  // a run but its records' slots do not, so it is read back in runs after all.
  for (size_t run_bytes : {size_t{64} << 20, size_t{256}, size_t{2400}}) {
    for (bool sorted : {false, true}) {
      INFO("run bytes " << run_bytes << ", sorted " << sorted);
      auto spill = KeyGroupSpill::make(ranges, 0, sorted, run_bytes);
      REQUIRE(spill.ok());
      // Keys added in descending order, interleaved across key groups and states.
      Produced want;
      for (int k = 99; k >= 0; --k) {
        const int32_t kg = 8 + k % 8;
        const uint32_t state = static_cast<uint32_t>(k % 3);
        const std::string key = fmt::format("{:03}", k);
        REQUIRE((*spill)->add(1, kg, state, key, "v" + key).ok());
        auto& keys = want[kg];
        keys.resize(3);
        keys[state].push_back(key);
      }
      if (sorted)
        for (auto& [kg, keys] : want)
          for (auto& k : keys) std::sort(k.begin(), k.end());
      CHECK(produce(**spill, 1, 3) == want);
      CHECK(produce(**spill, 0, 3).empty());
      CHECK_FALSE((*spill)->add(0, 9, 0, "x", "vx").ok());  // key group 9 is subtask 1's
      // Read back once: its files are gone, so a second reading or a later pair is refused.
      CHECK_FALSE((*spill)->produce(1, 3, [](int32_t, std::vector<std::vector<RocksPair>>&) { return Status::OK(); }).ok());
      CHECK_FALSE((*spill)->add(1, 9, 0, "x", "vx").ok());
    }
  }
}
