// tools/ttl_args.cc - STATE=DURATION and --now, as edit, report and advise take them.
#include "ttl_args.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include <fmt/format.h>

#include "ckpt/edit.h"

namespace ckpt::cli {

// "LEFT<sep>RIGHT" split at the first `sep`, both sides non-empty; else an error naming `flag`.
std::optional<std::pair<std::string, std::string>> split_or_report(Io& io, const std::string& spec, char sep,
                                                                   const char* flag, const char* shape) {
  size_t at = spec.find(sep);
  if (at == std::string::npos || at == 0 || at + 1 == spec.size()) {
    print_error(io, fmt::format("{}: '{}' is not {}", flag, spec, shape));
    return std::nullopt;
  }
  return std::make_pair(spec.substr(0, at), spec.substr(at + 1));
}

// Milliseconds since the epoch, given as such or as YYYY-MM-DDTHH:MM:SS[.mmm]Z (UTC).
std::optional<int64_t> parse_timestamp_ms(const std::string& text) {
  if (!text.empty() && text.size() <= 18 && std::all_of(text.begin(), text.end(), ::isdigit)) return std::stoll(text);
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0, used = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &used) != 6) return std::nullopt;
  std::string rest = text.substr(static_cast<size_t>(used));
  if (rest.size() == 5 && rest[0] == '.' && rest[4] == 'Z' && std::isdigit(rest[1]) && std::isdigit(rest[2]) &&
      std::isdigit(rest[3]))
    ms = std::stoi(rest.substr(1, 3));
  else if (rest != "Z")
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
  const int yy = y - (mo <= 2);
  const int era = (yy >= 0 ? yy : yy - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(yy - era * 400);
  const unsigned doy = (153 * static_cast<unsigned>(mo + (mo > 2 ? -3 : 9)) + 2) / 5 + static_cast<unsigned>(d) - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const int64_t days = static_cast<int64_t>(era) * 146097 + static_cast<int64_t>(doe) - 719468;
  return ((days * 24 + h) * 60 + mi) * 60'000 + s * 1000LL + ms;
}

bool parse_state_ttls(Io& io, const std::vector<std::string>& specs, const char* flag,
                      std::vector<std::pair<std::string, int64_t>>* out) {
  for (const std::string& spec : specs) {
    auto pair = split_or_report(io, spec, '=', flag, "STATE=DURATION");
    if (!pair) return false;
    Result<int64_t> ms = parse_ttl_duration(pair->second);
    if (!ms.ok()) {
      print_error(io, std::string(flag) + ": " + ms.error().message);
      return false;
    }
    out->emplace_back(pair->first, *ms);
  }
  return true;
}

bool parse_now(Io& io, const std::string& text, std::optional<int64_t>* out) {
  if (text.empty()) return true;
  *out = parse_timestamp_ms(text);
  if (*out) return true;
  print_error(io, fmt::format("--now: '{}' is not ms since the epoch or YYYY-MM-DDTHH:MM:SS[.mmm]Z", text));
  return false;
}

}  // namespace ckpt::cli
