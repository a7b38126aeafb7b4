// ops/verify/verify_deep.h - what `ckpt verify --deep` adds to the quick checks (ops/engine/snapshot_checks.h).
#pragma once

#include <string>
#include <unordered_set>

#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "ckpt/verify.h"

namespace ckpt {

// Deep: decode every stream, checksum every SST, check every SST's key groups.
void check_deep(const Metadata& m, const SnapshotLocation& where, const VerifyOptions& options,
                const std::unordered_set<std::string>& faulty, VerifyReport& report);

}  // namespace ckpt
