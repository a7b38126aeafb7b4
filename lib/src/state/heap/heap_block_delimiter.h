// state/heap/heap_block_delimiter.h - the extent of heap values that no decoder can walk.
//
// The heap layout (formats/keyed-state.md §6, §6.1) stores a key group as one block per
// registered state, `i16 id, i32 count`, then `count` entries (namespace, key, value) with no
// lengths. A value whose serializer needs the job's classes cannot be walked, so where its
// entries end is not written anywhere. It is implied, though: the key group ends where the next
// one starts, namespaces and keys decode (and hash to this key group), every registered state
// has exactly one block, and a block head holds an id not seen yet and a count that fits. The
// delimiter looks for the one value length L, shared by all values of such a block (with one
// entry, any length), under which the whole rest of the key group parses exactly. More than one
// L, or none, is an error naming the block: a guess would print wrong state without a warning.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/error.h"
#include "types/value_decoder.h"

namespace ckpt {

// One state's heap entries as the delimiter sees them: decoders of the parts, in stored order.
struct HeapEntryLayout {
  std::string name;                     // the state's, for errors
  const ValueDecoder* ns = nullptr;     // null with key for a priority queue: entries are elements
  const ValueDecoder* key = nullptr;
  const ValueDecoder* value = nullptr;  // whole state object or queue element; null: state unusable
  std::string unusable;                 // why, when value is null
};

// The layout of a keyed state's entries (`queue`: a priority queue's, elements only).
inline HeapEntryLayout heap_entry_layout_of(std::string name, bool queue, const ValueDecoder* ns,
                                            const ValueDecoder* key, const ValueDecoder* value) {
  return queue ? HeapEntryLayout{std::move(name), nullptr, nullptr, value, {}}
               : HeapEntryLayout{std::move(name), ns, key, value, {}};
}

// The work bound: parses of an entry head (namespace and key) and trials of a length, summed
// over the whole search of one key group, may not exceed 4 per byte of the key group plus
// this. Trying every L for one block costs about one parse per byte, so a single block of
// opaque values always fits; what the bound stops is the search multiplying over several.
inline constexpr uint64_t kHeapDelimitBaseSteps = uint64_t{1} << 20;
// Opaque blocks are searched recursively, one level each; deeper key groups are refused.
inline constexpr int kHeapDelimitMaxOpaqueBlocks = 256;

// True if some state has values that cannot be walked while its namespaces and keys can:
// only then is there anything to infer.
bool heap_values_need_inference(const std::vector<HeapEntryLayout>& states);

// The value length of every state's entries in the heap key group `data` (its bytes after the
// plain key-group number; data[0] is at absolute offset `base`): by_state[id] is the inferred
// length of each value of state `id`, or -1 where the values are walked by their decoder or
// the block is empty. Errors: kNotSupported where no length or more than one lets the key
// group parse (or the work bound is reached), the stream's own error where it does not parse
// at all.
// `block_starts`, when known (a compressed key group: each state block is its own Snappy stream,
// formats/keyed-state.md §8), lists the positions in `data` where a stream, so possibly a block,
// begins; a block head
// is then looked for there only.
Result<std::vector<int64_t>> infer_heap_value_lengths(std::string_view data, uint64_t base,
                                                      const std::vector<HeapEntryLayout>& states, int32_t key_group,
                                                      int32_t max_parallelism,
                                                      const std::vector<size_t>* block_starts = nullptr);

}  // namespace ckpt
