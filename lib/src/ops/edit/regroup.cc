// Keys moved to the key groups of another max parallelism: spilled per output subtask, read
// back in sorted runs merged by key group.
#include "ops/edit/regroup.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <queue>

#include <fmt/format.h>

#include "state/keyed_state_codec.h"
#include "state/layout_transcoder.h"
#include "state/raw_keyed_reader.h"
#include "state/raw_timers_reader.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "support/spill_file.h"
#include "support/worker_threads.h"
#include "types/value_decoder.h"

namespace ckpt {

namespace {

// Spill buffers: a bucket's appends gathered into writes of this size (up to 512 buckets: 32 MiB),
// and its reads into reads of it.
constexpr size_t kSpillBuffer = 64 << 10;

struct Record {
  int32_t key_group = 0;
  uint32_t state = 0;
  RocksPair pair;
  bool operator<(const Record& o) const {
    if (key_group != o.key_group) return key_group < o.key_group;
    if (state != o.state) return state < o.state;
    return pair.key < o.pair.key;
  }
};

// A record: key group, state, key and value lengths, then the key and the value. `head` is
// scratch space, reused so that a pair costs no allocation on the way to the spill's buffer.
Status append(SpillFile& f, int32_t key_group, uint32_t state, std::string_view key, std::string_view value,
              std::string& head) {
  ByteWriter w;
  w.i32(key_group);
  w.u32(state);
  w.u32(static_cast<uint32_t>(key.size()));
  w.u32(static_cast<uint32_t>(value.size()));
  head = w.take();
  head += key;
  return f.append(head, value);
}

// The next record's head of `f` (its key and value lengths), or false at its end.
Result<bool> next_head(SpillFile& f, uint64_t& read, int32_t* key_group, uint32_t* state, uint32_t* key,
                       uint32_t* value) {
  if (read >= f.written()) return false;
  char head[16];
  CKPT_RETURN_IF_ERROR(f.read(sizeof head, head));
  ByteReader h(std::string_view(head, sizeof head));
  *key_group = h.i32();
  *state = h.u32();
  *key = h.u32();
  *value = h.u32();
  // The lengths are ours, but a short file must not make an allocation of any size.
  if (read + sizeof head + *key + *value > f.written())
    return Error(ErrorCode::kIOError, "a spill file is shorter than the records written to it");
  read += sizeof head + *key + *value;
  return true;
}

// The next record of `f` into `r` (its strings reused), or false at its end.
Result<bool> next(SpillFile& f, uint64_t& read, Record* r) {
  uint32_t key = 0, value = 0;
  CKPT_ASSIGN_OR_RETURN(bool more, next_head(f, read, &r->key_group, &r->state, &key, &value));
  if (!more) return false;
  r->pair.key.resize(key);
  r->pair.value.resize(value);
  CKPT_RETURN_IF_ERROR(f.read(key, r->pair.key.data()));
  CKPT_RETURN_IF_ERROR(f.read(value, r->pair.value.data()));
  return true;
}

// Bytes appended without the zero fill of std::string::resize; they are read over at once.
class Arena {
 public:
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }
  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n <= cap_) return;
    std::unique_ptr<char[]> bigger(new char[n]);
    if (size_) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    cap_ = n;
  }
  // `n` more bytes, uninitialized, at the end.
  char* extend(size_t n) {
    if (n > cap_ - size_) reserve(std::max(cap_ * 2, size_ + n));
    char* at = data_.get() + size_;
    size_ += n;
    return at;
  }
  std::string_view view(uint64_t at, size_t n) const { return std::string_view(data_.get() + at, n); }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0, cap_ = 0;
};

// A record read back into memory: its key and value bytes in the bucket's arena, so that
// sorting moves 24 bytes and reading a pair back costs no allocation.
struct Slot {
  int32_t key_group = 0;
  uint32_t state = 0;
  uint64_t at = 0;  // key, then value, in the arena
  uint32_t key = 0, value = 0;
};

// One run: a spill file and where its reading is.
struct Run {
  std::unique_ptr<SpillFile> file;
  uint64_t read = 0;
  Record head;
};

}  // namespace

KeyGroupRange key_group_range_of_subtask(int32_t max_parallelism, int32_t parallelism, int32_t index) {
  const int64_t start = (static_cast<int64_t>(index) * max_parallelism + parallelism - 1) / parallelism;
  const int64_t end = (static_cast<int64_t>(index + 1) * max_parallelism - 1) / parallelism;
  return {static_cast<int32_t>(start), static_cast<int32_t>(end - start + 1)};
}

