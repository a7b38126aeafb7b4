// Keyed handles of every layout read as RocksDB-layout pairs, for conversion.
#include "state/raw_keyed_reader.h"

#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "state/canonical_stream.h"
#include "state/key_groups_reader.h"
#include "state/keyed_state_codec.h"
#include "state/rocks_sst.h"
#include "state/value_decoder.h"

namespace ckpt {

namespace {

bool is_incremental(uint8_t type) { return type == handle_type::kIncrementalV1 || type == handle_type::kIncremental; }

bool is_sst_name(const std::string& name) {
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".sst") == 0;
}

Result<KeyedBackendMeta> read_proxy_prefix(const StateStream& stream, uint64_t length) {
  std::string head;
  CKPT_RETURN_IF_ERROR(stream.read(0, length, &head));
  ByteReader r(head, stream.base());
  auto m = read_keyed_backend_meta(r);
  if (!m.ok()) {
    Error e = std::move(m).error();
    if (e.file.empty()) e.file = stream.file();
    return e;
  }
  return m;
}

using Transcoders = std::vector<std::unique_ptr<StateTranscoder>>;

Status read_heap_block(const KeyedBackendMeta& meta, const Transcoders& transcoders, int32_t kg, std::string_view data,
                       uint64_t base, std::vector<std::vector<RocksPair>>& by_state) {
  ByteReader r(data, base);
  const size_t n = meta.states.size();
  for (size_t i = 0; i < n; ++i) {
    CKPT_ASSIGN_OR_RETURN(HeapStateBlockHead head, read_heap_state_block_head(r, n));
    for (int32_t e = 0; e < head.count; ++e)
      CKPT_RETURN_IF_ERROR(transcoders[head.id]->heap_to_rocks(r, kg, &by_state[head.id]));
  }
  if (!r.at_end())
    return Error(ErrorCode::kCorruption,
                 fmt::format("{} bytes after the last state block of key group {}", r.remaining(), kg), r.offset());
  return Status::OK();
}

Status read_native(const KeyedHandle& handle, const RawKeyedSource& source, const PathResolver& resolve,
                   const std::string& metadata_file, int32_t max_parallelism, const KeyGroupPairsFn& fn) {
  const KeyedBackendMeta& meta = source.meta;
  const int prefix = key_group_prefix_bytes(max_parallelism);
  std::map<int32_t, std::vector<std::vector<RocksPair>>> groups;
  std::vector<std::vector<std::pair<std::string, std::string>>> ranges(meta.states.size());
  for (const auto* list : {&handle.shared_files, &handle.private_files}) {
    for (const NamedStream& f : *list) {
      if (!is_sst_name(f.name)) continue;
      CKPT_ASSIGN_OR_RETURN(StateStream stream, StateStream::open(f.handle, resolve, metadata_file));
      auto sst = SstFile::open(stream);
      if (!sst.ok()) return std::move(sst).error().with_context(fmt::format("sst '{}'", f.name));
      auto it = std::find_if(meta.states.begin(), meta.states.end(),
                             [&](const StateMetaInfo& s) { return s.name == sst->column_family(); });
      if (it == meta.states.end()) {
        if (sst->column_family() == "default" || sst->num_entries() == 0) continue;
        return Error(ErrorCode::kCorruption, fmt::format("sst '{}' of column family '{}', which the meta data stream "
                                                         "does not name", f.name, sst->column_family()));
      }
      const size_t id = static_cast<size_t>(it - meta.states.begin());
      if (sst->num_entries() > 0) {
        for (const auto& [first, last] : ranges[id])
          if (!(sst->last_key() < first || last < sst->first_key()))
            return Error(ErrorCode::kNotSupported,
                         fmt::format("state '{}' spans sst files with overlapping key ranges, which needs the "
                                     "instance's manifest to merge", meta.states[id].name));
        ranges[id].emplace_back(sst->first_key(), sst->last_key());
      }
      CKPT_RETURN_IF_ERROR(sst->for_each([&](std::string_view key, std::string_view value) -> Status {
        int32_t kg = key_group_of_rocks_key(key, prefix);
        if (!handle.range.contains(kg)) return Status::OK();  // a rescale's left-overs, as Flink clips them
        auto& slot = groups[kg];
        if (slot.empty()) slot.resize(meta.states.size());
        slot[id].push_back({std::string(key), std::string(value)});
        return Status::OK();
      }));
    }
  }
  for (auto& [kg, by_state] : groups) CKPT_RETURN_IF_ERROR(fn(kg, by_state));
  return Status::OK();
}

}  // namespace

