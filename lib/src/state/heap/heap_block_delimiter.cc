// Inferring opaque heap value lengths from the key group's bounds (formats/keyed-state.md §6.1).
#include "state/heap/heap_block_delimiter.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "support/byte_reader.h"

namespace ckpt {

namespace {

constexpr size_t kBlockHeadBytes = 6;  // i16 state id, i32 entry count

bool walkable(const ValueDecoder* d) { return !d || d->decodable(); }

class Delimiter {
 public:
  Delimiter(std::string_view data, uint64_t base, const std::vector<HeapEntryLayout>& states, int32_t key_group,
            int32_t max_parallelism, const std::vector<size_t>* block_starts)
      : block_starts_(block_starts),
        data_(data),
        base_(base),
        states_(states),
        key_group_(key_group),
        max_parallelism_(max_parallelism),
        budget_(4 * static_cast<uint64_t>(data.size()) + kHeapDelimitBaseSteps),
        seen_(states.size(), 0),
        current_(states.size(), -1) {}

  Result<std::vector<int64_t>> run() {
    CKPT_ASSIGN_OR_RETURN(int ways, solve(0, 0, 0));
    if (ways == 1) return solution_;
    if (ways > 1) return Error(ErrorCode::kNotSupported, ambiguity_, ambiguous_at_);
    // Without an opaque block there was one way to read the key group: its failure is the error.
    if (!first_opaque_)
      return farthest_ ? *farthest_ : Error(ErrorCode::kCorruption, "heap key group does not parse");
    std::string why = farthest_ ? fmt::format(" (the farthest reading stopped at offset {:#x}: {})",
                                              farthest_->offset.value_or(0), farthest_->message)
                                : std::string();
    return Error(ErrorCode::kNotSupported,
                 fmt::format("values of state '{}' cannot be delimited: no value length shared by the block's entries "
                             "lets key group {} parse to its end{}",
                             states_[first_opaque_->id].name, key_group_, why),
                 first_opaque_->at);
  }

 private:
  struct OpaqueBlock {
    int16_t id;
    uint64_t at;
  };

  // Marks state ids seen for the duration of one solve() call.
  class Marks {
   public:
    explicit Marks(std::vector<uint8_t>& seen) : seen_(seen) {}
    ~Marks() {
      for (int16_t id : ids_) seen_[id] = 0;
    }
    void mark(int16_t id) {
      seen_[id] = 1;
      ids_.push_back(id);
    }

   private:
    std::vector<uint8_t>& seen_;
    std::vector<int16_t> ids_;
  };

  Status spend(uint64_t steps, uint64_t at) {
    if (steps_ + steps <= budget_) {
      steps_ += steps;
      return Status::OK();
    }
    return Error(ErrorCode::kNotSupported,
                 fmt::format("inferring the value lengths of key group {} needs more than {} steps", key_group_,
                             budget_),
                 at);
  }

  void note(Error e) {
    if (!farthest_ || e.offset.value_or(0) > farthest_->offset.value_or(0)) farthest_ = std::move(e);
  }

  // Namespace and key of one entry (nothing for a queue element); false with r's error if they
  // do not decode or the key belongs to another key group.
  bool read_head(ByteReader& r, const HeapEntryLayout& s) {
    if (s.ns) s.ns->skip(r);
    if (!s.key) return r.ok();
    uint64_t at = r.offset();
    nlohmann::json key;
    s.key->read(r, key);
    if (!r.ok()) return false;
    auto kg = compute_key_group(*s.key, key, max_parallelism_);
    if (kg && *kg != key_group_) {
      r.fail_at(at, fmt::format("key belongs to key group {}, not {}", *kg, key_group_));
      return false;
    }
    return true;
  }

  // Could a state block head (or, after the last block, the end) be at `pos`?
  bool plausible_next(size_t pos, size_t done) const {
    if (done == states_.size()) return pos == data_.size();
    if (data_.size() - pos < kBlockHeadBytes) return false;
    if (block_starts_ && !std::binary_search(block_starts_->begin(), block_starts_->end(), pos)) return false;
    ByteReader h(data_.substr(pos, kBlockHeadBytes));
    int16_t id = h.i16();
    int32_t count = h.i32();
    return id >= 0 && static_cast<size_t>(id) < states_.size() && !seen_[id] && count >= 0 &&
           static_cast<uint64_t>(count) <= data_.size() - pos - kBlockHeadBytes;
  }