struct Regrouper::Impl {
  int32_t max_parallelism = 0;
  int32_t parallelism = 0;
  size_t run_bytes = Regrouper::kRunBytes;
  KeyedBackendMeta meta;  // the states of every input subtask, by name (the first one's order)
  ConvertTarget layout = ConvertTarget::kHeap;
  // Per output subtask, per bucket: a bucket is a slice of the subtask's key groups (ascending),
  // sized to hold about a run, so that most are sorted in memory and read back once.
  // Each with its own lock: threads reading other input subtasks seldom wait for one another.
  struct Bucket {
    std::unique_ptr<SpillFile> file;
    std::mutex mu;
  };
  std::vector<std::vector<std::unique_ptr<Bucket>>> spills;
  std::vector<bool> any;  // output subtask had state (every one, when any input subtask had)

  // Legacy timers by new key group: per service (in `timer_heads`' order) the event- and
  // processing-time timers' bytes.
  using TimerLists = std::vector<std::array<std::vector<std::string>, 2>>;
  std::map<int32_t, TimerLists> timers;
  std::vector<std::string> timer_heads;  // each service's name and serializers, as stored
  int32_t timer_version = 0;
  bool timer_blocks = false;  // an input subtask had a timer block
  uint64_t timers_moved = 0;
  std::mutex timers_mu;

  // One input subtask's raw keyed timers, each put in the key group of its key.
  Status move_timers(const SubtaskState& st, const StreamOpener& streams) {
    const KeyedHandle& raw = st.raw_keyed;
    if (raw.type != handle_type::kKeyGroups && raw.type != handle_type::kKeyGroupsWithId)
      return Error(ErrorCode::kNotSupported, fmt::format("raw keyed state handle type {:#04x} ({}) cannot be regrouped",
                                                         raw.type, handle_type_name(raw.type)));
    return streams.read(raw.delegate, [&](const StateStream& stream) {
      return read_raw_timer_blocks(raw, stream, [&](int32_t, RawTimerBlock&& block) -> Status {
        std::lock_guard<std::mutex> lock(timers_mu);
        if (!timer_blocks) timer_version = block.version;
        timer_blocks = true;
        if (block.version != timer_version)
          return Error(ErrorCode::kNotSupported,
                       fmt::format("timer blocks of versions {} and {} in one operator", timer_version, block.version));
        for (RawTimerService& service : block.services) {
          auto at = std::find(timer_heads.begin(), timer_heads.end(), service.head);
          const size_t index = static_cast<size_t>(at - timer_heads.begin());
          if (at == timer_heads.end()) timer_heads.push_back(service.head);
          for (int list = 0; list < 2; ++list)
            for (RawTimer& t : service.timers[list]) {
              if (!t.key_hash)
                return Error(ErrorCode::kNotSupported,
                             "raw keyed timers: the Java hashCode of their keys is not known, so their key groups "
                             "cannot be recomputed");
              TimerLists& lists = timers[key_group_for_hash(*t.key_hash, max_parallelism)];
              if (lists.size() <= index) lists.resize(index + 1);
              lists[index][list].push_back(std::move(t.bytes));
              ++timers_moved;
            }
        }
        return Status::OK();
      });
    });
  }

  size_t bucket_of(int32_t subtask, int32_t key_group) const {
    const KeyGroupRange range = key_group_range_of_subtask(max_parallelism, parallelism, subtask);
    const size_t buckets = spills[subtask].size();
    return static_cast<size_t>(static_cast<int64_t>(key_group - range.first) * static_cast<int64_t>(buckets) /
                               range.count);
  }

  uint32_t state_index(const StateMetaInfo& s) {
    for (size_t i = 0; i < meta.states.size(); ++i)
      if (meta.states[i].name == s.name) return static_cast<uint32_t>(i);
    meta.states.push_back(s);
    return static_cast<uint32_t>(meta.states.size() - 1);
  }

  int32_t subtask_of(int32_t key_group) const {
    // KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup
    return static_cast<int32_t>(static_cast<int64_t>(key_group) * parallelism / max_parallelism);
  }

