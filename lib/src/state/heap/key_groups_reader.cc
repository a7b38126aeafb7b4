// Heap and canonical key-group streams, and telling them apart.
#include "state/heap/key_groups_reader.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "state/backend_meta.h"
#include "state/heap/canonical_stream.h"
#include "state/heap/heap_block_delimiter.h"
#include "state/keyed_state_codec.h"
#include "state/snappy_framed.h"
#include "types/value_decoder.h"

namespace ckpt {

const char* key_groups_layout_name(KeyGroupsLayout l) {
  return l == KeyGroupsLayout::kHeap ? "heap" : "canonical";
}

namespace {

struct Region {
  int32_t key_group = 0;
  uint64_t start = 0;
  uint64_t end = 0;
};

// Where the bytes of the region loaded last live, reused from region to region: a fresh
// buffer per region had to be zero-filled (and faulted in) before each read.
struct RegionBuffers {
  std::string raw;      // read (inline bytes are used in place)
  size_t raw_from = 0;  // where the region begins in `raw` (read with the stream's proxy before it)
  std::string data;     // decompressed
};

// The stream's proxy and the byte range of every key group that has one.
struct KeyGroupsStream {
  const KeyedHandle* handle = nullptr;
  const StateStream* stream = nullptr;
  KeyedBackendMeta meta;
  std::vector<Region> regions;  // key groups ascending

  // `reads_key_group` says which key groups the caller reads after detect(), if it is known.
  Status open(const KeyedHandle& h, const StateStream& s, const std::function<bool(int32_t)>& reads_key_group = {}) {
    handle = &h;
    stream = &s;
    if (h.offsets.size() != static_cast<size_t>(std::max(h.range.count, 0)))
      return Error(ErrorCode::kCorruption, fmt::format("key-groups handle with {} offsets for {} key groups",
                                                       h.offsets.size(), h.range.count));
    std::vector<uint64_t> starts;
    for (size_t i = 0; i < h.offsets.size(); ++i) {
      int64_t off = h.offsets[i];
      if (off == 0) continue;  // canonical: no data in this key group
      if (off < 0 || static_cast<uint64_t>(off) > s.size())
        return s.past_end(fmt::format("offset {:#x} of key group {} lies outside the stream of {:#x} bytes", off,
                                      h.range.first + static_cast<int32_t>(i), s.size()));
      regions.push_back({h.range.first + static_cast<int32_t>(i), static_cast<uint64_t>(off), 0});
      starts.push_back(static_cast<uint64_t>(off));
    }
    std::sort(starts.begin(), starts.end());
    for (Region& r : regions) {
      auto next = std::upper_bound(starts.begin(), starts.end(), r.start);
      r.end = next == starts.end() ? s.size() : *next;
    }
    uint64_t proxy_end = starts.empty() ? s.size() : starts.front();
    // The region read first (detect() probes it, or the caller reads it first), when it follows
    // the proxy, is read with it: a store serves both by one request, where the two reads were
    // two requests in line before the first entry.
    const Region* first = first_region();
    const bool read_next = first && (detect_probes() || (reads_key_group && reads_key_group(first->key_group)));
    const bool with_first = read_next && first->start == proxy_end && !s.is_inline();
    std::string head;
    CKPT_RETURN_IF_ERROR(s.read(0, with_first ? first->end : proxy_end, &head));
    ByteReader r(std::string_view(head).substr(0, proxy_end), s.base());
    auto m = read_keyed_backend_meta(r);
    if (!m.ok()) return s.stamp(std::move(m).error());
    meta = std::move(m).value();
    meta.set_source(s.file(), s.offsets_context());
    if (with_first) {
      probed = std::move(head);
      probed_from = proxy_end;
      probed_start = first->start;
      probed_end = first->end;
    }
    return Status::OK();
  }

  // Does detect() read the first region to tell heap blocks from canonical ones? Not for a
  // savepoint's handle, nor where key groups lack offsets (only canonical blocks may be absent).
  bool detect_probes() const {
    return handle->type != handle_type::kSavepointKeyGroups && regions.size() == handle->offsets.size();
  }
  // The first region with bytes, in key-group order: what detect() probes and a scan reads first.
  const Region* first_region() const {
    for (const Region& r : regions)
      if (r.end > r.start) return &r;
    return nullptr;
  }