  // How many ways (0, 1, or 2 for more than one) the key group parses from `pos` after `done`
  // state blocks; the first complete way's lengths go to solution_.
  Result<int> solve(size_t pos, size_t done, int depth) {
    Marks marks(seen_);
    ByteReader r(data_, base_);
    r.seek(pos);
    while (done < states_.size()) {
      const uint64_t at = r.offset();
      CKPT_RETURN_IF_ERROR(spend(1, at));
      int16_t id = r.i16();
      int32_t count = r.count(1, "entry");
      if (!r.ok()) return fail(r.take_error());
      if (id < 0 || static_cast<size_t>(id) >= states_.size())
        return fail(Error(ErrorCode::kCorruption,
                          fmt::format("state id {} out of range: the stream registers {} states", id, states_.size()),
                          at));
      if (seen_[id])
        return fail(Error(ErrorCode::kCorruption,
                          fmt::format("a second block of state id {} in key group {}", id, key_group_), at));
      marks.mark(id);
      ++done;
      if (count == 0) continue;
      const HeapEntryLayout& s = states_[id];
      if (!s.value) return fail(Error(ErrorCode::kNotSupported, s.unusable, at));
      if (!walkable(s.ns) || !walkable(s.key))
        return fail(Error(ErrorCode::kNotSupported,
                          fmt::format("state '{}': heap entries cannot be delimited without the job's classes ({})",
                                      s.name, !walkable(s.ns) ? s.ns->why_not() : s.key->why_not()),
                          at));
      if (s.value->decodable()) {
        for (int32_t e = 0; e < count; ++e) {
          CKPT_RETURN_IF_ERROR(spend(1, at));
          if (read_head(r, s)) s.value->skip(r);
          if (!r.ok()) return fail(r.take_error());
        }
        continue;
      }
      return try_lengths(r, id, count, done, depth);
    }
    if (!r.at_end())
      return fail(Error(ErrorCode::kCorruption,
                        fmt::format("{} bytes after the last state block of key group {}", r.remaining(), key_group_),
                        r.offset()));
    if (solutions_++ == 0) solution_ = current_;
    return 1;
  }

  // Every length L of the opaque values of state `id` whose `count` entries start at r.
  Result<int> try_lengths(ByteReader& r, int16_t id, int32_t count, size_t done, int depth) {
    const HeapEntryLayout& s = states_[id];
    const uint64_t at = r.offset() - kBlockHeadBytes;
    if (!first_opaque_) first_opaque_ = OpaqueBlock{id, at};
    if (depth >= kHeapDelimitMaxOpaqueBlocks)
      return Error(ErrorCode::kNotSupported,
                   fmt::format("key group {} holds more than {} blocks of values that cannot be walked", key_group_,
                               kHeapDelimitMaxOpaqueBlocks),
                   at);
    // The first entry's namespace and key come before any value: they do not depend on L.
    if (!read_head(r, s)) return fail(r.take_error());
    const size_t after_first_head = r.position();
    const size_t max_length = (data_.size() - after_first_head) / static_cast<size_t>(count);
    int ways = 0;
    size_t first_length = 0;
    for (size_t length = 0; length <= max_length && ways < 2; ++length) {
      CKPT_RETURN_IF_ERROR(spend(1, at));
      ByteReader c(data_, base_);
      c.seek(after_first_head);
      c.skip(length);
      for (int32_t e = 1; e < count && c.ok(); ++e) {
        CKPT_RETURN_IF_ERROR(spend(1, at));
        if (read_head(c, s)) c.skip(length);
      }
      if (!c.ok()) {
        note(c.take_error());
        continue;
      }
      if (!plausible_next(c.position(), done)) continue;
      current_[id] = static_cast<int64_t>(length);
      CKPT_ASSIGN_OR_RETURN(int more, solve(c.position(), done, depth + 1));
      if (more > 0 && ways > 0 && ambiguity_.empty()) {
        ambiguous_at_ = at;
        ambiguity_ = fmt::format(
            "values of state '{}' cannot be delimited unambiguously: {} and {} bytes per value both let key group {} "
            "parse to its end",
            s.name, first_length, length, key_group_);
      }
      if (more > 0 && ways == 0) first_length = length;
      ways += more;
    }
    current_[id] = -1;
    return std::min(ways, 2);
  }

  int fail(Error e) {
    note(std::move(e));
    return 0;
  }

  const std::vector<size_t>* block_starts_;  // sorted; null when not known
  std::string_view data_;
  uint64_t base_;
  const std::vector<HeapEntryLayout>& states_;
  int32_t key_group_;
  int32_t max_parallelism_;
  uint64_t budget_;
  uint64_t steps_ = 0;
  std::vector<uint8_t> seen_;
  std::vector<int64_t> current_;
  std::vector<int64_t> solution_;
  size_t solutions_ = 0;
  std::optional<Error> farthest_;
  std::optional<OpaqueBlock> first_opaque_;
  std::string ambiguity_;
  uint64_t ambiguous_at_ = 0;
};

}  // namespace

bool heap_values_need_inference(const std::vector<HeapEntryLayout>& states) {
  for (const HeapEntryLayout& s : states)
    if (s.value && !s.value->decodable() && walkable(s.ns) && walkable(s.key)) return true;
  return false;
}

Result<std::vector<int64_t>> infer_heap_value_lengths(std::string_view data, uint64_t base,
                                                      const std::vector<HeapEntryLayout>& states, int32_t key_group,
                                                      int32_t max_parallelism,
                                                      const std::vector<size_t>* block_starts) {
  return Delimiter(data, base, states, key_group, max_parallelism, block_starts).run();
}

}  // namespace ckpt
