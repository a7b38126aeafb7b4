// Keyed handles of every layout read as RocksDB-layout pairs, for conversion.
#include "state/raw_keyed_reader.h"

#include <algorithm>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "state/heap/canonical_stream.h"
#include "state/changelog/changelog_reader.h"
#include "state/rocksdb/incremental_reader.h"
#include "state/heap/key_groups_reader.h"
#include "state/keyed_state_codec.h"
#include "state/rocksdb/rocks_instance_reader.h"
#include "state/rocksdb/rocks_sst.h"
#include "types/value_decoder.h"

namespace ckpt {

namespace {

bool is_changelog(uint8_t type) {
  return type == handle_type::kChangelogBackendV1 || type == handle_type::kChangelogBackend;
}

Result<KeyedBackendMeta> read_proxy_prefix(const StateStream& stream, uint64_t length) {
  std::string head;
  CKPT_RETURN_IF_ERROR(stream.read(0, length, &head));
  ByteReader r(head, stream.base());
  auto m = read_keyed_backend_meta(r);
  if (m.ok()) m->set_source(stream.file(), stream.offsets_context());
  return m;
}

using Transcoders = std::vector<std::unique_ptr<StateTranscoder>>;

}  // namespace

Status check_keyed_states(const KeyedBackendMeta& meta, int32_t max_parallelism) {
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ValueDecoder> key, make_decoder(meta.key_serializer));
  for (const StateMetaInfo& info : meta.states) {
    auto t = StateTranscoder::make(info, *key, max_parallelism);
    if (!t.ok()) return std::move(t).error();
  }
  return Status::OK();
}

namespace {

// A pair of one column family of an instance: errors found in it name the SST holding it.
class InstanceOrigin : public PairOrigin {
 public:
  InstanceOrigin(const RocksInstanceReader& instance, std::string cf) : instance_(instance), cf_(std::move(cf)) {}
  Error locate(const RocksPair& pair, Error e) const override {
    return instance_.blame_key(cf_, pair.key, std::move(e));
  }

 private:
  const RocksInstanceReader& instance_;
  std::string cf_;
};

// A pair of one SST read on its own: errors found in it name the file (opened again for that,
// on the error's path only: the file itself is closed once read).
class SstOrigin : public PairOrigin {
 public:
  SstOrigin(const NamedStream& file, const StreamOpener& streams) : file_(file), streams_(streams) {}
  Error locate(const RocksPair&, Error e) const override {
    if (e.offset) {
      e.message += fmt::format(" at byte {} of the key", *e.offset);
      e.offset.reset();
    }
    Result<StateStream> stream = streams_.open(file_.handle);
    return stream.ok() ? stream->stamp(std::move(e)) : std::move(e);
  }

 private:
  const NamedStream& file_;
  const StreamOpener& streams_;
};

const char* const kUnnamedFamily = "column family '{}' holds entries, but the meta data stream does not name it";

// The handle's SSTs by state (as `names`), each state's in key order, when every state's files
// can be read one after the other as RocksDB would merge them: no two of a state overlap and
// none holds a range tombstone (which may hide keys beyond its own). Else nullopt: the instance
// merges them. Each file is opened for its bounds and closed again (one per state is open while
// they are read: memory does not grow with the number of files).
Result<std::optional<std::vector<std::vector<const NamedStream*>>>> plan_sst_scans(const KeyedHandle& handle,
                                                                                const StreamOpener& streams,
                                                                                const std::vector<std::string>& names) {
  using Plan = std::optional<std::vector<std::vector<const NamedStream*>>>;
  std::vector<std::vector<std::pair<std::string, std::string>>> bounds(names.size());
  std::vector<std::vector<const NamedStream*>> by_state(names.size());
  for (const auto* list : {&handle.shared_files, &handle.private_files})
    for (const NamedStream& f : *list) {
      if (!is_sst_name(f.name)) continue;
      CKPT_ASSIGN_OR_RETURN(StateStream stream, streams.open(f.handle));
      CKPT_ASSIGN_OR_RETURN(SstFile sst, SstFile::open(stream));
      if (sst.num_range_deletions() > 0) return Plan();
      auto at = std::find(names.begin(), names.end(), sst.column_family());
      if (at != names.end()) {
        if (sst.first_key().empty() && sst.last_key().empty()) continue;
        const size_t id = static_cast<size_t>(at - names.begin());
        bounds[id].emplace_back(sst.first_key(), sst.last_key());
        by_state[id].push_back(&f);
        continue;
      }
      if (sst.column_family() == "default" || sst.num_entries() == 0) continue;
      return stream.stamp(
          Error(ErrorCode::kCorruption, fmt::format(fmt::runtime(kUnnamedFamily), sst.column_family())));
    }
  for (size_t id = 0; id < names.size(); ++id) {
    std::vector<size_t> order(by_state[id].size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bounds[id][a] < bounds[id][b]; });
    std::vector<const NamedStream*> sorted;
    for (size_t i = 0; i < order.size(); ++i) {
      if (i > 0 && bounds[id][order[i]].first <= bounds[id][order[i - 1]].second) return Plan();
      sorted.push_back(by_state[id][order[i]]);
    }
    by_state[id] = std::move(sorted);
  }
  return Plan(std::move(by_state));
}

