// A memory size on the command line (memory_size_arg.h).
#include "memory_size_arg.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace ckpt::cli {

Result<int64_t> parse_memory_size(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  std::string number = text.substr(0, i), unit = text.substr(i);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!unit.empty() && unit.back() == 'b' && unit.size() > 1) unit.pop_back();
  int shift = 0;
  if (unit == "" || unit == "b")
    shift = 0;
  else if (unit == "k")
    shift = 10;
  else if (unit == "m")
    shift = 20;
  else if (unit == "g")
    shift = 30;
  else if (unit == "t")
    shift = 40;
  else
    shift = -1;
  char* end = nullptr;
  double v = number.empty() ? -1 : std::strtod(number.c_str(), &end);
  if (shift < 0 || number.empty() || end != number.c_str() + number.size() || !(v > 0) ||
      v * std::ldexp(1.0, shift) > 9e18)
    return Error(ErrorCode::kInvalidArgument, "a size such as 512m, 4g or 2048 was expected, found '" + text + "'");
  return static_cast<int64_t>(v * std::ldexp(1.0, shift));
}

}  // namespace ckpt::cli
