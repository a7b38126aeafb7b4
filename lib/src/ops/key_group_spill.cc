// Pairs spilled per output subtask, read back in sorted runs merged by key group.
#include "ops/key_group_spill.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <queue>

#include <fmt/format.h>

#include "state/layout_transcoder.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "support/huge_pages.h"
#include "support/spill_file.h"

namespace ckpt {

namespace {

// Spill buffers: a bucket's appends gathered into writes of `spill_buffer` bytes and its reads
// into reads of it: all buckets' buffers together kSpillBuffers, each of kMinSpillBuffer to
// kSpillBuffer (large sequential blocks where the buckets are few).
constexpr size_t kSpillBuffers = size_t{32} << 20;
constexpr size_t kMinSpillBuffer = size_t{64} << 10;
constexpr size_t kSpillBuffer = size_t{1} << 20;

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
  w.buffer().swap(head);  // head's memory, not a new string per record
  w.buffer().clear();
  w.i32(key_group);
  w.u32(state);
  w.u32(static_cast<uint32_t>(key.size()));
  w.u32(static_cast<uint32_t>(value.size()));
  w.bytes(key);
  head = w.take();
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
// In huge pages: a bucket's records are read back in sorted order, all over its bytes, and
// with 4 KiB pages (a mapping of the spill file) a TLB miss on a virtual machine was a tenth
// of a regrouping's time.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    if (data_) unmap_pages(data_, cap_);
  }
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n <= cap_) return;
    auto* bigger = static_cast<char*>(map_huge_pages(n));
    if (!bigger) throw std::bad_alloc();
    if (size_) std::memcpy(bigger, data_, size_);
    if (data_) unmap_pages(data_, cap_);
    data_ = bigger;
    cap_ = n;
  }
  // `n` more bytes, uninitialized, at the end.
  char* extend(size_t n) {
    if (n > cap_ - size_) reserve(std::max(cap_ * 2, size_ + n));
    char* at = data_ + size_;
    size_ += n;
    return at;
  }

 private:
  char* data_ = nullptr;
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

struct KeyGroupSpill::Impl {
  std::vector<KeyGroupRange> ranges;
  size_t run_bytes = KeyGroupSpill::kRunBytes;
  bool sorted = true;
  // Per subtask, per bucket: a bucket is a slice of the subtask's key groups (ascending),
  // sized to hold about a run, so that most are sorted in memory and read back once.
  // Each with its own lock: threads adding pairs of other key groups seldom wait for one another.
  struct Bucket {
    std::unique_ptr<SpillFile> file;
    std::mutex mu;
  };
  std::vector<std::vector<std::unique_ptr<Bucket>>> spills;
  size_t spill_buffer = kMinSpillBuffer;
  // The memory a subtask's buckets are read back into, kept for the next subtask: faulted in
  // and cleared by the kernel once per thread, not once per subtask.
  struct ReadBack {
    std::vector<Slot> slots;
    Arena arena;
  };
  std::mutex read_backs_mu;
  std::vector<std::unique_ptr<ReadBack>> read_backs;

  std::unique_ptr<ReadBack> take_read_back() {
    std::lock_guard<std::mutex> lock(read_backs_mu);
    if (read_backs.empty()) return std::make_unique<ReadBack>();
    std::unique_ptr<ReadBack> r = std::move(read_backs.back());
    read_backs.pop_back();
    return r;
  }
  void give_read_back(std::unique_ptr<ReadBack> r) {
    std::lock_guard<std::mutex> lock(read_backs_mu);
    read_backs.push_back(std::move(r));
  }

  size_t bucket_of(int32_t subtask, int32_t key_group) const {
    const KeyGroupRange& range = ranges[subtask];
    const size_t buckets = spills[subtask].size();
    return static_cast<size_t>(static_cast<int64_t>(key_group - range.first) * static_cast<int64_t>(buckets) /
                               range.count);
  }

  // One bucket's pairs by key group: sorted in memory, or (a bucket larger than a run, when the
  // state is skewed) in sorted runs spilled again and merged. Pairs reach `fn` from per-state
  // pools, so that their strings' memory is reused from key group to key group.
  // `slots` and `arena`: a subtask's buckets read back one after the other into the same
  // memory (a new arena per bucket cost a page fault per 4 KiB read back).
  // `slots`, their bytes at `base`, sorted: by key group, state, then key (sorted) or the
  // order they were added (their place in the bytes).
  void sort_slots(std::vector<Slot>& slots, const char* base) const {
    std::sort(slots.begin(), slots.end(), [&](const Slot& x, const Slot& y) {
      if (x.key_group != y.key_group) return x.key_group < y.key_group;
      if (x.state != y.state) return x.state < y.state;
      return sorted ? std::string_view(base + x.at, x.key) < std::string_view(base + y.at, y.key) : x.at < y.at;
    });
  }

