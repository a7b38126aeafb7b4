// Legacy timer snapshots in raw keyed state (InternalTimerServiceSerializationProxy, v1-v2).
#include "state/raw_timers_reader.h"

#include <algorithm>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"

namespace ckpt {
namespace {

constexpr uint32_t kPostVersionedMagic = 0xF1CD859F;

Status read_timer_list(ByteReader& r, const ValueDecoder& key, const ValueDecoder& ns, const std::string& state,
                       int32_t key_group, const StateFilter& filter, const EntrySink& sink) {
  int32_t n = r.count(1, "timer");
  if (!r.ok()) return r.take_error();
  bool wanted = filter.wants_state(state);
  for (int32_t i = 0; i < n; ++i) {
    StateEntry e;
    e.state = state;
    e.kind = EntryKind::kTimer;
    e.key_group = key_group;
    e.has_key = e.has_namespace = true;
    size_t start = r.position();
    key.read(r, e.key);
    if (filter.raw_bytes) e.raw_key = r.since(start);
    start = r.position();
    ns.read(r, e.ns);
    if (filter.raw_bytes) e.raw_ns = r.since(start);
    start = r.position();
    e.value = r.i64();
    if (filter.raw_bytes) {
      e.has_raw = true;
      e.raw_value = r.since(start);
    }
    if (!r.ok()) return r.take_error();
    if (wanted) CKPT_RETURN_IF_ERROR(sink(std::move(e)));
  }
  return Status::OK();
}

// One key group's block; false in `*timers` if it is not a timer block at all.
Status read_block(ByteReader& r, int32_t key_group, const StateFilter& filter, const EntrySink& sink) {
  int32_t version = r.i32();
  int32_t services = r.count(4, "timer service");
  if (!r.ok()) return r.take_error();
  if (version != 1 && version != 2)
    return Error(ErrorCode::kNotSupported, fmt::format("timer snapshot version {} (expected 1 or 2)", version),
                 r.offset() - 8);
  for (int32_t s = 0; s < services; ++s) {
    std::string name = r.utf();
    if (!r.ok()) return r.take_error();
    // Version 1 stored Java-serialized serializers, which cannot be read without a JVM.
    if (version == 1)
      return Error(ErrorCode::kNotSupported, "timer snapshot version 1 stores Java-serialized serializers",
                   r.offset());
    auto ks = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
    if (!ks.ok()) return std::move(ks).error();
    auto ns = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
    if (!ns.ok()) return std::move(ns).error();
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ValueDecoder> kd, make_decoder(*ks));
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ValueDecoder> nd, make_decoder(*ns));
    if (!kd->decodable() || !nd->decodable())
      return Error(ErrorCode::kNotSupported,
                   fmt::format("timers of service '{}' cannot be delimited without the job's classes", name),
                   r.offset());
    CKPT_RETURN_IF_ERROR(read_timer_list(r, *kd, *nd, "_timer_state/event_" + name, key_group, filter, sink));
    CKPT_RETURN_IF_ERROR(read_timer_list(r, *kd, *nd, "_timer_state/processing_" + name, key_group, filter, sink));
  }
  return Status::OK();
}

}  // namespace

Status read_raw_timers(const KeyedHandle& handle, const StateStream& stream, const StateFilter& filter,
                       const EntrySink& sink, const ProblemSink& problems) {
  // Key groups nothing was written for keep offset -1 (KeyedStateCheckpointOutputStream).
  std::vector<std::pair<uint64_t, int32_t>> starts;
  for (size_t i = 0; i < handle.offsets.size(); ++i)
    if (handle.offsets[i] >= 0 && static_cast<uint64_t>(handle.offsets[i]) < stream.size())
      starts.emplace_back(static_cast<uint64_t>(handle.offsets[i]), handle.range.first + static_cast<int32_t>(i));
  std::sort(starts.begin(), starts.end());
  std::string data;
  for (size_t i = 0; i < starts.size(); ++i) {
    auto [start, kg] = starts[i];
    if (!filter.wants_key_group(kg)) continue;
    uint64_t end = stream.size();
    for (size_t j = i + 1; j < starts.size(); ++j)
      if (starts[j].first > start) { end = starts[j].first; break; }
    Status s = stream.read(start, end - start, &data);
    if (s.ok()) {
      ByteReader r(data, stream.base() + start);
      if (data.size() < 4 || r.u32() != kPostVersionedMagic) continue;  // user raw state
      s = read_block(r, kg, filter, sink);
    }
    if (!s.ok())
      CKPT_RETURN_IF_ERROR(
          problems(std::move(s).error().with_context(fmt::format("raw keyed timers, key group {}", kg))));
  }
  return Status::OK();
}

}  // namespace ckpt
