// state/heap/canonical_stream.h - framing of the unified ("canonical") key-group stream (formats/keyed-state.md §9).
//
// Canonical savepoints, RocksDB savepoints and full RocksDB checkpoints write, per key group:
// u16 state id, then (i32 length, key bytes, i32 length, value bytes) pairs in RocksDB's layout;
// bit 0x80 of a key's first byte says "meta data follows": a u16 with the next state id or the
// end-of-key-group mark 0xFFFF. The framing needs no serializer, so it also serves to tell this
// layout from the heap layout.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ckpt/error.h"
#include "support/byte_reader.h"

namespace ckpt {

struct CanonicalPair {
  int state_id = 0;
  std::string key;          // the RocksDB key, flag bit cleared
  std::string_view value;   // the RocksDB value (view into the reader's buffer)
  uint64_t key_offset = 0;  // absolute offset of the key's length field
  uint64_t value_offset = 0;
};

inline constexpr uint16_t kEndOfKeyGroupMark = 0xFFFF;
inline constexpr uint8_t kMetaDataFollowsFlag = 0x80;

// Parses one key group's block from `in` (decompressed already if the stream is compressed) up
// to and including its end mark; the block must end exactly at in's end. State ids must be
// below `num_states`. `fn` is called per pair; its error stops the parse.
Status parse_canonical_key_group(ByteReader& in, int num_states,
                                 const std::function<Status(const CanonicalPair&)>& fn);

}  // namespace ckpt
