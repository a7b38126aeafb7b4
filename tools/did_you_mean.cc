#include "did_you_mean.h"

#include <algorithm>

namespace ckpt::cli {

namespace {

// Optimal string alignment distance: Levenshtein with a swap of neighbours counted once.
size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& names) {
  // A word of the command line is short; a long one is no slip of the fingers (and its table
  // would be needlessly large).
  if (word.empty() || word.size() > 64) return std::nullopt;
  const size_t allowed = std::max<size_t>(1, word.size() / 3);
  std::optional<std::string> best;
  size_t best_distance = allowed + 1;
  bool tie = false;
  for (const std::string& name : names) {
    if (name.size() > word.size() + allowed || name.size() + allowed < word.size()) continue;
    const size_t d = distance(word, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
      tie = false;
    } else if (d == best_distance && best && *best != name) {
      tie = true;
    }
  }
  if (tie) return std::nullopt;
  return best;
}

}  // namespace ckpt::cli
