// The unified key-group stream framing (FullSnapshotAsyncWriter / FullSnapshotRestoreOperation).
#include "state/heap/canonical_stream.h"

#include <fmt/format.h>

namespace ckpt {

Status parse_canonical_key_group(ByteReader& in, int num_states,
                                 const std::function<Status(const CanonicalPair&)>& fn) {
  auto read_state_id = [&](int* id) -> Status {
    uint64_t at = in.offset();
    uint16_t raw = in.u16();
    if (!in.ok()) return in.take_error();
    if (raw == kEndOfKeyGroupMark) {
      *id = -1;
      return Status::OK();
    }
    if (raw >= num_states)
      return Error(ErrorCode::kCorruption,
                   fmt::format("state id {} out of range: the stream registers {} states", raw, num_states), at);
    *id = raw;
    return Status::OK();
  };
  CanonicalPair pair;
  int id = 0;
  CKPT_RETURN_IF_ERROR(read_state_id(&id));
  if (id < 0)
    return Error(ErrorCode::kCorruption, "key group block starts with the end mark instead of a state id",
                 in.offset() - 2);
  for (;;) {
    pair.state_id = id;
    pair.key_offset = in.offset();
    int32_t klen = in.count(1, "key byte");
    std::string_view key = in.bytes(static_cast<size_t>(klen));
    pair.value_offset = in.offset();
    int32_t vlen = in.count(1, "value byte");
    pair.value = in.bytes(static_cast<size_t>(vlen));
    if (!in.ok()) return in.take_error();
    if (key.empty())
      return Error(ErrorCode::kCorruption, "empty key: expected at least the key-group prefix", pair.key_offset);
    pair.key.assign(key);
    bool meta_follows = (static_cast<uint8_t>(pair.key[0]) & kMetaDataFollowsFlag) != 0;
    pair.key[0] = static_cast<char>(static_cast<uint8_t>(pair.key[0]) & ~kMetaDataFollowsFlag);
    CKPT_RETURN_IF_ERROR(fn(pair));
    if (!meta_follows) continue;
    CKPT_RETURN_IF_ERROR(read_state_id(&id));
    if (id < 0) break;
  }
  if (!in.at_end())
    return Error(ErrorCode::kCorruption,
                 fmt::format("{} bytes after the end-of-key-group mark", in.remaining()), in.offset());
  return Status::OK();
}

}  // namespace ckpt
