// tools/memory_size_arg.h - a memory size on the command line (--tm-memory, --cache-size), in
// the units Flink's configuration takes.
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/error.h"

namespace ckpt::cli {

// "512m", "4g", "1.5gb", "2048" (bytes); 1024-based. kInvalidArgument otherwise.
Result<int64_t> parse_memory_size(const std::string& text);

}  // namespace ckpt::cli
