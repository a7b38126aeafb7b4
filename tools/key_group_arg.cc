// Parsing of key-group range flags, shared by the subcommands that take one.
#include "key_group_arg.h"

#include <charconv>
#include <string_view>

namespace ckpt::cli {

namespace {
bool parse_int(std::string_view s, int32_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= 0;
}
}  // namespace

bool parse_key_group_range(const std::string& spec, std::pair<int32_t, int32_t>* out) {
  size_t dash = spec.find('-');
  if (dash == std::string::npos) {
    if (!parse_int(spec, &out->first)) return false;
    out->second = out->first;
    return true;
  }
  return parse_int(std::string_view(spec).substr(0, dash), &out->first) &&
         parse_int(std::string_view(spec).substr(dash + 1), &out->second) && out->first <= out->second;
}

}  // namespace ckpt::cli
