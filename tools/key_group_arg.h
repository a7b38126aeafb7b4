// tools/key_group_arg.h - the "A" / "A-B" key-group range flags of dump and restore.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace ckpt::cli {

// "A" or "A-B" with 0 <= A <= B, decimal; false for anything else.
bool parse_key_group_range(const std::string& spec, std::pair<int32_t, int32_t>* out);

}  // namespace ckpt::cli