  // The bytes of a region as the layout sees them: decompressed if the proxy says so, from
  // `skip` bytes into the region (the heap layout's plain key-group number), held by `b`.
  // With `stream_starts`, where each Snappy stream of a compressed region begins in `out`.
  Status load(const Region& region, uint64_t skip, RegionBuffers* b, std::string_view* out, uint64_t* base,
              std::vector<size_t>* stream_starts = nullptr) const {
    CKPT_ASSIGN_OR_RETURN(std::string_view raw, read_raw(region, b));
    return decode(region, raw, skip, b, out, base, stream_starts);
  }
  // The region's bytes as stored, in one read: a store serves a read this large straight into
  // `b->raw`, where a small read first (the key-group number) would pull in a read-ahead block
  // the region is then copied out of.
  Result<std::string_view> read_raw(const Region& region, RegionBuffers* b) const {
    const bool was_probed = probed_start == region.start && probed_end == region.end;
    probed_start = probed_end = 0;
    if (was_probed) {
      b->raw = std::move(probed);
      b->raw_from = probed_from;
      return std::string_view(b->raw).substr(b->raw_from);
    }
    probed = std::string();
    b->raw_from = 0;
    return stream->view(region.start, region.end - region.start, &b->raw);
  }
  // The first region detect() probed, kept for the read of it that follows (which a store would
  // fetch again); let go at the next read of any region.
  void keep_probed(const Region& region, RegionBuffers* b) const {
    if (stream->is_inline() || probed_end != 0) return;
    probed = std::move(b->raw);
    probed_from = b->raw_from;
    probed_start = region.start;
    probed_end = region.end;
  }
  mutable std::string probed;
  mutable size_t probed_from = 0;  // where the region begins in `probed`
  mutable uint64_t probed_start = 0, probed_end = 0;  // an empty region is never probed
  // load() of the bytes `raw` read_raw() gave.
  Status decode(const Region& region, std::string_view raw, uint64_t skip, RegionBuffers* b, std::string_view* out,
                uint64_t* base, std::vector<size_t>* stream_starts = nullptr) const {
    *base = stream->base() + region.start;
    if (!meta.compression) {
      *out = raw;
      return Status::OK();
    }
    if (raw.size() < skip)
      return Error(ErrorCode::kCorruption, "key group region too short", *base);
    ByteReader in(raw.substr(skip), *base + skip);
    b->data.clear();
    CKPT_RETURN_IF_ERROR(
        decode_snappy_framed(in, &b->data, snappy_decompressed_limit(raw.size()), true, stream_starts));
    *out = b->data;
    return Status::OK();
  }
};

// Does the region hold one canonical block for its own key group?
bool looks_canonical(const KeyGroupsStream& ks, const Region& region, int prefix_bytes) {
  RegionBuffers buffers;
  std::string_view data;
  uint64_t base = 0;
  if (!ks.load(region, 0, &buffers, &data, &base).ok()) return false;
  ByteReader r(data, base);
  Status s = parse_canonical_key_group(r, static_cast<int>(ks.meta.states.size()), [&](const CanonicalPair& p) -> Status {
    if (key_group_of_rocks_key(p.key, prefix_bytes) != region.key_group)
      return Error(ErrorCode::kCorruption, "key prefix names another key group");
    return Status::OK();
  });
  ks.keep_probed(region, &buffers);
  return s.ok();
}

// Codecs built on first use, so that a state with an unusable snapshot only fails where it
// is met.
class Codecs {
 public:
  Codecs(const KeyedBackendMeta& meta, int32_t max_parallelism, bool raw_bytes = false, const KeySet* keys = nullptr)
      : meta_(meta), max_parallelism_(max_parallelism), raw_bytes_(raw_bytes), keys_(keys) {
    codecs_.resize(meta.states.size());
  }
  int32_t max_parallelism() const { return max_parallelism_; }
  Result<const KeyedStateCodec*> get(size_t id) {
    if (!key_) {
      auto k = make_decoder(meta_.key_serializer);
      if (!k.ok()) return std::move(k).error();
      key_ = std::move(k).value();
    }
    if (!codecs_[id]) {
      auto c = KeyedStateCodec::make(meta_.states[id], *key_, max_parallelism_);
      if (!c.ok()) return std::move(c).error();
      codecs_[id] = std::move(c).value();
      codecs_[id]->set_raw_bytes(raw_bytes_);
      codecs_[id]->set_key_filter(keys_);
    }
    return codecs_[id].get();
  }

