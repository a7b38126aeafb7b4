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
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/read_options.h"
#include "state/state_entry.h"
#include "state/state_stream.h"
#include "types/value_decoder.h"

namespace ckpt {

// The state a service's event-time (list 0) or processing-time (list 1) timers are reported
// under: "_timer_state/event_<service>", "_timer_state/processing_<service>", the names managed
// timers have.
std::string raw_timer_state(int list, std::string_view service);
// The list and service of such a state name, or nullopt.
std::optional<std::pair<int, std::string>> raw_timer_service_of(std::string_view state);

// Timers are reported as kind "timer" under raw_timer_state()'s names.
Status read_raw_timers(const KeyedHandle& handle, const StateStream& stream, const StateFilter& filter,
                       const EntrySink& sink, const ProblemSink& problems);

// One key group's timer block as bytes, for edits that move timers to other key groups (their
// keys decide where: edit --max-parallelism). Each service keeps its name and serializer
// snapshots as stored (`head`), each timer its bytes (key, namespace, timestamp) and its key's
// Java hashCode (nullopt where the key type's is not known).
struct RawTimer {
  std::string bytes;
  std::optional<int32_t> key_hash;
};
struct RawTimerService {
  std::string head;
  std::vector<RawTimer> timers[2];  // event time, then processing time, as stored
};
// InternalTimersSnapshotReaderWriters.NO_VERSION: Flink 1.2-1.4.0 wrote key groups' timers
// without the magic and version (formats/keyed-state.md §12).
inline constexpr int32_t kTimersNoVersion = INT32_MIN;
struct RawTimerBlock {
  int32_t version = 0;  // 1, 2 or kTimersNoVersion
  std::vector<RawTimerService> services;
};

// Every key group's timer block of a raw keyed handle, in stream order; key groups without
// bytes are skipped. Other raw keyed state (user bytes, no timer block's magic) is an error
// (kNotSupported): nothing says which keys its bytes belong to.
Status read_raw_timer_blocks(const KeyedHandle& handle, const StateStream& stream,
                             const std::function<Status(int32_t key_group, RawTimerBlock&& block)>& fn);

// The service a head (RawTimerService::head) describes: its name and the decoders of its key
// and namespace serializers (for writing timers: encode() writes what Flink's serializers write).
struct RawTimerServiceCodec {
  std::string name;
  std::unique_ptr<ValueDecoder> key;
  std::unique_ptr<ValueDecoder> ns;
};
Result<RawTimerServiceCodec> raw_timer_service_codec(std::string_view head, int32_t version);

// A key group's block as InternalTimerServiceSerializationProxy writes it.
std::string write_raw_timer_block(const RawTimerBlock& block);

}  // namespace ckpt
