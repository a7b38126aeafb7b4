// --fast: key-group bytes from key-group offsets and SST key ranges (report_estimate.h).
#include "ops/report/report_estimate.h"

#include <algorithm>

#include "state/keyed_state_codec.h"
#include "state/rocksdb/rocks_sst.h"

namespace ckpt {
namespace {

struct Bounds {
  std::vector<double> estimate;
  std::vector<uint64_t> lower, upper;
};

class Placer {
 public:
  Placer(const StreamOpener& streams, int32_t max_parallelism, Bounds* b, std::vector<std::string>* problems)
      : streams_(streams), prefix_bytes_(key_group_prefix_bytes(max_parallelism)), b_(*b), problems_(*problems) {}

  // Bytes of `h` placed in key groups; the rest is the caller's to spread.
  uint64_t place(const KeyedHandle& h) {
    uint64_t placed = 0;
    if (!h.offsets.empty()) {
      const int64_t end = h.delegate.state_size();
      for (size_t i = 0; i < h.offsets.size(); ++i) {
        const int64_t next = i + 1 < h.offsets.size() ? h.offsets[i + 1] : end;
        const int64_t kg = int64_t{h.range.first} + static_cast<int64_t>(i);
        if (next < h.offsets[i] || !in_range(kg)) continue;
        const auto n = static_cast<uint64_t>(next - h.offsets[i]);
        add(static_cast<int32_t>(kg), static_cast<int32_t>(kg), n);
        placed += n;
      }
      return placed;
    }
    for (const std::vector<NamedStream>* files : {&h.shared_files, &h.private_files})
      for (const NamedStream& f : *files)
        if (f.name.ends_with(".sst")) placed += place_sst(f);
    for (const KeyedHandle& m : h.materialized) placed += place(m);
    return placed;
  }

 private:
  bool in_range(int64_t kg) const { return kg >= 0 && kg < static_cast<int64_t>(b_.lower.size()); }

  void add(int32_t first, int32_t last, uint64_t bytes) {
    const double each = static_cast<double>(bytes) / (last - first + 1);
    for (int32_t kg = first; kg <= last; ++kg) {
      b_.estimate[static_cast<size_t>(kg)] += each;
      b_.upper[static_cast<size_t>(kg)] += bytes;
    }
    if (first == last) b_.lower[static_cast<size_t>(first)] += bytes;
  }

  uint64_t place_sst(const NamedStream& f) {
    const int64_t size = f.handle.state_size();
    if (size <= 0) return 0;
    Result<StateStream> stream = streams_.open(f.handle);
    Result<SstFile> sst = stream.ok() ? SstFile::open(*stream) : Result<SstFile>(stream.error());
    if (!sst.ok()) {
      problems_.push_back(sst.error().to_string());
      return 0;
    }
    const int32_t first = key_group_of_rocks_key(sst->first_key(), prefix_bytes_);
    const int32_t last = key_group_of_rocks_key(sst->last_key(), prefix_bytes_);
    if (first < 0 || last < first || !in_range(first) || !in_range(last)) return 0;
    add(first, last, static_cast<uint64_t>(size));
    return static_cast<uint64_t>(size);
  }

  const StreamOpener& streams_;
  int prefix_bytes_;
  Bounds& b_;
  std::vector<std::string>& problems_;
};

}  // namespace

void estimate_key_groups(const OperatorState& op, const StreamOpener& streams, const ReportOptions& options,
                         ReportOperator* out, std::vector<std::string>* problems) {
  // Only keyed operators have key groups; theirs passed check_key_group_ranges().
  const bool keyed = std::any_of(out->subtasks.begin(), out->subtasks.end(),
                                 [](const ReportSubtask& s) { return !s.key_groups.empty(); });
  const size_t m = keyed ? static_cast<size_t>(std::max(out->max_parallelism, 0)) : 0;
  Bounds b{std::vector<double>(m, 0), std::vector<uint64_t>(m, 0), std::vector<uint64_t>(m, 0)};
  Placer placer(streams, out->max_parallelism, &b, problems);
  for (ReportSubtask& sub : out->subtasks) {
    sub.bytes = static_cast<uint64_t>(std::max<int64_t>(sub.state_size, 0));
    if (sub.key_groups.empty() || sub.key_groups.first < 0 || static_cast<size_t>(sub.key_groups.last()) >= m) continue;
    uint64_t placed = 0;
    for (const SubtaskState& st : op.subtasks)
      if (st.index == sub.index && !st.managed_keyed.is_null()) placed += placer.place(st.managed_keyed);
    const uint64_t rest = sub.bytes > placed ? sub.bytes - placed : 0;
    for (int32_t kg = sub.key_groups.first; kg <= sub.key_groups.last(); ++kg) {
      b.estimate[static_cast<size_t>(kg)] += static_cast<double>(rest) / sub.key_groups.count;
      b.upper[static_cast<size_t>(kg)] += rest;
      out->key_groups.push_back({kg, sub.index, 0, 0});
    }
  }
  std::sort(out->key_groups.begin(), out->key_groups.end(),
            [](const ReportKeyGroup& a, const ReportKeyGroup& c) { return a.key_group < c.key_group; });
  std::vector<uint64_t> uppers;
  for (ReportKeyGroup& kg : out->key_groups) {
    kg.bytes = static_cast<uint64_t>(b.estimate[static_cast<size_t>(kg.key_group)] + 0.5);
    if (b.upper[static_cast<size_t>(kg.key_group)] > 0) uppers.push_back(b.upper[static_cast<size_t>(kg.key_group)]);
  }
  if (uppers.size() < 8) return;  // as counting: too few key groups to take a median over
  std::nth_element(uppers.begin(), uppers.begin() + static_cast<std::ptrdiff_t>(uppers.size() / 2), uppers.end());
  const double median = static_cast<double>(uppers[uppers.size() / 2]);
  for (const ReportKeyGroup& kg : out->key_groups)
    if (static_cast<double>(b.lower[static_cast<size_t>(kg.key_group)]) > options.hot_factor * median)
      out->hot_key_groups.push_back(kg.key_group);
}

}  // namespace ckpt