  // The heap entry parts of every state, for inferring opaque value lengths: empty when no
  // state needs that. A state whose codec cannot be built is unusable only where it has entries.
  const std::vector<HeapEntryLayout>& heap_layouts() {
    if (layouts_built_) return layouts_;
    layouts_built_ = true;
    for (size_t id = 0; id < codecs_.size(); ++id) {
      auto c = get(id);
      if (c.ok()) {
        layouts_.push_back((*c)->heap_entry_layout());
      } else {
        HeapEntryLayout unusable;
        unusable.name = meta_.states[id].name;
        unusable.unusable = c.error().message;
        layouts_.push_back(std::move(unusable));
      }
    }
    if (!heap_values_need_inference(layouts_)) layouts_.clear();
    return layouts_;
  }

 private:
  const KeyedBackendMeta& meta_;
  int32_t max_parallelism_;
  bool raw_bytes_ = false;
  const KeySet* keys_ = nullptr;
  std::unique_ptr<ValueDecoder> key_;
  std::vector<std::unique_ptr<KeyedStateCodec>> codecs_;
  std::vector<HeapEntryLayout> layouts_;
  bool layouts_built_ = false;
};

// Flink 1.2's blocks (proxy version 1, formats/keyed-state.md §6.2): per state its id, a
// presence flag and, if present, the namespaces, each once before its keys and values. Nothing
// is inferred here: 1.2's serializers are Java objects ckpt walks or refuses.
Status read_heap_v1_states(ByteReader& r, const KeyGroupsStream& ks, const Region& region, Codecs& codecs,
                           const StateFilter& filter, const EntrySink& sink) {
  static const EntrySink kDiscard = [](StateEntry&&) { return Status::OK(); };
  const size_t n = ks.meta.states.size();
  for (size_t i = 0; i < n; ++i) {
    CKPT_ASSIGN_OR_RETURN(HeapV1StateHead head, read_heap_v1_state_head(r, n, region.key_group));
    if (head.namespaces == 0) continue;
    const int16_t id = head.id;
    const std::string& name = ks.meta.states[id].name;
    CKPT_ASSIGN_OR_RETURN(const KeyedStateCodec* codec, codecs.get(id));
    const int32_t namespaces = head.namespaces;
    if (!codec->heap_walkable())
      return Error(ErrorCode::kNotSupported,
                   fmt::format("state '{}': heap entries cannot be delimited without the job's classes ({})", name,
                               codec->why_not_heap()),
                   head.offset);
    const EntrySink& out = filter.wants_state(name) ? sink : kDiscard;
    for (int32_t k = 0; k < namespaces; ++k) {
      CKPT_ASSIGN_OR_RETURN(HeapNamespace ns, codec->read_heap_namespace(r));
      const int32_t entries = r.count(1, "entry");
      if (!r.ok()) return r.take_error();
      for (int32_t e = 0; e < entries; ++e)
        CKPT_RETURN_IF_ERROR(codec->read_heap_entry(r, region.key_group, out, -1, &ns));
    }
  }
  if (!r.at_end())
    return Error(ErrorCode::kCorruption,
                 fmt::format("{} bytes after the last state block of key group {}", r.remaining(), region.key_group),
                 r.offset());
  return Status::OK();
}

// A heap region's state blocks: after its plain key-group number (checked against the
// region's), decompressed if the proxy says so; `data[0]` lies at absolute offset `*base` (when
// uncompressed) and `stream_starts` says where each Snappy stream of a compressed region begins
// in `data`. `buffers` is the caller's, reused from key group to key group: a fresh one per key
// group faulted its pages in (and zeroed them) every time, a tenth of convert's input check.
Status load_heap_region(const KeyGroupsStream& ks, const Region& region, RegionBuffers& buffers, std::string_view* data,
                        uint64_t* base, std::vector<size_t>* stream_starts) {
  CKPT_ASSIGN_OR_RETURN(std::string_view raw, ks.read_raw(region, &buffers));
  // The key-group number before the (possibly compressed) state blocks is always plain.
  ByteReader head(raw.substr(0, 4), ks.stream->base() + region.start);
  int32_t stored = head.i32();
  if (!head.ok()) return head.take_error();
  if (stored != region.key_group)
    return Error(ErrorCode::kCorruption,
                 fmt::format("heap key group block starts with key group {}, expected {}", stored, region.key_group),
                 ks.stream->base() + region.start);
  stream_starts->clear();
  CKPT_RETURN_IF_ERROR(ks.decode(region, raw, 4, &buffers, data, base, stream_starts));
  *base += 4;
  if (!ks.meta.compression) data->remove_prefix(4);
  return Status::OK();
}

// The entries of a heap region load_heap_region() gave, decoded (or only checked).
Status walk_heap_region(const KeyGroupsStream& ks, const Region& region, std::string_view data, uint64_t base,
                        const std::vector<size_t>& stream_starts, Codecs& codecs, const StateFilter& filter,
                        const EntrySink& sink) {
  ByteReader r(data, base);
  if (ks.meta.version == 1) return read_heap_v1_states(r, ks, region, codecs, filter, sink);
  // Values that cannot be walked: their lengths are inferred from the key group's bounds first.
  std::vector<int64_t> lengths;
  if (const auto& layouts = codecs.heap_layouts(); !layouts.empty()) {
    // Compressed, every state block is a Snappy stream of its own: blocks start at stream starts.
    CKPT_ASSIGN_OR_RETURN(lengths, infer_heap_value_lengths(data, base, layouts, region.key_group,
                                                            codecs.max_parallelism(),
                                                            ks.meta.compression ? &stream_starts : nullptr));
  }
  size_t n = ks.meta.states.size();
  for (size_t i = 0; i < n; ++i) {
    CKPT_ASSIGN_OR_RETURN(HeapStateBlockHead head, read_heap_state_block_head(r, n));
    const int16_t id = head.id;
    const int32_t count = head.count;
    const uint64_t at = head.offset;
    const std::string& name = ks.meta.states[id].name;
    CKPT_ASSIGN_OR_RETURN(const KeyedStateCodec* codec, codecs.get(id));
    const int64_t value_length = lengths.empty() ? -1 : lengths[id];
    if (count > 0 && value_length < 0 && !codec->heap_walkable())
      return Error(ErrorCode::kNotSupported,
                   fmt::format("state '{}': heap entries cannot be delimited without the job's classes ({})", name,
                               codec->why_not_heap()),
                   at);
    // A state not wanted is still decoded (its bytes must be walked, and decoding checks them),
    // into nothing.
    if (filter.check_only || !filter.wants_state(name)) {
      for (int32_t e = 0; e < count; ++e)
        CKPT_RETURN_IF_ERROR(codec->check_heap_entry(r, region.key_group, value_length));
      continue;
    }
    for (int32_t e = 0; e < count; ++e)
      CKPT_RETURN_IF_ERROR(codec->read_heap_entry(r, region.key_group, sink, value_length));
  }
  if (!r.at_end())
    return Error(ErrorCode::kCorruption,
                 fmt::format("{} bytes after the last state block of key group {}", r.remaining(), region.key_group),
                 r.offset());
  return Status::OK();
}

Status read_heap_region(const KeyGroupsStream& ks, const Region& region, Codecs& codecs, const StateFilter& filter,
                        const EntrySink& sink, RegionBuffers& buffers) {
  std::string_view data;
  uint64_t base = 0;
  std::vector<size_t> stream_starts;
  CKPT_RETURN_IF_ERROR(load_heap_region(ks, region, buffers, &data, &base, &stream_starts));
  return walk_heap_region(ks, region, data, base, stream_starts, codecs, filter, sink);
}

// The pairs of a canonical region's bytes (`data`, data[0] at `base`), decoded (or only checked).
Status walk_canonical_region(const KeyGroupsStream& ks, const Region& region, std::string_view data, uint64_t base,
                             Codecs& codecs, const StateFilter& filter, const EntrySink& sink) {
  ByteReader r(data, base);
  return parse_canonical_key_group(r, static_cast<int>(ks.meta.states.size()), [&](const CanonicalPair& p) -> Status {
    const std::string& name = ks.meta.states[p.state_id].name;
    if (!filter.wants_state(name)) return Status::OK();
    CKPT_ASSIGN_OR_RETURN(const KeyedStateCodec* codec, codecs.get(p.state_id));
    int32_t kg = key_group_of_rocks_key(p.key, codec->prefix_bytes());
    if (kg != region.key_group)
      return Error(ErrorCode::kCorruption,
                   fmt::format("key prefix names key group {} inside the block of key group {}", kg, region.key_group),
                   p.key_offset);
    return codec->read_rocks_entry(p.key, p.key_offset + 4, p.value, p.value_offset + 4, sink);
  });
}

Status read_canonical_region(const KeyGroupsStream& ks, const Region& region, Codecs& codecs, const StateFilter& filter,
                             const EntrySink& sink, RegionBuffers& buffers) {
  std::string_view data;
  uint64_t base = 0;
  CKPT_RETURN_IF_ERROR(ks.load(region, 0, &buffers, &data, &base));
  return walk_canonical_region(ks, region, data, base, codecs, filter, sink);
}

Result<KeyGroupsLayout> detect(const KeyGroupsStream& ks, int32_t max_parallelism) {
  // A savepoint's blocks are canonical; the heap layout records an offset for every key group.
  if (!ks.detect_probes()) return KeyGroupsLayout::kCanonical;
  int prefix = key_group_prefix_bytes(max_parallelism);
  size_t probed = 0;
  for (const Region& region : ks.regions) {
    if (region.end == region.start) continue;
    if (!looks_canonical(ks, region, prefix)) return KeyGroupsLayout::kHeap;
    if (++probed == 2) break;
  }
  // Heap blocks are never empty (each holds its key-group number), canonical ones may not
  // exist at all: with nothing to probe the layouts are equivalent.
  return KeyGroupsLayout::kCanonical;
}

}  // namespace

Result<KeyGroupsLayout> detect_key_groups_layout(const KeyedHandle& handle, const StateStream& stream) {
  KeyGroupsStream ks;
  CKPT_RETURN_IF_ERROR(ks.open(handle, stream));
  // The prefix width only matters for probing; 1 byte unless key groups reach past 127.
  return detect(ks, handle.range.first + handle.range.count > 128 ? 32768 : 128);
}

Status read_key_groups_handle(const KeyedHandle& handle, const StateStream& stream, int32_t max_parallelism,
                              const StateFilter& filter, const EntrySink& sink, const ProblemSink& problems) {
  KeyGroupsStream ks;
  CKPT_RETURN_IF_ERROR(ks.open(handle, stream, [&](int32_t kg) { return filter.wants_key_group(kg); }));
  CKPT_ASSIGN_OR_RETURN(KeyGroupsLayout layout, detect(ks, max_parallelism));
  Codecs codecs(ks.meta, max_parallelism, filter.raw_bytes, filter.keys.get());
  std::vector<const Region*> order;
  for (const Region& r : ks.regions) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](const Region* a, const Region* b) { return a->key_group < b->key_group; });
  RegionBuffers buffers;
  for (const Region* region : order) {
    if (!filter.wants_key_group(region->key_group)) continue;
    Status s = layout == KeyGroupsLayout::kHeap ? read_heap_region(ks, *region, codecs, filter, sink, buffers)
                                                : read_canonical_region(ks, *region, codecs, filter, sink, buffers);
    if (!s.ok())
      CKPT_RETURN_IF_ERROR(problems(std::move(s).error().with_context(
          fmt::format("{} key group {}", key_groups_layout_name(layout), region->key_group))));
  }
  return Status::OK();
}

