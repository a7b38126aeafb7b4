// Operator-state streams written from elements, in the template's layout.
#include "ops/load/operator_stream.h"

#include <algorithm>

#include <fmt/format.h>

#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "state/snappy_framed.h"

namespace ckpt {
namespace {

uint64_t proxy_end_of(const OperatorHandle& h, std::string_view bytes) {
  uint64_t end = bytes.size();
  for (const OperatorStateEntry& s : h.states)
    for (int64_t off : s.offsets)
      if (off >= 0) end = std::min<uint64_t>(end, static_cast<uint64_t>(off));
  return end;
}

}  // namespace

Result<OperatorBackendMeta> operator_stream_proxy(const OperatorHandle& h, std::string_view bytes) {
  ByteReader r(bytes.substr(0, proxy_end_of(h, bytes)));
  return read_operator_backend_meta(r);
}

Status write_operator_stream(OperatorHandle& h, std::string& bytes, const std::map<std::string, OperatorStateData>& data) {
  const uint64_t proxy_end = proxy_end_of(h, bytes);
  CKPT_ASSIGN_OR_RETURN(OperatorBackendMeta meta, operator_stream_proxy(h, bytes));
  for (const auto& entry : data) {
    const std::string& name = entry.first;
    if (std::none_of(h.states.begin(), h.states.end(), [&](const OperatorStateEntry& s) { return s.name == name; }))
      return Error(ErrorCode::kInvalidArgument, fmt::format("the operator state handle has no state '{}'", name));
  }
  // The states in the order their data came in the template (Flink's: list states, then
  // broadcast states, each in its hash map's order); states without data keep that split.
  std::vector<size_t> order(h.states.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto rank = [&](size_t i) {
    const OperatorStateEntry& s = h.states[i];
    if (!s.offsets.empty()) return std::pair<int, int64_t>(0, s.offsets.front());
    return std::pair<int, int64_t>(s.mode == DistributionMode::kBroadcast ? 2 : 1, static_cast<int64_t>(i));
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rank(a) < rank(b); });
  ByteWriter w;
  // Compressed (snapshot compression on): Flink flushes its Snappy stream at every offset it
  // records, so each element (each broadcast state) is its own run of chunks.
  auto put = [&](std::string_view data) {
    if (meta.compression) w.bytes(encode_snappy_framed(data));
    else w.bytes(data);
  };
  w.bytes(std::string_view(bytes).substr(0, proxy_end));
  static const OperatorStateData kNone;
  for (size_t i : order) {
    OperatorStateEntry& s = h.states[i];
    auto found = data.find(s.name);
    const OperatorStateData& d = found == data.end() ? kNone : found->second;
    s.offsets.clear();
    if (s.mode == DistributionMode::kBroadcast) {
      // A broadcast state is written, and has its offset, even when it is empty.
      s.offsets.push_back(static_cast<int64_t>(w.size()));
      ByteWriter state;
      state.i32(static_cast<int32_t>(d.entries.size()));
      for (const auto& [k, v] : d.entries) {
        state.bytes(k);
        state.bytes(v);
      }
      put(state.buffer());
      continue;
    }
    for (const std::string& e : d.elements) {
      s.offsets.push_back(static_cast<int64_t>(w.size()));
      put(e);
    }
  }
  bytes = w.take();
  return Status::OK();
}

}  // namespace ckpt