// One key group at a time from each state's SSTs read one after the other, whole (every block
// checksummed as it is read: damage outside the handle's range is refused too), entries outside
// the range dropped as Flink clips them. One read of each file where the instance read checks
// every file whole before its scan reads it again (RocksDB 7.8's merging scan can end early
// with an OK status at a damaged block: files read on their own report it).
Status read_ssts_by_key_group(const KeyedHandle& handle, const StreamOpener& streams,
                              const std::vector<std::vector<const NamedStream*>>& by_state, int32_t max_parallelism,
                              const KeyGroupPairsFn& fn) {
  const int prefix = key_group_prefix_bytes(max_parallelism);
  struct StateCursor {
    size_t next_file = 0;
    std::optional<SstFile> file;
    std::optional<SstFile::Cursor> at;  // into `file`
    int32_t key_group = -1;  // of the current key; -1 when exhausted
  };
  std::vector<StateCursor> cursors(by_state.size());
  // Moves cursor i to its next entry inside the handle's range, across its files.
  auto settle = [&](size_t i) -> Status {
    StateCursor& c = cursors[i];
    for (;;) {
      if (c.at && c.at->valid()) {
        const int32_t kg = key_group_of_rocks_key(c.at->key(), prefix);
        if (kg < 0)
          return c.file->stream().stamp(Error(ErrorCode::kCorruption, "a key shorter than its key-group prefix"));
        if (handle.range.contains(kg)) {
          c.key_group = kg;
          return Status::OK();
        }
        c.at->next();
        continue;
      }
      if (c.at) CKPT_RETURN_IF_ERROR(c.at->status());
      c.at.reset();
      c.file.reset();
      if (c.next_file == by_state[i].size()) {
        c.key_group = -1;
        return Status::OK();
      }
      CKPT_ASSIGN_OR_RETURN(StateStream stream, streams.open(by_state[i][c.next_file++]->handle));
      CKPT_ASSIGN_OR_RETURN(SstFile sst, SstFile::open(stream));
      c.file.emplace(std::move(sst));
      c.at.emplace(c.file->cursor());
    }
  };
  std::vector<std::vector<SstOrigin>> origins(by_state.size());
  for (size_t i = 0; i < by_state.size(); ++i) {
    for (const NamedStream* f : by_state[i]) origins[i].emplace_back(*f, streams);
    CKPT_RETURN_IF_ERROR(settle(i));
  }
  std::vector<std::vector<RocksPair>> pairs(by_state.size());
  std::vector<RocksPairPool> pools(by_state.size());
  for (;;) {
    int32_t kg = -1;
    for (const StateCursor& c : cursors)
      if (c.key_group >= 0 && (kg < 0 || c.key_group < kg)) kg = c.key_group;
    if (kg < 0) return Status::OK();
    for (size_t i = 0; i < cursors.size(); ++i) {
      StateCursor& c = cursors[i];
      while (c.key_group == kg) {
        RocksPair& p = pools[i].add(pairs[i]);
        p.key.assign(c.at->key());
        p.value.assign(c.at->value());
        p.origin = &origins[i][c.next_file - 1];
        c.at->next();
        CKPT_RETURN_IF_ERROR(settle(i));
      }
    }
    Status s = fn(kg, pairs);
    RocksPairPool::recycle(pairs, pools);
    CKPT_RETURN_IF_ERROR(s);
  }
}

