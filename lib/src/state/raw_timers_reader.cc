// Legacy timer snapshots in raw keyed state (InternalTimerServiceSerializationProxy, v1-v2):
// read as entries, or as blocks of bytes to move between key groups and write back.
#include "state/raw_timers_reader.h"

#include <algorithm>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "format/java/java_object_stream.h"
#include "state/legacy_backend_meta.h"
#include "support/byte_writer.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"

namespace ckpt {
namespace {

constexpr uint32_t kPostVersionedMagic = 0xF1CD859F;
constexpr std::string_view kEventTimers = "_timer_state/event_";
constexpr std::string_view kProcessingTimers = "_timer_state/processing_";

// One timer at r's position, consumed: what it is for a reader of the block.
using TimerFn =
    std::function<Status(size_t service, int list, ByteReader& r, const ValueDecoder& key, const ValueDecoder& ns)>;
// A service's head (name and serializer snapshots, as stored) and its name.
using ServiceFn = std::function<Status(std::string_view head, const std::string& name)>;

// The Java-serialized serializer at r's position, as a legacy snapshot.
Result<SerializerSnapshot> java_serializer_at(ByteReader& r) {
  const size_t start = r.position();
  const uint64_t at = r.offset();
  auto object = java::read_object_stream(r);
  if (!object.ok()) return std::move(object).error().with_context("Java-serialized timer serializer");
  return legacy_serializer_snapshot(r.since(start), at);
}

// Whether a key group's bytes without the magic are Flink 1.2-1.4.0's timers (InternalTimeServiceManager
// before versioning): a plausible service count, a service name, then a Java object stream.
bool pre_versioned_timers(std::string_view data) {
  ByteReader r(data, 0);
  int32_t services = r.i32();
  // AbstractStreamOperator.snapshotState wrote the count into every key group, 0 included: a
  // keyed operator without timers leaves exactly these 4 bytes.
  if (r.ok() && services == 0 && r.at_end()) return true;
  if (!r.ok() || services < 1 || services > 1024) return false;
  std::string name = r.utf();
  return r.ok() && !name.empty() && r.remaining() >= 4 && r.u16() == java::kStreamMagic &&
         r.u16() == java::kStreamVersion;
}

// A service's head at r's position: its name, then its key and namespace serializers, as
// `version` writes them, made into decoders that can delimit timers.
Status read_service_head(ByteReader& r, int32_t version, RawTimerServiceCodec* out) {
  out->name = r.utf();
  if (!r.ok()) return r.take_error();
  // Version 1 (Flink 1.4.1-1.5, InternalTimersSnapshotWriterV1): the key and namespace
  // serializers Java-serialized with their config snapshots, in one resilient block; version
  // 2 their TypeSerializerSnapshots.
  std::vector<SerializerSnapshot> serializers;
  if (version == kTimersNoVersion) {
    // Flink 1.2-1.4.0 (InternalTimersSnapshotWriterPreVersioned): the two serializers alone.
    for (int i = 0; i < 2; ++i) {
      CKPT_ASSIGN_OR_RETURN(SerializerSnapshot s, java_serializer_at(r));
      serializers.push_back(std::move(s));
    }
  } else if (version == 1) {
    CKPT_ASSIGN_OR_RETURN(serializers, read_serializers_and_configs(r, 2, "a timer service's serializers"));
  } else {
    for (int i = 0; i < 2; ++i) {
      auto s = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
      if (!s.ok()) return std::move(s).error();
      serializers.push_back(std::move(s).value());
    }
  }
  CKPT_ASSIGN_OR_RETURN(out->key, make_decoder(serializers[0]));
  CKPT_ASSIGN_OR_RETURN(out->ns, make_decoder(serializers[1]));
  if (!out->key->decodable() || !out->ns->decodable())
    return Error(ErrorCode::kNotSupported,
                 fmt::format("timers of service '{}' cannot be delimited without the job's classes", out->name),
                 r.offset());
  return Status::OK();
}

// One key group's block after its magic (or from its start, kTimersNoVersion): the services,
// each with its event- and processing-time timers (list 0 and 1).
Status walk_block(ByteReader& r, bool pre_versioned, int32_t* version_out, const ServiceFn& on_service,
                  const TimerFn& on_timer) {
  int32_t version = pre_versioned ? kTimersNoVersion : r.i32();
  int32_t services = r.count(4, "timer service");
  if (!r.ok()) return r.take_error();
  if (version != 1 && version != 2 && version != kTimersNoVersion)
    return Error(ErrorCode::kNotSupported, fmt::format("timer snapshot version {} (expected 1 or 2)", version),
                 r.offset() - 8);
  if (version_out) *version_out = version;
  for (int32_t s = 0; s < services; ++s) {
    const size_t head = r.position();
    RawTimerServiceCodec codec;
    CKPT_RETURN_IF_ERROR(read_service_head(r, version, &codec));
    CKPT_RETURN_IF_ERROR(on_service(r.since(head), codec.name));
    for (int list = 0; list < 2; ++list) {
      int32_t n = r.count(1, "timer");
      if (!r.ok()) return r.take_error();
      for (int32_t i = 0; i < n; ++i) {
        CKPT_RETURN_IF_ERROR(on_timer(static_cast<size_t>(s), list, r, *codec.key, *codec.ns));
        if (!r.ok()) return r.take_error();
      }
    }
  }
  return Status::OK();
}

// fn(key group, reader after the block's magic) for each key group with bytes, in stream
// order; `other(key group, reader)` for one whose bytes are not a timer block. An error of fn,
// other or the read goes to `failed` (with the key group named), whose error ends the walk.
Status for_each_block(const KeyedHandle& handle, const StateStream& stream, const std::function<bool(int32_t)>& wanted,
                      const std::function<Status(int32_t, ByteReader&, bool pre_versioned)>& fn,
                      const std::function<Status(int32_t, ByteReader&)>& other, const ProblemSink& failed) {
  // Key groups nothing was written for keep offset -1 (KeyedStateCheckpointOutputStream).
  std::vector<std::pair<uint64_t, int32_t>> starts;
  for (size_t i = 0; i < handle.offsets.size(); ++i)
    if (handle.offsets[i] >= 0 && static_cast<uint64_t>(handle.offsets[i]) < stream.size())
      starts.emplace_back(static_cast<uint64_t>(handle.offsets[i]), handle.range.first + static_cast<int32_t>(i));
  std::sort(starts.begin(), starts.end());
  std::string data;
  for (size_t i = 0; i < starts.size(); ++i) {
    auto [start, kg] = starts[i];
    if (!wanted(kg)) continue;
    uint64_t end = stream.size();
    for (size_t j = i + 1; j < starts.size(); ++j)
      if (starts[j].first > start) {
        end = starts[j].first;
        break;
      }
    Status s = stream.read(start, end - start, &data);
    if (s.ok()) {
      ByteReader r(data, stream.base() + start);
      if (data.size() >= 4 && r.u32() == kPostVersionedMagic) {
        s = fn(kg, r, false);
      } else {
        ByteReader whole(data, stream.base() + start);
        s = pre_versioned_timers(data) ? fn(kg, whole, true) : other(kg, whole);
      }
    }
    if (!s.ok())
      CKPT_RETURN_IF_ERROR(
          failed(std::move(s).error().with_context(fmt::format("raw keyed timers, key group {}", kg))));
  }
  return Status::OK();
}

}  // namespace

std::string raw_timer_state(int list, std::string_view service) {
  return std::string(list == 0 ? kEventTimers : kProcessingTimers) + std::string(service);
}

std::optional<std::pair<int, std::string>> raw_timer_service_of(std::string_view state) {
  for (int list = 0; list < 2; ++list) {
    const std::string_view prefix = list == 0 ? kEventTimers : kProcessingTimers;
    if (state.substr(0, prefix.size()) == prefix) return std::make_pair(list, std::string(state.substr(prefix.size())));
  }
  return std::nullopt;
}

Status read_raw_timers(const KeyedHandle& handle, const StateStream& stream, const StateFilter& filter,
                       const EntrySink& sink, const ProblemSink& problems) {
  std::vector<std::string> names;
  auto block = [&](int32_t kg, ByteReader& r, bool pre_versioned) -> Status {
    names.clear();
    Status s = walk_block(
        r, pre_versioned, nullptr,
        [&](std::string_view, const std::string& name) {
          names.push_back(name);
          return Status::OK();
        },
        [&](size_t service, int list, ByteReader& t, const ValueDecoder& key, const ValueDecoder& ns) -> Status {
          StateEntry e;
          e.state = raw_timer_state(list, names[service]);
          e.kind = EntryKind::kTimer;
          e.key_group = kg;
          e.has_key = e.has_namespace = true;
          size_t start = t.position();
          key.read(t, e.key);
          if (filter.raw_bytes) e.raw_key = t.since(start);
          start = t.position();
          ns.read(t, e.ns);
          if (filter.raw_bytes) e.raw_ns = t.since(start);
          start = t.position();
          e.value = t.i64();
          if (filter.raw_bytes) {
            e.has_raw = true;
            e.raw_value = t.since(start);
          }
          if (!t.ok()) return t.take_error();
          if (!filter.wants_state(e.state)) return Status::OK();
          return sink(std::move(e));
        });
    return s;
  };
  auto user_state = [](int32_t, ByteReader&) { return Status::OK(); };  // not timers: skipped
  auto wanted = [&](int32_t kg) { return filter.wants_key_group(kg); };
  return for_each_block(handle, stream, wanted, block, user_state, problems);
}

Status read_raw_timer_blocks(const KeyedHandle& handle, const StateStream& stream,
                             const std::function<Status(int32_t key_group, RawTimerBlock&& block)>& fn) {
  auto block = [&](int32_t kg, ByteReader& r, bool pre_versioned) -> Status {
    RawTimerBlock b;
    Status s = walk_block(
        r, pre_versioned, &b.version,
        [&](std::string_view head, const std::string&) {
          b.services.emplace_back().head = std::string(head);
          return Status::OK();
        },
        [&](size_t service, int list, ByteReader& t, const ValueDecoder& key, const ValueDecoder& ns) -> Status {
          RawTimer timer;
          const size_t start = t.position();
          timer.key_hash = key.read_java_hash_code(t);
          ns.skip(t);
          t.i64();
          if (!t.ok()) return t.take_error();
          timer.bytes = std::string(t.since(start));
          b.services[service].timers[list].push_back(std::move(timer));
          return Status::OK();
        });
    CKPT_RETURN_IF_ERROR(s);
    return fn(kg, std::move(b));
  };
  auto user_state = [](int32_t kg, ByteReader& r) -> Status {
    return Error(ErrorCode::kNotSupported,
                 fmt::format("key group {} holds raw keyed state other than timers, whose keys are not known", kg),
                 r.offset());
  };
  return for_each_block(
      handle, stream, [](int32_t) { return true; }, block, user_state, [](Error e) -> Status { return e; });
}

Result<RawTimerServiceCodec> raw_timer_service_codec(std::string_view head, int32_t version) {
  ByteReader r(head, 0);
  RawTimerServiceCodec codec;
  CKPT_RETURN_IF_ERROR(read_service_head(r, version, &codec));
  if (!r.at_end())
    return Error(ErrorCode::kCorruption, "a timer service's head has bytes after its serializers", r.offset());
  return codec;
}

std::string write_raw_timer_block(const RawTimerBlock& block) {
  ByteWriter w;
  if (block.version != kTimersNoVersion) {
    w.u32(kPostVersionedMagic);
    w.i32(block.version);
  }
  w.i32(static_cast<int32_t>(block.services.size()));
  for (const RawTimerService& s : block.services) {
    w.bytes(s.head);
    for (const auto& list : s.timers) {
      w.i32(static_cast<int32_t>(list.size()));
      for (const RawTimer& t : list) w.bytes(t.bytes);
    }
  }
  return w.take();
}

}  // namespace ckpt
