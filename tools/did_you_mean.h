// did_you_mean.h - the name a mistyped command or flag was most likely meant to be.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt::cli {

// The one name of `names` closest to `word` by edit distance (insertions, deletions,
// substitutions and swaps of neighbours), when close enough to be a slip of the fingers: at
// most a third of the word's letters (at least one). None when two names are equally close.
std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& names);

}  // namespace ckpt::cli
