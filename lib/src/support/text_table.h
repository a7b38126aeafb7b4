// support/text_table.h - rows of cells printed as aligned columns, for the text renderers.
#pragma once

#include <string>
#include <vector>

namespace ckpt {

// `rows` (the first is the header) as lines of columns each as wide as its widest cell, two
// spaces apart; a column whose `right_aligned` entry is true is padded on the left (numbers).
// The last column is not padded and no line ends in blanks. Cells are printed as given: pass
// text from input through printable() first.
std::string aligned_table(const std::vector<std::vector<std::string>>& rows,
                          const std::vector<bool>& right_aligned = {});

}  // namespace ckpt
