// RocksDB native snapshots: the meta stream plus one SST scan per file, grouped by state.
#include "state/rocksdb/incremental_reader.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "state/backend_meta.h"
#include "state/keyed_state_codec.h"
#include "state/layout_transcoder.h"
#include "state/rocksdb/rocks_instance_reader.h"
#include "state/rocksdb/rocks_manifest.h"
#include "state/rocksdb/rocks_sst.h"
#include "types/value_decoder.h"

namespace ckpt {
namespace {

// What the grouping pass keeps of an SST: its place and key range. The file itself is opened
// again for its scan, so that only one table reader (index and filter blocks) is held at a
// time, however many SSTs a subtask has.
struct SstRange {
  const NamedStream* source = nullptr;
  std::string first_key;
  std::string last_key;
};

Status sst_problem(Error&& e, const NamedStream& f, const ProblemSink& problems) {
  return problems(std::move(e).with_context(fmt::format("sst '{}'", f.name)));
}

// [lower, upper) key ranges of one scan; an empty bound is open.
using KeyBounds = std::vector<std::pair<std::string, std::string>>;

bool outside_bounds(const SstRange& t, const std::string& lower, const std::string& upper) {
  if (t.first_key.empty() && t.last_key.empty()) return false;
  return (!upper.empty() && t.first_key >= upper) || (!lower.empty() && t.last_key < lower);
}

// The least key above every key that starts with `prefix` (empty: none, to the end).
std::string after_prefix(std::string prefix) {
  while (!prefix.empty() && static_cast<uint8_t>(prefix.back()) == 0xff) prefix.pop_back();
  if (!prefix.empty()) prefix.back() = static_cast<char>(static_cast<uint8_t>(prefix.back()) + 1);
  return prefix;
}

// A lookup whose keys this state's key serializer encodes reads, per key group wanted and key,
// only the keys that start with the key-group prefix and the serialized key: RocksDB sorts
// keys by their bytes and Flink's composite key puts the key right after the prefix, so they
// are one run, found by a seek. nullopt where the keys' bytes are not known (the key groups
// are scanned).
std::optional<KeyBounds> lookup_bounds(const KeyedStateCodec& codec, const StateFilter& filter,
                                       const KeyGroupRange& range, int32_t lo, int32_t hi, int prefix) {
  const std::vector<std::string>* keys = codec.lookup_key_bytes();
  if (!filter.keys || !keys || filter.only_key_groups.empty()) return std::nullopt;
  KeyBounds bounds;
  auto add = [&](int32_t kg, const std::string& key) {
    std::string first;
    append_key_group_prefix(first, kg, prefix);
    first += key;
    std::string end = after_prefix(first);
    bounds.emplace_back(std::move(first), std::move(end));
  };
  if (filter.key_groups_of_keys.size() == filter.keys->keys.size()) {
    // Each key in its own group: as many seeks as keys, not keys times groups.
    for (const auto& [key, i] : codec.lookup_key_spellings()) {
      const int32_t kg = filter.key_groups_of_keys[i];
      if (kg >= lo && kg <= hi && range.contains(kg) && filter.wants_key_group(kg)) add(kg, key);
    }
    std::sort(bounds.begin(), bounds.end());
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    return bounds;
  }
  for (int32_t kg : filter.only_key_groups) {
    if (kg < lo || kg > hi || !range.contains(kg)) continue;
    for (const std::string& key : *keys) add(kg, key);
  }
  std::sort(bounds.begin(), bounds.end());
  return bounds;
}

// One state of a handle as it is scanned: its codec and its SSTs (sorted by first key unless
// they overlap, when the instance reads the column family).
struct StateScan {
  const StateMetaInfo* info = nullptr;
  std::unique_ptr<KeyedStateCodec> codec;
  std::vector<SstRange> ssts;
  bool overlap = false;
};

Status read_rocks_entry(const KeyedStateCodec& codec, const KeyGroupRange& range, const StateFilter& filter,
                        std::string_view key, std::string_view value, const EntrySink& sink) {
  int32_t kg = key_group_of_rocks_key(key, codec.prefix_bytes());
  if (!range.contains(kg) || !filter.wants_key_group(kg)) return Status::OK();
  Status r = codec.read_rocks_entry(key, 0, value, 0, sink);
  if (!r.ok() && !is_stop(r.error())) return std::move(r).error().with_context(fmt::format("key group {}", kg));
  return r;
}

// StateFilter::key_group_major: every state's entries of a key group before the next key
// group's, as the heap layout orders them. Each SST is opened once and held for the whole
// handle; a key group is one bounded scan (a seek) per state and overlapping file.
Status scan_by_key_group(const KeyedHandle& handle, const StreamOpener& streams, const StateFilter& filter,
                         const std::vector<StateScan>& scans, const RocksInstanceReader* instance, int32_t lo,
                         int32_t hi, int prefix, const EntrySink& sink, const ProblemSink& problems) {
  struct OpenSst {
    StateStream stream;
    SstFile sst;
  };
  std::vector<std::vector<std::optional<OpenSst>>> files(scans.size());
  for (size_t i = 0; i < scans.size(); ++i) {
    if (scans[i].overlap) continue;
    for (const SstRange& t : scans[i].ssts) {
      std::optional<OpenSst>& f = files[i].emplace_back();
      Result<StateStream> stream = streams.open(t.source->handle);
      Result<SstFile> sst = stream.ok() ? SstFile::open(*stream) : Result<SstFile>(stream.error());
      if (sst.ok())
        f = OpenSst{std::move(stream).value(), std::move(sst).value()};
      else
        CKPT_RETURN_IF_ERROR(sst_problem(stream.ok() ? stream->stamp(std::move(sst).error()) : std::move(sst).error(),
                                         *t.source, problems));
    }
  }
  const int64_t end = int64_t{1} << (8 * prefix);
  for (int32_t kg = lo; kg <= hi; ++kg) {
    if (!filter.wants_key_group(kg)) continue;
    std::string from, to;
    append_key_group_prefix(from, kg, prefix);
    if (kg + 1 < end) append_key_group_prefix(to, kg + 1, prefix);
    for (size_t i = 0; i < scans.size(); ++i) {
      const StateScan& scan = scans[i];
      auto entry = [&](std::string_view key, std::string_view value) {
        return read_rocks_entry(*scan.codec, handle.range, filter, key, value, sink);
      };
      if (scan.overlap) {
        Status s = instance->for_each(scan.info->name, entry, from, to);
        if (!s.ok()) {
          if (is_stop(s.error())) return s;
          CKPT_RETURN_IF_ERROR(problems(std::move(s).error().with_context(fmt::format("state '{}'", scan.info->name))));
        }
        continue;
      }
      for (size_t j = 0; j < scan.ssts.size(); ++j) {
        if (!files[i][j] || outside_bounds(scan.ssts[j], from, to)) continue;
        Status s = files[i][j]->sst.for_each(entry, from, to);
        if (!s.ok()) {
          if (is_stop(s.error())) return s;
          Error e = files[i][j]->stream.stamp(std::move(s).error());
          files[i][j].reset();  // damaged: reported once, not again for each key group
          CKPT_RETURN_IF_ERROR(sst_problem(std::move(e), *scan.ssts[j].source, problems));
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace

Result<KeyedBackendMeta> read_meta_data_stream(const StreamHandle& handle, const StreamOpener& streams) {
  auto meta = streams.read(handle, [](const StateStream& stream) -> Result<KeyedBackendMeta> {
    std::string bytes;
    CKPT_RETURN_IF_ERROR(stream.read_all(&bytes));
    ByteReader r(bytes, stream.base());
    auto meta = read_keyed_backend_meta(r);
    if (meta.ok()) meta->set_source(stream.file(), stream.offsets_context());
    return meta;
  });
  if (!meta.ok()) return std::move(meta).error().with_context("meta data stream");
  return meta;
}

Status read_incremental_handle(const KeyedHandle& handle, const StreamOpener& streams, int32_t max_parallelism,
                               const StateFilter& filter, const EntrySink& sink, const ProblemSink& problems) {
  CKPT_ASSIGN_OR_RETURN(const KeyedBackendMeta meta, read_meta_data_stream(handle.delegate, streams));
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ValueDecoder> key_decoder, make_decoder(meta.key_serializer));
  // Flink's restore opens the instance through CURRENT and its MANIFEST: damage there fails it
  // although every SST reads.
  if (Status s = check_instance_files(handle, streams); !s.ok())
    CKPT_RETURN_IF_ERROR(problems(std::move(s).error().with_context("instance files")));

  // A filter narrower than the handle's range (--key-group, --key) is a bounded scan: seek to
  // the first wanted key group's prefix, stop before the prefix after the last, and leave out
  // the SSTs wholly outside, so a lookup reads a few blocks instead of the whole state.
  int32_t lo = std::max(filter.first_key_group, handle.range.first);
  int32_t hi = std::min(filter.last_key_group, handle.range.last());
  if (!filter.only_key_groups.empty()) {
    lo = std::max(lo, filter.only_key_groups.front());
    hi = std::min(hi, filter.only_key_groups.back());
  }
  if (lo > hi) return Status::OK();
  const int prefix = key_group_prefix_bytes(max_parallelism);
  std::string lower, upper;
  if (lo > handle.range.first) append_key_group_prefix(lower, lo, prefix);
  if (hi < handle.range.last() && hi + 1 < (int32_t{1} << (8 * prefix))) append_key_group_prefix(upper, hi + 1, prefix);
  auto outside = [&](const SstRange& t) { return outside_bounds(t, lower, upper); };

  // Open every SST once and group them by state, in the proxy's state order.
  std::vector<const NamedStream*> files;
  for (const auto* list : {&handle.shared_files, &handle.private_files})
    for (const NamedStream& f : *list)
      if (is_sst_name(f.name)) files.push_back(&f);
  std::sort(files.begin(), files.end(), [](const NamedStream* a, const NamedStream* b) { return a->name < b->name; });
  std::vector<std::vector<SstRange>> by_state(meta.states.size());
  for (const NamedStream* f : files) {
    Status s = streams.read(f->handle, [&](const StateStream& stream) -> Status {
      CKPT_ASSIGN_OR_RETURN(SstFile sst, SstFile::open(stream));
      const std::string& cf = sst.column_family();
      auto it = std::find_if(meta.states.begin(), meta.states.end(),
                             [&](const StateMetaInfo& s) { return s.name == cf; });
      if (it != meta.states.end()) {
        SstRange t{f, sst.first_key(), sst.last_key()};
        if (!outside(t)) by_state[it - meta.states.begin()].push_back(std::move(t));
        return Status::OK();
      }
      if (cf == "default" || sst.num_entries() == 0) return Status::OK();  // Flink never writes there
      return Error(ErrorCode::kCorruption,
                   fmt::format("sst of column family '{}', which the meta data stream does not name", cf));
    });
    if (!s.ok()) CKPT_RETURN_IF_ERROR(sst_problem(std::move(s).error(), *f, problems));
  }

  // One scan per wanted state: its codec, and its SSTs in key order (or the instance, where
  // they overlap).
  std::unique_ptr<RocksInstanceReader> instance;  // opened on the first overlapping state
  std::vector<StateScan> scans;
  for (size_t id = 0; id < meta.states.size(); ++id) {
    const StateMetaInfo& info = meta.states[id];
    if (by_state[id].empty() || !filter.wants_state(info.name)) continue;
    auto codec_or = KeyedStateCodec::make(info, *key_decoder, max_parallelism);
    if (!codec_or.ok()) {
      CKPT_RETURN_IF_ERROR(problems(std::move(codec_or).error().with_context(fmt::format("state '{}'", info.name))));
      continue;
    }
    StateScan scan{&info, std::move(codec_or).value(), std::move(by_state[id])};
    scan.codec->set_json_text(filter.json_text);
    scan.codec->set_values(filter.values);
    scan.codec->set_decode(filter.decode);
    scan.codec->set_raw_bytes(filter.raw_bytes);
    scan.codec->set_key_filter(filter.keys.get());
    if (scan.ssts.size() > 1) {
      // Per-file iterators cannot see deletes and merges across files: a column family whose
      // files overlap is read through the instance, as Flink's restore opens it.
      std::vector<std::pair<std::string, std::string>> ranges;
      for (const SstRange& t : scan.ssts) {
        if (t.first_key.empty() && t.last_key.empty()) continue;
        ranges.emplace_back(t.first_key, t.last_key);
      }
      std::sort(ranges.begin(), ranges.end());
      for (size_t i = 1; i < ranges.size(); ++i) scan.overlap |= ranges[i].first <= ranges[i - 1].second;
      if (scan.overlap && !instance) {
        auto opened = RocksInstanceReader::open(handle, streams);
        if (!opened.ok()) {
          CKPT_RETURN_IF_ERROR(problems(std::move(opened).error().with_context(fmt::format("state '{}'", info.name))));
          continue;
        }
        instance = std::move(opened).value();
      }
      if (!scan.overlap)
        std::sort(scan.ssts.begin(), scan.ssts.end(),
                  [](const SstRange& a, const SstRange& b) { return a.first_key < b.first_key; });
    }
    scans.push_back(std::move(scan));
  }
  if (filter.key_group_major)
    return scan_by_key_group(handle, streams, filter, scans, instance.get(), lo, hi, prefix, sink, problems);

  for (const StateScan& scan : scans) {
    const std::string& name = scan.info->name;
    auto entry = [&](std::string_view key, std::string_view value) {
      return read_rocks_entry(*scan.codec, handle.range, filter, key, value, sink);
    };
    const KeyBounds bounds =
        lookup_bounds(*scan.codec, filter, handle.range, lo, hi, prefix).value_or(KeyBounds{{lower, upper}});
    if (scan.overlap) {
      Status s = Status::OK();
      for (const auto& [from, to] : bounds)
        if (s.ok()) s = instance->for_each(name, entry, from, to);
      if (!s.ok()) {
        if (is_stop(s.error())) return s;
        CKPT_RETURN_IF_ERROR(problems(std::move(s).error().with_context(fmt::format("state '{}'", name))));
      }
      continue;
    }
    for (const SstRange& t : scan.ssts) {
      if (std::all_of(bounds.begin(), bounds.end(),
                      [&](const auto& b) { return outside_bounds(t, b.first, b.second); }))
        continue;
      Status s = streams.read(t.source->handle, [&](const StateStream& stream) -> Status {
        CKPT_ASSIGN_OR_RETURN(SstFile sst, SstFile::open(stream));
        if (bounds.size() == 1) return sst.for_each(entry, bounds[0].first, bounds[0].second);
        KeyBounds inside;  // a lookup's keys: one seek each through one iterator
        for (const auto& b : bounds)
          if (!outside_bounds(t, b.first, b.second)) inside.push_back(b);
        return sst.for_each_in(entry, inside);
      });
      if (!s.ok()) {
        if (is_stop(s.error())) return s;
        CKPT_RETURN_IF_ERROR(sst_problem(std::move(s).error(), *t.source, problems));
      }
    }
  }
  return Status::OK();
}

}  // namespace ckpt
