// tools/ttl_args.h - the TTL vocabulary `ckpt edit` (--expire, --now) and `ckpt report`/`advise`
// (--ttl, --now) share: STATE=DURATION in Flink's duration syntax, times as ms since the epoch or
// ISO 8601 UTC.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "command.h"

namespace ckpt::cli {

// "LEFT<sep>RIGHT" split at the first `sep`, both sides non-empty; else an error naming `flag`.
std::optional<std::pair<std::string, std::string>> split_or_report(Io& io, const std::string& spec, char sep,
                                                                   const char* flag, const char* shape);

// Milliseconds since the epoch, given as such or as YYYY-MM-DDTHH:MM:SS[.mmm]Z (UTC).
std::optional<int64_t> parse_timestamp_ms(const std::string& text);

// Each STATE=DURATION of `specs` appended to `out` as (state, ms); false after printing an
// error naming `flag`.
bool parse_state_ttls(Io& io, const std::vector<std::string>& specs, const char* flag,
                      std::vector<std::pair<std::string, int64_t>>* out);

// --now TIMESTAMP into `out` (left unset when `text` is empty); false after printing an error.
bool parse_now(Io& io, const std::string& text, std::optional<int64_t>* out);

}  // namespace ckpt::cli