// One key group at a time from the instance (the proxy's states are its column families), so
// memory stays bounded by the largest key group whatever the subtask's size; overlapping SSTs
// are merged by RocksDB as Flink's restore merges them. Where no state's files overlap they are
// read on their own instead (read_ssts_by_key_group), as dump reads them.
Status read_native(const KeyedHandle& handle, const RawKeyedSource& source, const StreamOpener& streams,
                   int32_t max_parallelism, const KeyGroupPairsFn& fn) {
  const KeyedBackendMeta& meta = source.meta;
  {
    std::vector<std::string> names;
    for (const StateMetaInfo& s : meta.states) names.push_back(s.name);
    CKPT_ASSIGN_OR_RETURN(auto plan, plan_sst_scans(handle, streams, names));
    if (plan) return read_ssts_by_key_group(handle, streams, *plan, max_parallelism, fn);
  }
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<RocksInstanceReader> instance, RocksInstanceReader::open(handle, streams));
  std::vector<std::string> names;
  for (const StateMetaInfo& s : meta.states) names.push_back(s.name);
  for (const std::string& cf : instance->column_families()) {
    if (cf == "default" || std::find(names.begin(), names.end(), cf) != names.end()) continue;
    CKPT_RETURN_IF_ERROR(instance->for_each(cf, [&](std::string_view, std::string_view) -> Status {
      return Error(ErrorCode::kCorruption, fmt::format(fmt::runtime(kUnnamedFamily), cf));
    }));
  }
  std::vector<InstanceOrigin> origins;
  for (const std::string& name : names) origins.emplace_back(*instance, name);
  std::vector<std::vector<RocksPair>> by_state(names.size());
  // Freeing a key group's worth of strings let malloc return the pages, and faulting them in
  // again cost as much system time as the conversion.
  std::vector<RocksPairPool> pools(names.size());
  int32_t current = -1;
  auto flush = [&]() -> Status {
    Status s = fn(current, by_state);
    RocksPairPool::recycle(by_state, pools);
    return s;
  };
  // A rescale's left-overs outside the handle's range are skipped, as Flink clips them.
  CKPT_RETURN_IF_ERROR(instance->for_each_by_key_group(
      names, handle.range, key_group_prefix_bytes(max_parallelism),
      [&](int32_t kg, size_t id, std::string_view key, std::string_view value) -> Status {
        if (kg != current) {
          if (current >= 0) CKPT_RETURN_IF_ERROR(flush());
          current = kg;
        }
        RocksPair& p = pools[id].add(by_state[id]);
        p.key.assign(key);
        p.value.assign(value);
        p.origin = &origins[id];
        return Status::OK();
      }));
  if (current >= 0) return flush();
  return Status::OK();
}

// The materialized part's pairs with the change logs replayed on them, in memory
// (formats/keyed-state.md §15).
Status read_changelog(const KeyedHandle& handle, const RawKeyedSource& source, const StreamOpener& streams,
                      int32_t max_parallelism, const KeyGroupPairsFn& fn) {
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ChangelogState> state, ChangelogState::make_raw(source.meta, max_parallelism));
  for (const KeyedHandle& m : handle.materialized) {
    if (m.is_null()) continue;
    CKPT_ASSIGN_OR_RETURN(RawKeyedSource part, open_raw_keyed(m, streams, max_parallelism));
    Status s = read_raw_keyed(m, part, streams, max_parallelism, state->raw_collector(part.meta));
    if (!s.ok()) return std::move(s).error().with_context("materialized part");
  }
  Status s = state->replay(handle.non_materialized, handle.range, streams);
  if (!s.ok()) return std::move(s).error().with_context("change log");
  return state->emit_raw(fn);
}

}  // namespace

const char* keyed_layout_name(KeyedLayout l) {
  switch (l) {
    case KeyedLayout::kHeap: return "heap";
    case KeyedLayout::kCanonical: return "canonical";
    case KeyedLayout::kNative: return "rocksdb";
    case KeyedLayout::kChangelog: return "changelog";
  }
  return "heap";
}

