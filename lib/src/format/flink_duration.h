// format/flink_duration.h - durations as Flink writes and reads them (TimeUtils.parseDuration):
// a compiled plan's state TTLs ("1 d", "3600000 ms", "0 ms") and configuration values ("30s").
#pragma once

#include <cstdint>
#include <string_view>

#include "ckpt/error.h"

namespace ckpt {

// Milliseconds of "<digits>[ ]<unit>", the unit one of TimeUtils' labels (d, day, h, hour, min,
// m, minute, s, sec, second, ms, milli, millisecond, µs, micro, ns, nano, plurals too; case
// ignored) or none for milliseconds; sub-millisecond parts are cut as Duration.toMillis does.
// kInvalidArgument naming the text for anything else, negative or beyond int64 milliseconds.
Result<int64_t> parse_flink_duration_ms(std::string_view text);

}  // namespace ckpt