  // One input subtask's proxy, read before any pair so that the output proxy's states are in
  // the same order whatever order the subtasks are then read in.
  struct Input {
    const SubtaskState* st = nullptr;
    RawKeyedSource source;
    std::vector<uint32_t> ids;  // output state of each of its states
  };
  Result<Input> open(const OperatorState& op, const SubtaskState& st, const StreamOpener& streams,
                     const SerializerSnapshot* key_fallback) {
    Input in;
    in.st = &st;
    CKPT_ASSIGN_OR_RETURN(in.source, open_raw_keyed(st.managed_keyed, streams, op.max_parallelism, key_fallback));
    if (meta.states.empty() && meta.key_serializer.snapshot_class.empty()) {
      meta.version = in.source.meta.version;
      meta.key_serializer = in.source.meta.key_serializer;
      layout = same_layout_target(st.managed_keyed);
    }
    for (const StateMetaInfo& s : in.source.meta.states) in.ids.push_back(state_index(s));
    return in;
  }

  // Every pair of one input subtask spilled under its new key group.
  Status spill(const OperatorState& op, const Input& in, const StreamOpener& streams, std::atomic<uint64_t>* pairs) {
    const KeyedHandle& h = in.st->managed_keyed;
    const RawKeyedSource& source = in.source;
    const std::vector<uint32_t>& ids = in.ids;
    CKPT_ASSIGN_OR_RETURN(std::unique_ptr<ValueDecoder> key_decoder, make_decoder(source.meta.key_serializer));
    std::vector<std::unique_ptr<KeyedStateCodec>> codecs;
    for (const StateMetaInfo& s : source.meta.states) {
      CKPT_ASSIGN_OR_RETURN(std::unique_ptr<KeyedStateCodec> codec,
                            KeyedStateCodec::make(s, *key_decoder, op.max_parallelism));
      codecs.push_back(std::move(codec));
    }
    const int old_prefix = key_group_prefix_bytes(op.max_parallelism);
    const int new_prefix = key_group_prefix_bytes(max_parallelism);
    std::string new_key, head;  // per pair, reused
    return read_raw_keyed(
        h, source, streams, op.max_parallelism, [&](int32_t, std::vector<std::vector<RocksPair>>& by_state) -> Status {
          uint64_t spilled = 0;
          for (size_t i = 0; i < by_state.size() && i < codecs.size(); ++i)
            for (const RocksPair& p : by_state[i]) {
              CKPT_ASSIGN_OR_RETURN(std::optional<int32_t> hash, codecs[i]->key_hash_of_rocks_entry(p.key, p.value));
              if (!hash)
                return Error(ErrorCode::kNotSupported,
                             fmt::format("state '{}': the Java hashCode of its keys ({}) is not known, so their key "
                                         "groups cannot be recomputed",
                                         codecs[i]->name(), key_decoder->serializer_class()));
              const int32_t kg = key_group_for_hash(*hash, max_parallelism);
              new_key.clear();
              append_key_group_prefix(new_key, kg, new_prefix);
              new_key.append(p.key, static_cast<size_t>(old_prefix), std::string::npos);
              const int32_t to = subtask_of(kg);
              Bucket& b = *spills[to][bucket_of(to, kg)];
              std::lock_guard<std::mutex> lock(b.mu);
              CKPT_RETURN_IF_ERROR(append(*b.file, kg, ids[i], new_key, p.value, head));
              ++spilled;
            }
          *pairs += spilled;  // atomic, once per key group
          return Status::OK();
        });
  }

  // Output subtask `index`'s pairs, key group by key group ascending: its buckets in order.
  Status produce(int32_t index, const KeyGroupPairsFn& fn) {
    for (const std::unique_ptr<Bucket>& bucket : spills[index]) CKPT_RETURN_IF_ERROR(produce(*bucket->file, fn));
    return Status::OK();
  }