Status for_each_key_group_block(const KeyedHandle& handle, const StateStream& stream, int32_t max_parallelism,
                                const KeyGroupBlockFn& fn, bool check) {
  KeyGroupsStream ks;
  CKPT_RETURN_IF_ERROR(ks.open(handle, stream, [](int32_t) { return true; }));
  CKPT_ASSIGN_OR_RETURN(KeyGroupsLayout layout, detect(ks, max_parallelism));
  std::vector<const Region*> order;
  for (const Region& r : ks.regions) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](const Region* a, const Region* b) { return a->key_group < b->key_group; });
  RegionBuffers buffers;
  std::optional<Codecs> codecs;
  if (check) codecs.emplace(ks.meta, max_parallelism);
  StateFilter check_only;
  check_only.check_only = true;
  static const EntrySink kDrop = [](StateEntry&&) { return Status::OK(); };
  std::vector<size_t> stream_starts;
  for (const Region* region : order) {
    auto in_block = [&](Status s) -> Status {
      return std::move(s).error().with_context(
          fmt::format("{} key group {}", key_groups_layout_name(layout), region->key_group));
    };
    uint64_t base = 0;
    std::string_view view;
    if (check) {
      // Decoded first as the input check decodes it (read_key_groups_handle, check_only), from
      // the same bytes: one read of the stream where a check pass before the rewrite was two.
      const bool heap = layout == KeyGroupsLayout::kHeap;
      Status loaded = heap ? load_heap_region(ks, *region, buffers, &view, &base, &stream_starts)
                           : ks.load(*region, 0, &buffers, &view, &base);
      if (!loaded.ok()) return in_block(std::move(loaded));
      Status checked = heap ? walk_heap_region(ks, *region, view, base, stream_starts, *codecs, check_only, kDrop)
                            : walk_canonical_region(ks, *region, view, base, *codecs, check_only, kDrop);
      // What cannot be checked without the job's classes stays unchecked, as the check pass and
      // verify leave it; `fn` still refuses what it cannot delimit.
      if (!checked.ok() && checked.error().code != ErrorCode::kNotSupported) return in_block(std::move(checked));
    } else {
      const uint64_t skip = layout == KeyGroupsLayout::kHeap ? 4 : 0;
      if (region->end - region->start < skip)
        return Error(ErrorCode::kCorruption, fmt::format("key group {} block too short", region->key_group),
                     stream.base() + region->start);
      CKPT_RETURN_IF_ERROR(ks.load(*region, skip, &buffers, &view, &base));
      if (!ks.meta.compression) view.remove_prefix(skip);
      base += skip;
    }
    Status s = fn(ks.meta, layout, region->key_group, view, base);
    if (!s.ok()) {
      Error e = std::move(s).error();
      // What `fn` refuses of the block as a whole (a writer's: a key repeated, which Flink's heap
      // restore lets the later one win) is located at the block, in this stream's file.
      if (!e.offset && e.file.empty()) e.offset = stream.base() + region->start;
      return in_block(std::move(e));
    }
  }
  return Status::OK();
}

