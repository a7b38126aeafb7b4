// ops/generate/generate_internal.h - pieces of `ckpt generate` shared by its single-snapshot and chain modes.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "ops/generate/generate_model.h"
#include "ops/rewrite/keyed_target.h"

namespace ckpt {

// The _metadata of a generated snapshot: handles[op][subtask] as managed keyed state.
Metadata generated_metadata(const GenerateModel& model, int64_t checkpoint_id,
                            const std::vector<std::vector<KeyedHandle>>& handles, const CheckpointProperties& p);

// A chain's schedule, shared by its writer and by generated_chain_delta() so that the truth
// the tests compare against is the schedule the files were written by. The key groups of a
// subtask are split into buckets [kg_begin, kg_end), one SST per state each; checkpoint c > 1
// rewrites a bucket (bumps its model version) when chain_rewrites() says so.
struct ChainBucket {
  int32_t kg_begin = 0, kg_end = 0;
};
std::vector<ChainBucket> chain_buckets(const GenerateOptions& o, int32_t sub);
uint64_t chain_salt(const GenerateOptions& o, int32_t op, int32_t sub);
bool chain_rewrites(const GenerateOptions& o, int32_t op, int32_t sub, int32_t bucket, int32_t checkpoint);

// `ckpt generate --chain`: chk-1 .. chk-N, shared/, taskowned/ (see ckpt/generate.h).
Result<GenerateSummary> generate_chain(const GenerateModel& model);

}  // namespace ckpt
