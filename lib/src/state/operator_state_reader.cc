// Operator list, union and broadcast state (OperatorStateRestoreOperation's reading).
#include "state/operator_state_reader.h"

#include <algorithm>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "state/backend_meta.h"
#include "state/snappy_framed.h"
#include "types/value_decoder.h"

namespace ckpt {
namespace {

struct OperatorStream {
  const StateStream* stream = nullptr;
  OperatorBackendMeta meta;
  std::vector<uint64_t> starts;  // every recorded offset, ascending

  uint64_t end_of(uint64_t offset) const {
    auto next = std::upper_bound(starts.begin(), starts.end(), offset);
    return next == starts.end() ? stream->size() : *next;
  }

  // The bytes from `offset` to the next recorded offset, decompressed if the proxy says so.
  Status load(uint64_t offset, std::string* out, uint64_t* base) const {
    std::string raw;
    CKPT_RETURN_IF_ERROR(stream->read(offset, end_of(offset) - offset, &raw));
    *base = stream->base() + offset;
    if (!meta.compression) {
      *out = std::move(raw);
      return Status::OK();
    }
    ByteReader in(raw, *base);
    out->clear();
    return decode_snappy_framed(in, out, snappy_decompressed_limit(raw.size()), /*expect_identifier=*/false);
  }
};

Status read_list_state(const OperatorStream& os, const OperatorStateEntry& entry, const StateMetaInfo& info,
                       bool raw_bytes, const EntrySink& sink) {
  const SerializerSnapshot* ser = info.value_serializer();
  if (!ser) return Error(ErrorCode::kCorruption, "list state without a VALUE_SERIALIZER snapshot");
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ValueDecoder> decoder, make_decoder(*ser));
  std::string data;
  for (int64_t off : entry.offsets) {
    if (off < 0 || static_cast<uint64_t>(off) > os.stream->size())
      return os.stream->past_end(
          fmt::format("element offset {:#x} lies outside the stream of {:#x} bytes", off, os.stream->size()));
    uint64_t base = 0;
    CKPT_RETURN_IF_ERROR(os.load(static_cast<uint64_t>(off), &data, &base));
    ByteReader r(data, base);
    StateEntry e;
    e.state = entry.name;
    e.kind = EntryKind::kOperator;
    if (decoder->decodable()) {
      // Read exactly one element: what follows up to the next offset belongs to no one when
      // the offset is the last of a state followed by unrecorded bytes.
      decoder->read(r, e.value);
      if (!r.ok()) return r.take_error();
    } else {
      auto v = decode_framed(*decoder, r, r.remaining());
      if (!v.ok()) return std::move(v).error();
      e.value = std::move(v).value();
    }
    if (raw_bytes) {
      e.has_raw = true;
      e.raw_value = r.since(0);
    }
    CKPT_RETURN_IF_ERROR(sink(std::move(e)));
  }
  return Status::OK();
}

Status read_broadcast_state(const OperatorStream& os, const OperatorStateEntry& entry, const StateMetaInfo& info,
                            bool raw_bytes, const EntrySink& sink) {
  if (entry.offsets.empty()) return Status::OK();
  const SerializerSnapshot* ks = info.key_serializer();
  const SerializerSnapshot* vs = info.value_serializer();
  if (!ks || !vs) return Error(ErrorCode::kCorruption, "broadcast state without key and value serializer snapshots");
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ValueDecoder> kd, make_decoder(*ks));
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ValueDecoder> vd, make_decoder(*vs));
  int64_t off = entry.offsets[0];
  if (off < 0 || static_cast<uint64_t>(off) > os.stream->size())
    return os.stream->past_end(
        fmt::format("broadcast offset {:#x} lies outside the stream of {:#x} bytes", off, os.stream->size()));
  std::string data;
  uint64_t base = 0;
  CKPT_RETURN_IF_ERROR(os.load(static_cast<uint64_t>(off), &data, &base));
  ByteReader r(data, base);
  int32_t n = r.count(1, "broadcast entry");
  if (!r.ok()) return r.take_error();
  if (n > 0 && (!kd->decodable() || !vd->decodable()))
    return Error(ErrorCode::kNotSupported,
                 fmt::format("broadcast entries cannot be delimited without the job's classes ({})",
                             kd->decodable() ? vd->why_not() : kd->why_not()),
                 base);
  for (int32_t i = 0; i < n; ++i) {
    StateEntry e;
    e.state = entry.name;
    e.kind = EntryKind::kOperator;
    e.has_key = true;
    size_t start = r.position();
    kd->read(r, e.key);
    if (raw_bytes) e.raw_key = r.since(start);
    start = r.position();
    vd->read(r, e.value);
    if (raw_bytes) {
      e.has_raw = true;
      e.raw_value = r.since(start);
    }
    if (!r.ok()) return r.take_error();
    CKPT_RETURN_IF_ERROR(sink(std::move(e)));
  }
  return Status::OK();
}

Status read_operator_stream(const OperatorHandle& handle, const StateStream& stream, const StateFilter& filter,
                            const EntrySink& sink, const ProblemSink& problems) {
  OperatorStream os;
  os.stream = &stream;
  for (const OperatorStateEntry& s : handle.states)
    for (int64_t off : s.offsets)
      if (off >= 0) os.starts.push_back(static_cast<uint64_t>(off));
  std::sort(os.starts.begin(), os.starts.end());
  uint64_t proxy_end = os.starts.empty() ? stream.size() : std::min<uint64_t>(os.starts.front(), stream.size());
  std::string head;
  CKPT_RETURN_IF_ERROR(stream.read(0, proxy_end, &head));
  ByteReader r(head, stream.base());
  auto meta = read_operator_backend_meta(r);
  if (!meta.ok()) return std::move(meta).error().with_context("operator state proxy");
  os.meta = std::move(meta).value();
  // The handle's states are in the writer's hash-map order; print them sorted by name so the
  // output does not depend on it.
  std::vector<const OperatorStateEntry*> order;
  for (const OperatorStateEntry& s : handle.states) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(),
                   [](const OperatorStateEntry* a, const OperatorStateEntry* b) { return a->name < b->name; });
  for (const OperatorStateEntry* entry : order) {
    if (!filter.wants_state(entry->name)) continue;
    const StateMetaInfo* info = os.meta.find(entry->name);
    Status s;
    if (!info) {
      // The proxy at the stream's start is where the name should have been.
      s = Error(ErrorCode::kCorruption, "the operator state proxy does not describe this state", stream.base());
    } else if (entry->mode == DistributionMode::kBroadcast) {
      s = read_broadcast_state(os, *entry, *info, filter.raw_bytes, sink);
    } else {
      s = read_list_state(os, *entry, *info, filter.raw_bytes, sink);
    }
    if (!s.ok()) {
      Error e = std::move(s).error();
      // About the state as its meta info in this stream's proxy describes it.
      if (info && !e.offset && e.file.empty()) e.offset = info->source_offset;
      CKPT_RETURN_IF_ERROR(problems(std::move(e).with_context(fmt::format("operator state '{}'", entry->name))));
    }
  }
  return Status::OK();
}

}  // namespace

Status read_operator_handle(const OperatorHandle& handle, const StreamOpener& streams, const StateFilter& filter,
                            const EntrySink& sink, const ProblemSink& problems) {
  return streams.read(handle.delegate, problems, [&](const StateStream& stream, const ProblemSink& stamped) {
    return read_operator_stream(handle, stream, filter, sink, stamped);
  });
}

}  // namespace ckpt
