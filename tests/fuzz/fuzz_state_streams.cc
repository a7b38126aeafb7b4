// libFuzzer target: keyed state streams (heap and canonical key groups, framed Snappy,
// proxy, value decoders) behind a key-groups handle, and operator-state streams.
//
// Input: u8 mode (bit 0: operator state), u8 key-group count n (at most 8), n x u32 offsets,
// then the stream bytes, served inline. Must never crash, hang or allocate without bound.
#include <cstddef>
#include <cstdint>
#include <string>

#include "state/key_groups_reader.h"
#include "state/operator_state_reader.h"
#include "state/state_stream.h"

using namespace ckpt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  bool operator_state = data[0] & 1;
  size_t n = data[1] % 9;
  if (size < 2 + 4 * n) return 0;
  std::vector<int64_t> offsets;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* p = data + 2 + 4 * i;
    offsets.push_back((int64_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3]);
  }
  StreamHandle inline_stream;
  inline_stream.type = handle_type::kByteStream;
  inline_stream.name = "fuzz";
  inline_stream.data.assign(reinterpret_cast<const char*>(data + 2 + 4 * n), size - 2 - 4 * n);
  PathResolver no_files = [](uint8_t, const std::string&) -> std::optional<std::string> { return std::nullopt; };
  EntrySink discard = [](StateEntry&&) { return Status::OK(); };
  ProblemSink keep_going = [](Error&&) { return Status::OK(); };
  StateFilter all;
  if (operator_state) {
    OperatorHandle h;
    h.type = handle_type::kPartitionableOperator;
    h.delegate = inline_stream;
    OperatorStateEntry list{"list", DistributionMode::kSplitDistribute, offsets};
    h.states.push_back(list);
    if (!offsets.empty()) h.states.push_back({"broadcast", DistributionMode::kBroadcast, {offsets.back()}});
    (void)read_operator_handle(h, no_files, "fuzz", all, discard, keep_going);
    return 0;
  }
  KeyedHandle h;
  h.type = (data[0] & 2) ? handle_type::kSavepointKeyGroups : handle_type::kKeyGroupsWithId;
  h.range = {0, static_cast<int32_t>(n)};
  h.offsets = offsets;
  h.delegate = inline_stream;
  Result<StateStream> stream = StateStream::open(h.delegate, no_files, "fuzz");
  if (!stream.ok()) return 0;
  (void)read_key_groups_handle(h, *stream, 128, all, discard, keep_going);
  return 0;
}
