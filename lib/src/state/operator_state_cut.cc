// Operator states cut out of an operator-state stream, the others' bytes kept.
#include "state/operator_state_cut.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "state/backend_meta.h"
#include "support/byte_reader.h"

namespace ckpt {

namespace {

void erase_named(std::vector<StateMetaInfo>& states, const std::set<std::string>& names) {
  std::erase_if(states, [&](const StateMetaInfo& s) { return names.count(s.name) > 0; });
}

}  // namespace

Result<uint64_t> cut_operator_states(OperatorHandle& h, std::string& bytes, const std::set<std::string>& names) {
  std::vector<uint64_t> starts;
  for (const OperatorStateEntry& s : h.states)
    for (int64_t off : s.offsets) {
      if (off < 0 || static_cast<uint64_t>(off) > bytes.size())
        return Error(ErrorCode::kCorruption,
                     fmt::format("operator state '{}': element offset {:#x} lies outside the stream of {:#x} bytes",
                                 s.name, off, bytes.size()));
      starts.push_back(static_cast<uint64_t>(off));
    }
  std::sort(starts.begin(), starts.end());
  const uint64_t first = starts.empty() ? bytes.size() : starts.front();
  ByteReader r(std::string_view(bytes).substr(0, first));
  auto meta = read_operator_backend_meta(r);
  if (!meta.ok()) return std::move(meta).error().with_context("operator state proxy");
  const uint64_t proxy_end = r.position();
  erase_named(meta->list_states, names);
  erase_named(meta->broadcast_states, names);
  CKPT_ASSIGN_OR_RETURN(std::string out, write_operator_backend_meta(*meta));

  // The byte ranges of the cut elements, each up to the next recorded offset.
  auto end_of = [&](uint64_t off) {
    auto next = std::upper_bound(starts.begin(), starts.end(), off);
    return next == starts.end() ? static_cast<uint64_t>(bytes.size()) : *next;
  };
  std::vector<std::pair<uint64_t, uint64_t>> cut;
  std::set<uint64_t> kept;
  uint64_t removed_offsets = 0;
  for (const OperatorStateEntry& s : h.states)
    for (int64_t off : s.offsets) {
      if (names.count(s.name)) {
        cut.emplace_back(static_cast<uint64_t>(off), end_of(static_cast<uint64_t>(off)));
        ++removed_offsets;
      } else {
        kept.insert(static_cast<uint64_t>(off));
      }
    }
  std::sort(cut.begin(), cut.end());
  cut.erase(std::unique(cut.begin(), cut.end()), cut.end());
  for (const auto& [from, to] : cut)
    if (kept.count(from))
      return Error(ErrorCode::kNotSupported,
                   fmt::format("an element that is kept starts where a cut one does, at offset {:#x}", from), from);

  // Bytes after the proxy, without the cut ranges; `shift` maps an old offset to its new one.
  const int64_t header_delta = static_cast<int64_t>(out.size()) - static_cast<int64_t>(proxy_end);
  uint64_t at = proxy_end;
  for (const auto& [from, to] : cut) {
    out.append(bytes, at, from - at);
    at = to;
  }
  out.append(bytes, at, bytes.size() - at);
  std::vector<uint64_t> removed_before(cut.size() + 1, 0);  // bytes cut by the first i ranges
  for (size_t i = 0; i < cut.size(); ++i) removed_before[i + 1] = removed_before[i] + (cut[i].second - cut[i].first);
  auto shift = [&](int64_t off) {
    size_t n =
        std::lower_bound(cut.begin(), cut.end(), std::make_pair(static_cast<uint64_t>(off), uint64_t{0})) - cut.begin();
    return off + header_delta - static_cast<int64_t>(removed_before[n]);
  };
  std::erase_if(h.states, [&](const OperatorStateEntry& s) { return names.count(s.name) > 0; });
  for (OperatorStateEntry& s : h.states)
    for (int64_t& off : s.offsets) off = shift(off);
  bytes = std::move(out);
  return removed_offsets;
}

}  // namespace ckpt
