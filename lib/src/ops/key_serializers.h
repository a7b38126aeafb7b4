// ops/key_serializers.h - key serializers taken from another snapshot of the same job.
//
// A changelog-backend handle without a materialized part or timers stores no key serializer
// (Flink takes it from the job), so writing its state for another backend needs one from a
// snapshot of the same job: `convert` and `restore` take it with --key-serializers-from.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/resolve.h"
#include "types/serializer_snapshot.h"

namespace ckpt {

// Per operator id (32 hex digits), the first key serializer a keyed proxy of `snapshot` names.
// Operators whose handles name none are absent.
Result<std::map<std::string, SerializerSnapshot>> key_serializers_of(const std::string& snapshot,
                                                                     const std::vector<PrefixRule>& remap);

}  // namespace ckpt