const char* keyed_layout_name(KeyedLayout l) {
  switch (l) {
    case KeyedLayout::kHeap: return "heap";
    case KeyedLayout::kCanonical: return "canonical";
    case KeyedLayout::kNative: return "rocksdb";
  }
  return "heap";
}

Result<RawKeyedSource> open_raw_keyed(const KeyedHandle& handle, const PathResolver& resolve,
                                      const std::string& metadata_file, int32_t max_parallelism) {
  RawKeyedSource source;
  if (is_incremental(handle.type)) {
    source.layout = KeyedLayout::kNative;
    CKPT_ASSIGN_OR_RETURN(StateStream stream, StateStream::open(handle.delegate, resolve, metadata_file));
    CKPT_ASSIGN_OR_RETURN(source.meta, read_proxy_prefix(stream, stream.size()));
    return source;
  }
  if (handle.type != handle_type::kKeyGroups && handle.type != handle_type::kKeyGroupsWithId &&
      handle.type != handle_type::kSavepointKeyGroups)
    return Error(ErrorCode::kNotSupported, fmt::format("keyed state handle type {:#04x} ({}) cannot be converted",
                                                       handle.type, handle_type_name(handle.type)));
  CKPT_ASSIGN_OR_RETURN(StateStream stream, StateStream::open(handle.delegate, resolve, metadata_file));
  CKPT_ASSIGN_OR_RETURN(KeyGroupsLayout layout, detect_key_groups_layout(handle, stream));
  source.layout = layout == KeyGroupsLayout::kHeap ? KeyedLayout::kHeap : KeyedLayout::kCanonical;
  uint64_t proxy_end = stream.size();
  for (int64_t off : handle.offsets)
    if (off > 0) proxy_end = std::min<uint64_t>(proxy_end, static_cast<uint64_t>(off));
  CKPT_ASSIGN_OR_RETURN(source.meta, read_proxy_prefix(stream, proxy_end));
  (void)max_parallelism;
  return source;
}

Status read_raw_keyed(const KeyedHandle& handle, const RawKeyedSource& source, const PathResolver& resolve,
                      const std::string& metadata_file, int32_t max_parallelism, const KeyGroupPairsFn& fn) {
  if (source.layout == KeyedLayout::kNative)
    return read_native(handle, source, resolve, metadata_file, max_parallelism, fn);
  const KeyedBackendMeta& meta = source.meta;
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ValueDecoder> key_decoder, make_decoder(meta.key_serializer));
  Transcoders transcoders;
  if (source.layout == KeyedLayout::kHeap)
    for (const StateMetaInfo& info : meta.states) {
      CKPT_ASSIGN_OR_RETURN(auto t, StateTranscoder::make(info, *key_decoder, max_parallelism));
      transcoders.push_back(std::move(t));
    }
  const int prefix = key_group_prefix_bytes(max_parallelism);
  CKPT_ASSIGN_OR_RETURN(StateStream stream, StateStream::open(handle.delegate, resolve, metadata_file));
  std::vector<std::vector<RocksPair>> by_state;
  return for_each_key_group_block(
      handle, stream, max_parallelism,
      [&](const KeyedBackendMeta&, KeyGroupsLayout layout, int32_t kg, std::string_view data, uint64_t base) -> Status {
        by_state.assign(meta.states.size(), {});
        if (layout == KeyGroupsLayout::kHeap) {
          CKPT_RETURN_IF_ERROR(read_heap_block(meta, transcoders, kg, data, base, by_state));
        } else {
          ByteReader r(data, base);
          CKPT_RETURN_IF_ERROR(parse_canonical_key_group(
              r, static_cast<int>(meta.states.size()), [&](const CanonicalPair& p) -> Status {
                if (key_group_of_rocks_key(p.key, prefix) != kg)
                  return Error(ErrorCode::kCorruption, fmt::format("key prefix names another key group than {}", kg),
                               p.key_offset);
                by_state[p.state_id].push_back({p.key, std::string(p.value)});
                return Status::OK();
              }));
        }
        return fn(kg, by_state);
      });
}

}  // namespace ckpt
