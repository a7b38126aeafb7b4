#include "format/flink_duration.h"

#include <cctype>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace ckpt {

namespace {

struct Unit {
  const char* label;
  int64_t numerator;  // milliseconds = n * numerator / denominator
  int64_t denominator;
};

// TimeUtils.TimeUnit's labels, singular and plural.
constexpr Unit kUnits[] = {
    {"d", 86'400'000, 1},     {"day", 86'400'000, 1},  {"days", 86'400'000, 1},   {"h", 3'600'000, 1},
    {"hour", 3'600'000, 1},   {"hours", 3'600'000, 1}, {"min", 60'000, 1},        {"m", 60'000, 1},
    {"minute", 60'000, 1},    {"minutes", 60'000, 1},  {"s", 1000, 1},            {"sec", 1000, 1},
    {"secs", 1000, 1},        {"second", 1000, 1},     {"seconds", 1000, 1},      {"ms", 1, 1},
    {"milli", 1, 1},          {"millis", 1, 1},        {"millisecond", 1, 1},     {"milliseconds", 1, 1},
    {"\xC2\xB5s", 1, 1000},   {"micro", 1, 1000},      {"micros", 1, 1000},       {"microsecond", 1, 1000},
    {"microseconds", 1, 1000}, {"ns", 1, 1'000'000},   {"nano", 1, 1'000'000},    {"nanos", 1, 1'000'000},
    {"nanosecond", 1, 1'000'000}, {"nanoseconds", 1, 1'000'000}};

}  // namespace

Result<int64_t> parse_flink_duration_ms(std::string_view text) {
  auto bad = [&](const char* why) {
    return Error(ErrorCode::kInvalidArgument, fmt::format("'{}' is not a duration ({}; e.g. 500 ms, 30 s, 15 min, "
                                                          "12 h, 7 d)",
                                                          text, why));
  };
  size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  size_t digits = i;
  int64_t n = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (n > (std::numeric_limits<int64_t>::max() - 9) / 10) return bad("too large");
    n = n * 10 + (text[i++] - '0');
  }
  if (i == digits) return bad("no number first");
  while (i < text.size() && text[i] == ' ') ++i;
  std::string unit;
  for (; i < text.size(); ++i) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  while (!unit.empty() && unit.back() == ' ') unit.pop_back();
  if (unit.empty()) return n;
  for (const Unit& u : kUnits) {
    if (unit != u.label) continue;
    if (n > std::numeric_limits<int64_t>::max() / u.numerator) return bad("too large");
    return n * u.numerator / u.denominator;
  }
  return bad("unknown unit");
}

}  // namespace ckpt
