// tools/written_counts.h - the counts convert and edit print for what they wrote.
#pragma once

#include <string>

#include "ckpt/convert.h"

namespace ckpt::cli {

// "2 subtasks, 40 entries, 7 files, 12345 bytes" (singular for one).
std::string written_counts(const ConvertSummary& s);

}  // namespace ckpt::cli