  // Sorted `slots` (bytes at `base`) handed to `fn` key group by key group.
  Status emit(const std::vector<Slot>& slots, const char* base, size_t states, const KeyGroupPairsFn& fn) const {
    std::vector<std::vector<RocksPair>> by_state(states);
    std::vector<RocksPairPool> pools(states);
    for (size_t i = 0; i < slots.size();) {
      const int32_t kg = slots[i].key_group;
      for (; i < slots.size() && slots[i].key_group == kg; ++i) {
        const Slot& x = slots[i];
        RocksPair& p = pools[x.state].add(by_state[x.state]);
        p.key.assign(base + x.at, x.key);
        p.value.assign(base + x.at + x.key, x.value);
      }
      CKPT_RETURN_IF_ERROR(fn(kg, by_state));
      RocksPairPool::recycle(by_state, pools);
    }
    return Status::OK();
  }

  // The record at `at` of a bucket's bytes read whole: its slot, `at` moved past it. The bytes
  // are ours, but a short or damaged spill file must not send a slot past their end.
  static Status parse_slot(std::string_view bytes, size_t& at, size_t states, Slot* r) {
    if (bytes.size() - at < 16) return Error(ErrorCode::kIOError, "a spill file ends inside a record");
    ByteReader h(bytes.substr(at, 16));
    r->key_group = h.i32();
    r->state = h.u32();
    r->key = h.u32();
    r->value = h.u32();
    at += 16;
    if (uint64_t{r->key} + r->value > bytes.size() - at)
      return Error(ErrorCode::kIOError, "a spill file is shorter than the records written to it");
    if (r->state >= states) return Error(ErrorCode::kIOError, "a spill file holds a state that was never spilled");
    r->at = at;
    at += uint64_t{r->key} + r->value;
    return Status::OK();
  }

  // A bucket that fits a run, sorted and handed over from its bytes read whole into memory
  // (one sequential read, none through a buffer). False (nothing handed over) when it does not
  // fit: its records and their slots take more than a run, as the arena's would.
  Result<bool> produce_whole(std::string_view bytes, size_t states, const KeyGroupPairsFn& fn,
                              std::vector<Slot>& slots) const {
    slots.clear();
    for (size_t at = 0; at < bytes.size();) {
      Slot r;
      CKPT_RETURN_IF_ERROR(parse_slot(bytes, at, states, &r));
      slots.push_back(r);
      if (at - 16 * slots.size() + slots.size() * sizeof(Slot) >= run_bytes && at < bytes.size()) return false;
    }
    sort_slots(slots, bytes.data());
    CKPT_RETURN_IF_ERROR(emit(slots, bytes.data(), states, fn));
    return true;
  }