Result<HeapStateBlockHead> read_heap_state_block_head(ByteReader& r, size_t states) {
  HeapStateBlockHead head;
  head.offset = r.offset();
  head.id = r.i16();
  head.count = r.count(1, "entry");
  if (!r.ok()) return r.take_error();
  if (head.id < 0 || static_cast<size_t>(head.id) >= states)
    return Error(ErrorCode::kCorruption,
                 fmt::format("state id {} out of range: the stream registers {} states", head.id, states), head.offset);
  return head;
}

Result<HeapV1StateHead> read_heap_v1_state_head(ByteReader& r, size_t states, int32_t key_group) {
  HeapV1StateHead head;
  head.offset = r.offset();
  head.id = r.i16();
  const uint8_t present = r.u8();
  if (!r.ok()) return r.take_error();
  if (head.id < 0 || static_cast<size_t>(head.id) >= states)
    return Error(ErrorCode::kCorruption,
                 fmt::format("state id {} out of range: the stream registers {} states", head.id, states), head.offset);
  if (present > 1)
    return Error(ErrorCode::kCorruption,
                 fmt::format("state {} presence flag {} in key group {}, expected 0 or 1", head.id, present, key_group),
                 head.offset + 2);
  if (present == 0) return head;
  // Each namespace costs at least its entry count.
  head.namespaces = r.count(4, "namespace");
  if (!r.ok()) return r.take_error();
  return head;
}

}  // namespace ckpt
