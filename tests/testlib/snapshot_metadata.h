// tests/testlib/snapshot_metadata.h - a snapshot's `_metadata` read where a test cannot go on
// without it.
#pragma once

#include <string>

#include "ckpt/metadata.h"

namespace ckpt::test {

// The metadata of the snapshot `dir`; REQUIREs that it reads, naming `dir` on failure.
Metadata metadata_of(const std::string& dir);

}  // namespace ckpt::test
