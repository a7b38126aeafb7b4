// ops/generate_internal.h - pieces of `ckpt generate` shared by its single-snapshot and chain modes.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "ops/generate_model.h"
#include "ops/keyed_target.h"

namespace ckpt {

// The _metadata of a generated snapshot: handles[op][subtask] as managed keyed state.
Metadata generated_metadata(const GenerateModel& model, int64_t checkpoint_id,
                            const std::vector<std::vector<KeyedHandle>>& handles, const CheckpointProperties& p);

// `ckpt generate --chain`: chk-1 .. chk-N, shared/, taskowned/ (see ckpt/generate.h).
Result<GenerateSummary> generate_chain(const GenerateModel& model);

}  // namespace ckpt
