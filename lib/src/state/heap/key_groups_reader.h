// state/heap/key_groups_reader.h - keyed state in a key-groups handle (types 3, 7, 12).
//
// Such a handle's stream is the keyed proxy followed by one block per key group at the
// offsets the handle records, in one of two layouts that the type byte does not tell apart:
// the heap layout (formats/keyed-state.md §6: i32 key group, then per state an id, a count and entries) or the
// canonical layout (formats/keyed-state.md §9: length-framed RocksDB pairs with state-id and end marks). The reader
// tells them apart by the canonical framing, which needs no serializer: a heap block does not
// parse as one that ends exactly at the region's end with key prefixes naming its key group.
// Errors carry absolute offsets; the file is named by the StreamOpener that opened the stream.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/backend_meta.h"
#include "state/read_options.h"
#include "state/state_entry.h"
#include "state/state_stream.h"
#include "support/byte_reader.h"

namespace ckpt {

enum class KeyGroupsLayout : uint8_t { kHeap, kCanonical };
const char* key_groups_layout_name(KeyGroupsLayout l);  // "heap", "canonical"

// The layout of `handle`'s stream (its proxy must be readable). Type 7 is canonical by
// definition; for types 3 and 12 the first non-empty key groups are probed.
Result<KeyGroupsLayout> detect_key_groups_layout(const KeyedHandle& handle, const StateStream& stream);

// Every entry of the handle that `filter` admits, key groups ascending. A damaged key group
// goes to `problems` (which may return it to stop) and the reader moves on to the next one.
Status read_key_groups_handle(const KeyedHandle& handle, const StateStream& stream, int32_t max_parallelism,
                              const StateFilter& filter, const EntrySink& sink, const ProblemSink& problems);

// The raw blocks of the handle's key groups, ascending, for readers that keep bytes as they are
// (`ckpt convert`): `fn(meta, layout, key_group, data, base)` gets each key group's bytes
// decompressed, starting after the heap layout's plain key-group number (heap) or at the first
// state id (canonical); `base` is the absolute offset of data[0] when uncompressed, for errors.
// Key groups without data (canonical offset 0) are not visited.
// With `check`, each block is first decoded as read_key_groups_handle() decodes it with
// StateFilter::check_only (every key and value, nothing built), from the same bytes, and its
// first error (but kNotSupported: what needs the job's classes stays unchecked) stops the walk
// before `fn` sees the block: a writer's input check and its read in one pass.
using KeyGroupBlockFn = std::function<Status(const KeyedBackendMeta& meta, KeyGroupsLayout layout,
                                             int32_t key_group, std::string_view data, uint64_t base)>;
Status for_each_key_group_block(const KeyedHandle& handle, const StateStream& stream, int32_t max_parallelism,
                                const KeyGroupBlockFn& fn, bool check = false);

// The head of one state's entries inside a heap key-group block: the state id, checked against
// the `states` the proxy registers, and the entry count (checked against the bytes left).
struct HeapStateBlockHead {
  int16_t id = 0;
  int32_t count = 0;
  uint64_t offset = 0;  // absolute offset of the head, for errors about the block
};
Result<HeapStateBlockHead> read_heap_state_block_head(ByteReader& r, size_t states);

// The same in Flink 1.2's layout (keyed proxy version 1, formats/keyed-state.md §6.2): the state
// id, the presence flag (0 or 1) and, if present, the namespace count; `namespaces` is 0 for an
// absent table.
struct HeapV1StateHead {
  int16_t id = 0;
  int32_t namespaces = 0;
  uint64_t offset = 0;
};
Result<HeapV1StateHead> read_heap_v1_state_head(ByteReader& r, size_t states, int32_t key_group);

}  // namespace ckpt