Result<RawKeyedSource> open_raw_keyed(const KeyedHandle& handle, const StreamOpener& streams, int32_t max_parallelism,
                                      const SerializerSnapshot* key_fallback) {
  RawKeyedSource source;
  if (is_changelog(handle.type)) {
    source.layout = KeyedLayout::kChangelog;
    for (const KeyedHandle& m : handle.materialized) {
      if (m.is_null()) continue;
      CKPT_ASSIGN_OR_RETURN(RawKeyedSource part, open_raw_keyed(m, streams, max_parallelism));
      if (source.meta.key_serializer.serializer_class.empty()) source.meta = part.meta;
      for (StateMetaInfo& info : part.meta.states)
        if (!source.meta.find(info.name)) source.meta.states.push_back(std::move(info));
    }
    CKPT_ASSIGN_OR_RETURN(KeyedBackendMeta logged, read_changelog_meta(handle.non_materialized, streams));
    if (source.meta.key_serializer.serializer_class.empty()) source.meta.key_serializer = logged.key_serializer;
    // A state registered again by the logs takes its last registration, as on restore.
    for (StateMetaInfo& info : logged.states) {
      auto same = std::find_if(source.meta.states.begin(), source.meta.states.end(),
                               [&](const StateMetaInfo& s) { return s.name == info.name; });
      if (same != source.meta.states.end()) *same = std::move(info);
      else source.meta.states.push_back(std::move(info));
    }
    // Flink's restore takes the key serializer from the job, so a log-only handle may name none;
    // every backend proxy (and the RocksDB key framing) needs it.
    if (source.meta.key_serializer.serializer_class.empty() && key_fallback)
      source.meta.key_serializer = *key_fallback;
    if (source.meta.key_serializer.serializer_class.empty())
      return Error(ErrorCode::kNotSupported,
                   "changelog-backend handle stores no key serializer snapshot (no materialized part, no timers): "
                   "its state cannot be written for another backend without one from another snapshot of the job "
                   "(--key-serializers-from SNAPSHOT)");
    return source;
  }
  if (handle_type::is_incremental(handle.type)) {
    source.layout = KeyedLayout::kNative;
    CKPT_ASSIGN_OR_RETURN(source.meta, read_meta_data_stream(handle.delegate, streams));
    CKPT_RETURN_IF_ERROR(check_keyed_states(source.meta, max_parallelism));
    return source;
  }
  if (handle.type != handle_type::kKeyGroups && handle.type != handle_type::kKeyGroupsWithId &&
      handle.type != handle_type::kSavepointKeyGroups)
    return Error(ErrorCode::kNotSupported, fmt::format("keyed state handle type {:#04x} ({}) cannot be converted",
                                                       handle.type, handle_type_name(handle.type)));
  return streams.read(handle.delegate, [&](const StateStream& stream) -> Result<RawKeyedSource> {
    CKPT_ASSIGN_OR_RETURN(KeyGroupsLayout layout, detect_key_groups_layout(handle, stream));
    source.layout = layout == KeyGroupsLayout::kHeap ? KeyedLayout::kHeap : KeyedLayout::kCanonical;
    uint64_t proxy_end = stream.size();
    for (int64_t off : handle.offsets)
      if (off > 0) proxy_end = std::min<uint64_t>(proxy_end, static_cast<uint64_t>(off));
    CKPT_ASSIGN_OR_RETURN(source.meta, read_proxy_prefix(stream, proxy_end));
    CKPT_RETURN_IF_ERROR(check_keyed_states(source.meta, max_parallelism));
    return source;
  });
}

Status read_raw_keyed(const KeyedHandle& handle, const RawKeyedSource& source, const StreamOpener& streams,
                      int32_t max_parallelism, const KeyGroupPairsFn& fn, bool check_blocks) {
  if (source.layout == KeyedLayout::kNative) return read_native(handle, source, streams, max_parallelism, fn);
  if (source.layout == KeyedLayout::kChangelog) return read_changelog(handle, source, streams, max_parallelism, fn);
  const KeyedBackendMeta& meta = source.meta;
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ValueDecoder> key_decoder, make_decoder(meta.key_serializer));
  Transcoders transcoders;
  if (source.layout == KeyedLayout::kHeap)
    for (const StateMetaInfo& info : meta.states) {
      CKPT_ASSIGN_OR_RETURN(auto t, StateTranscoder::make(info, *key_decoder, max_parallelism));
      transcoders.push_back(std::move(t));
    }
  const int prefix = key_group_prefix_bytes(max_parallelism);
  std::vector<std::vector<RocksPair>> by_state(meta.states.size());
  std::vector<RocksPairPool> pools(meta.states.size());
  return streams.read(handle.delegate, [&](const StateStream& stream) {
    return for_each_key_group_block(
        handle, stream, max_parallelism,
        [&](const KeyedBackendMeta&, KeyGroupsLayout layout, int32_t kg, std::string_view data,
            uint64_t base) -> Status {
          RocksPairPool::recycle(by_state, pools);
          if (layout == KeyGroupsLayout::kHeap) {
            CKPT_RETURN_IF_ERROR(
                heap_block_to_rocks(transcoders, kg, data, base, max_parallelism, by_state, pools, meta.version));
          } else {
            ByteReader r(data, base);
            CKPT_RETURN_IF_ERROR(parse_canonical_key_group(
                r, static_cast<int>(meta.states.size()), [&](const CanonicalPair& p) -> Status {
                  if (key_group_of_rocks_key(p.key, prefix) != kg)
                    return Error(ErrorCode::kCorruption,
                                 fmt::format("key prefix names another key group than {}", kg), p.key_offset);
                  RocksPair& pair = pools[p.state_id].add(by_state[p.state_id]);
                  pair.key.assign(p.key);
                  pair.value.assign(p.value);
                  return Status::OK();
                }));
          }
          return fn(kg, by_state);
        },
        check_blocks);
  });
}

}  // namespace ckpt