  Status produce(SpillFile& all, size_t states, const KeyGroupPairsFn& fn, std::vector<Slot>& slots, Arena& arena) {
    // The bucket's bytes when they were read whole but their slots take more than a run (small
    // records): the runs are cut from them where they lie, not read from the file a second time.
    std::string_view whole;
    if (all.written() <= run_bytes) {
      // Read whole into huge pages (one sequential copy), then sorted and handed over from there.
      arena.clear();
      const size_t n = static_cast<size_t>(all.written());
      CKPT_RETURN_IF_ERROR(all.read(n, arena.extend(n)));
      whole = std::string_view(arena.data(), n);
      CKPT_ASSIGN_OR_RETURN(bool done, produce_whole(whole, states, fn, slots));
      if (done) return Status::OK();
    }
    uint64_t read = 0;  // of the file, when the records come from it
    size_t at = 0;      // of `whole`, when they come from there
    uint64_t run_bytes_held = 0;  // the keys' and values' bytes of the run being gathered
    std::vector<Run> runs;
    slots.clear();
    if (whole.empty()) {
      arena.clear();
      arena.reserve(static_cast<size_t>(std::min<uint64_t>(all.written(), run_bytes + kSpillBuffer)));
    }
    std::vector<std::vector<RocksPair>> by_state(states);
    std::vector<RocksPairPool> pools(states);
    auto base = [&] { return whole.empty() ? arena.data() : whole.data(); };
    auto sort_slots = [&] { this->sort_slots(slots, base()); };
    bool more = true;
    while (more) {
      Slot r;
      if (!whole.empty()) {
        more = at < whole.size();
        if (more) CKPT_RETURN_IF_ERROR(parse_slot(whole, at, states, &r));
      } else {
        CKPT_ASSIGN_OR_RETURN(more, next_head(all, read, &r.key_group, &r.state, &r.key, &r.value));
        if (more) {
          if (r.state >= by_state.size())
            return Error(ErrorCode::kIOError, "a spill file holds a state that was never spilled");
          r.at = arena.size();
          CKPT_RETURN_IF_ERROR(all.read(r.key + r.value, arena.extend(r.key + r.value)));
        }
      }
      if (more) {
        slots.push_back(r);
        run_bytes_held += uint64_t{r.key} + r.value;
      }
      if (!more && runs.empty()) break;  // everything fits one run: merged from memory below
      if ((!more || run_bytes_held + slots.size() * sizeof(Slot) >= run_bytes) && !slots.empty()) {
        sort_slots();
        Run run;
        CKPT_ASSIGN_OR_RETURN(run.file, SpillFile::create(kSpillBuffer));
        std::string head;
        const char* bytes = base();
        for (const Slot& x : slots)
          CKPT_RETURN_IF_ERROR(append(*run.file, x.key_group, x.state, std::string_view(bytes + x.at, x.key),
                                      std::string_view(bytes + x.at + x.key, x.value), head));
        runs.push_back(std::move(run));
        slots.clear();
        run_bytes_held = 0;
        if (whole.empty()) arena.clear();
      }
    }
    if (runs.empty()) {
      sort_slots();
      return emit(slots, base(), states, fn);
    }
    // A k-way merge of the runs by key group.
    // Unsorted: runs hold consecutive stretches of what was added, so the earlier run goes first.
    auto later = [&](size_t a, size_t b) {
      const Record& x = runs[a].head;
      const Record& y = runs[b].head;
      if (sorted || x.key_group != y.key_group || x.state != y.state) return y < x;
      return b < a;
    };
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

KeyGroupSpill::KeyGroupSpill(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
KeyGroupSpill::~KeyGroupSpill() = default;

Result<std::unique_ptr<KeyGroupSpill>> KeyGroupSpill::make(std::vector<KeyGroupRange> ranges,
                                                           uint64_t bytes_per_subtask, bool sorted, size_t run_bytes) {
  auto impl = std::make_unique<Impl>();
  impl->run_bytes = run_bytes;
  impl->sorted = sorted;
  const uint64_t wanted = std::max<uint64_t>(1, (bytes_per_subtask + run_bytes - 1) / run_bytes);
  const uint64_t cap = std::max<uint64_t>(1, 512 / std::max<uint64_t>(1, ranges.size()));
  uint64_t all = 0;
  for (const KeyGroupRange& r : ranges)
    all += std::min<uint64_t>({wanted, cap, static_cast<uint64_t>(std::max(1, r.count))});
  impl->spill_buffer = std::clamp<size_t>(kSpillBuffers / std::max<uint64_t>(1, all), kMinSpillBuffer, kSpillBuffer);
  impl->spills.resize(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const uint64_t buckets =
        std::min<uint64_t>({wanted, cap, static_cast<uint64_t>(std::max(1, ranges[i].count))});
    for (uint64_t b = 0; b < buckets; ++b) {
      auto bucket = std::make_unique<Impl::Bucket>();
      CKPT_ASSIGN_OR_RETURN(bucket->file, SpillFile::create(impl->spill_buffer));
      impl->spills[i].push_back(std::move(bucket));
    }
  }
  impl->ranges = std::move(ranges);
  return std::unique_ptr<KeyGroupSpill>(new KeyGroupSpill(std::move(impl)));
}

Status KeyGroupSpill::add(int32_t subtask, int32_t key_group, uint32_t state, std::string_view key,
                          std::string_view value) {
  if (subtask < 0 || static_cast<size_t>(subtask) >= impl_->spills.size() || !impl_->ranges[subtask].contains(key_group))
    return Error(ErrorCode::kInvalidArgument, fmt::format("key group {} is not subtask {}'s", key_group, subtask));
  Impl::Bucket& b = *impl_->spills[subtask][impl_->bucket_of(subtask, key_group)];
  thread_local std::string head;  // scratch, reused: a pair costs no allocation on the way to the buffer
  std::lock_guard<std::mutex> lock(b.mu);
  if (!b.file) return Error(ErrorCode::kInvalidArgument, fmt::format("subtask {} was read back already", subtask));
  return append(*b.file, key_group, state, key, value, head);
}

Status KeyGroupSpill::produce(int32_t index, size_t states, const KeyGroupPairsFn& fn) {
  if (index < 0 || static_cast<size_t>(index) >= impl_->spills.size())
    return Error(ErrorCode::kInvalidArgument, fmt::format("no spilled subtask {}", index));
  std::unique_ptr<Impl::ReadBack> memory = impl_->take_read_back();
  std::vector<Slot>& slots = memory->slots;
  Arena& arena = memory->arena;
  for (const std::unique_ptr<Impl::Bucket>& bucket : impl_->spills[index]) {
    if (!bucket->file) return Error(ErrorCode::kInvalidArgument, fmt::format("spilled subtask {} was read back already", index));
    CKPT_RETURN_IF_ERROR(impl_->produce(*bucket->file, states, fn, slots, arena));
    // Read back once: its pages freed now, by the thread that read it, rather than every
    // bucket's at the end by one thread (a tenth of a regrouping's time on tmpfs).
    bucket->file.reset();
  }
  impl_->give_read_back(std::move(memory));
  return Status::OK();
}

size_t KeyGroupSpill::subtasks() const { return impl_->spills.size(); }

}  // namespace ckpt
