// state/raw_timers_reader.h - timers that Flink wrote into raw keyed state (formats/keyed-state.md §12).
//
// Before timers became managed state (and later, for RocksDB with heap timers, in savepoints
// up to 1.12), InternalTimeServiceManager wrote every timer service into the operator's raw
// keyed state: per key group a post-versioned block (magic F1 CD 85 9F, version), then per
// service its name, key and namespace serializer snapshots and the event- and
// processing-time timers (key, namespace, plain i64 timestamp). Other raw keyed state is
// user-defined bytes and is skipped.
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/read_options.h"
#include "state/state_entry.h"
#include "state/state_stream.h"

namespace ckpt {

// Timers are reported as kind "timer" under "_timer_state/event_<service>" and
// "_timer_state/processing_<service>", the names managed timers have.
Status read_raw_timers(const KeyedHandle& handle, const StateStream& stream, const StateFilter& filter,
                       const EntrySink& sink, const ProblemSink& problems);

}  // namespace ckpt