  // One bucket's pairs by key group: sorted in memory, or (a bucket larger than a run, when the
  // state is skewed) in sorted runs spilled again and merged. Pairs reach `fn` from per-state
  // pools, so that their strings' memory is reused from key group to key group.
  Status produce(SpillFile& all, const KeyGroupPairsFn& fn) {
    uint64_t read = 0;
    std::vector<Run> runs;
    std::vector<Slot> slots;
    Arena arena;
    std::vector<std::vector<RocksPair>> by_state(meta.states.size());
    std::vector<RocksPairPool> pools(meta.states.size());
    arena.reserve(static_cast<size_t>(std::min<uint64_t>(all.written(), run_bytes + kSpillBuffer)));
    auto sort_slots = [&] {
      std::sort(slots.begin(), slots.end(), [&](const Slot& x, const Slot& y) {
        if (x.key_group != y.key_group) return x.key_group < y.key_group;
        if (x.state != y.state) return x.state < y.state;
        return arena.view(x.at, x.key) < arena.view(y.at, y.key);
      });
    };
    bool more = true;
    while (more) {
      Slot r;
      CKPT_ASSIGN_OR_RETURN(more, next_head(all, read, &r.key_group, &r.state, &r.key, &r.value));
      if (more) {
        if (r.state >= by_state.size())
          return Error(ErrorCode::kIOError, "a spill file holds a state that was never spilled");
        r.at = arena.size();
        CKPT_RETURN_IF_ERROR(all.read(r.key + r.value, arena.extend(r.key + r.value)));
        slots.push_back(r);
      }
      if (!more && runs.empty()) break;  // everything fits one run: merged from memory below
      if ((!more || arena.size() + slots.size() * sizeof(Slot) >= run_bytes) && !slots.empty()) {
        sort_slots();
        Run run;
        CKPT_ASSIGN_OR_RETURN(run.file, SpillFile::create(kSpillBuffer));
        std::string head;
        for (const Slot& x : slots)
          CKPT_RETURN_IF_ERROR(append(*run.file, x.key_group, x.state, arena.view(x.at, x.key),
                                      arena.view(x.at + x.key, x.value), head));
        runs.push_back(std::move(run));
        slots.clear();
        arena.clear();
      }
    }
    if (runs.empty()) {
      sort_slots();
      for (size_t i = 0; i < slots.size();) {
        const int32_t kg = slots[i].key_group;
        for (; i < slots.size() && slots[i].key_group == kg; ++i) {
          const Slot& x = slots[i];
          RocksPair& p = pools[x.state].add(by_state[x.state]);
          p.key.assign(arena.view(x.at, x.key));
          p.value.assign(arena.view(x.at + x.key, x.value));
        }
        CKPT_RETURN_IF_ERROR(fn(kg, by_state));
        RocksPairPool::recycle(by_state, pools);
      }
      return Status::OK();
    }
    // A k-way merge of the runs by key group.
    auto later = [&](size_t a, size_t b) { return runs[b].head < runs[a].head; };
    std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heads(later);
    for (size_t i = 0; i < runs.size(); ++i) {
      CKPT_ASSIGN_OR_RETURN(bool has, next(*runs[i].file, runs[i].read, &runs[i].head));
      if (has) heads.push(i);
    }
    int32_t current = -1;
    auto flush = [&]() -> Status {
      if (current < 0) return Status::OK();
      Status s = fn(current, by_state);
      RocksPairPool::recycle(by_state, pools);
      return s;
    };
    while (!heads.empty()) {
      const size_t i = heads.top();
      heads.pop();
      if (runs[i].head.key_group != current) {
        CKPT_RETURN_IF_ERROR(flush());
        current = runs[i].head.key_group;
      }
      // The head's pair handed over, a pooled one (with its capacity) taking its place.
      std::swap(pools[runs[i].head.state].add(by_state[runs[i].head.state]), runs[i].head.pair);
      CKPT_ASSIGN_OR_RETURN(bool has, next(*runs[i].file, runs[i].read, &runs[i].head));
      if (has) heads.push(i);
    }
    return flush();
  }
};

