// tests/testlib/stream_handles.h - stream handles for metadata built by hand.
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/metadata.h"

namespace ckpt::test {

// A file handle (type 2): synthetic snapshots name their files by URI, with the size Flink
// would have recorded.
StreamHandle file_handle(const std::string& uri, int64_t size);

}  // namespace ckpt::test
