// aligned_table(): the text renderers' one way to line up columns (support/text_table.h).
#include "support/text_table.h"

#include <algorithm>

namespace ckpt {
namespace {

// Columns are measured in code points, so that a UTF-8 name does not push its row out of line.
size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string aligned_table(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right_aligned) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (row.size() > width.size()) width.resize(row.size());
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], display_width(row[i]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const bool last = i + 1 == row.size();
      const size_t pad = width[i] - display_width(row[i]);
      const bool right = i < right_aligned.size() && right_aligned[i];
      if (right) line.append(pad, ' ');
      line += row[i];
      if (!right && !last) line.append(pad, ' ');
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace ckpt