Regrouper::Regrouper(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Regrouper::~Regrouper() = default;

Result<std::unique_ptr<Regrouper>> Regrouper::make(const OperatorState& in, int32_t max_parallelism,
                                                   int32_t parallelism, const StreamOpener& streams, int jobs,
                                                   const SerializerSnapshot* key_fallback, size_t run_bytes) {
  auto impl = std::make_unique<Impl>();
  impl->run_bytes = run_bytes;
  impl->max_parallelism = max_parallelism;
  impl->parallelism = parallelism;
  if (parallelism < 1 || parallelism > max_parallelism)
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("parallelism {} is not in 1..{}", parallelism, max_parallelism));
  // Buckets per output subtask from the input's stored size (tripled: SSTs are compressed),
  // at most 512 spill files in all.
  uint64_t stored = 0;
  for (const SubtaskState& st : in.subtasks) {
    const KeyedHandle& h = st.managed_keyed;
    stored += static_cast<uint64_t>(std::max<int64_t>(0, h.delegate.state_size()));
    for (const auto* files : {&h.private_files, &h.shared_files})
      for (const NamedStream& f : *files) stored += static_cast<uint64_t>(std::max<int64_t>(0, f.handle.state_size()));
  }
  const uint64_t per_subtask = stored * 3 / static_cast<uint64_t>(parallelism);
  const uint64_t wanted = std::max<uint64_t>(1, (per_subtask + run_bytes - 1) / run_bytes);
  const uint64_t cap = std::max<uint64_t>(1, 512 / static_cast<uint64_t>(parallelism));
  impl->spills.resize(static_cast<size_t>(parallelism));
  for (int32_t i = 0; i < parallelism; ++i) {
    const KeyGroupRange range = key_group_range_of_subtask(max_parallelism, parallelism, i);
    const uint64_t buckets = std::min<uint64_t>({wanted, cap, static_cast<uint64_t>(std::max(1, range.count))});
    for (uint64_t b = 0; b < buckets; ++b) {
      auto bucket = std::make_unique<Impl::Bucket>();
      CKPT_ASSIGN_OR_RETURN(bucket->file, SpillFile::create(kSpillBuffer));
      impl->spills[i].push_back(std::move(bucket));
    }
  }
  impl->any.assign(static_cast<size_t>(parallelism), false);
  std::vector<Impl::Input> inputs;
  for (const SubtaskState& st : in.subtasks) {
    if (!st.raw_keyed.is_null()) {
      Status moved = impl->move_timers(st, streams);
      if (!moved.ok()) return std::move(moved).error().with_context(fmt::format("subtask {}", st.index));
    }
    if (st.managed_keyed.is_null()) continue;
    auto input = impl->open(in, st, streams, key_fallback);
    if (!input.ok()) return std::move(input).error().with_context(fmt::format("subtask {}", st.index));
    inputs.push_back(std::move(input).value());
  }
  const bool keyed = !inputs.empty();
  std::atomic<uint64_t> pairs{0};
  CKPT_RETURN_IF_ERROR(run_parallel(inputs.size(), jobs, [&](size_t i) -> Status {
    Status s = impl->spill(in, inputs[i], streams, &pairs);
    if (s.ok()) return s;
    return std::move(s).error().with_context(fmt::format("subtask {}", inputs[i].st->index));
  }));
  // Every output subtask of an operator with keyed state gets a handle, as Flink's heap
  // backend writes one per subtask.
  if (keyed) impl->any.assign(impl->any.size(), true);
  auto r = std::unique_ptr<Regrouper>(new Regrouper(std::move(impl)));
  r->pairs_ = pairs + r->impl_->timers_moved;
  return r;
}

std::optional<RawKeyedStream> Regrouper::raw_keyed(int32_t index) const {
  if (!impl_->timer_blocks || index < 0 || index >= impl_->parallelism) return std::nullopt;
  RawKeyedStream out;
  out.range = key_group_range_of_subtask(impl_->max_parallelism, impl_->parallelism, index);
  // Every key group of the range gets its block, the services each lists in the same order, as
  // Flink writes them; timers in the order of their bytes (Flink's is a hash set's), so that
  // the same timers give the same stream.
  for (int32_t kg = out.range.first; kg < out.range.first + out.range.count; ++kg) {
    RawTimerBlock block;
    block.version = impl_->timer_version;
    auto found = impl_->timers.find(kg);
    for (size_t s = 0; s < impl_->timer_heads.size(); ++s) {
      RawTimerService& service = block.services.emplace_back();
      service.head = impl_->timer_heads[s];
      if (found == impl_->timers.end() || s >= found->second.size()) continue;
      for (int list = 0; list < 2; ++list) {
        std::vector<std::string> bytes = found->second[s][list];
        std::sort(bytes.begin(), bytes.end());
        for (std::string& b : bytes) service.timers[list].push_back({std::move(b), std::nullopt});
      }
    }
    out.offsets.push_back(static_cast<int64_t>(out.bytes.size()));
    out.bytes += write_raw_timer_block(block);
  }
  return out;
}

std::optional<KeyedSource> Regrouper::source(int32_t index) {
  if (index < 0 || static_cast<size_t>(index) >= impl_->spills.size() || !impl_->any[index]) return std::nullopt;
  KeyedSource s;
  s.meta = impl_->meta;
  s.range = key_group_range_of_subtask(impl_->max_parallelism, impl_->parallelism, index);
  s.layout = impl_->layout;
  Impl* impl = impl_.get();
  s.produce = [impl, index](const KeyGroupPairsFn& fn) { return impl->produce(index, fn); };
  return s;
}

}  // namespace ckpt
