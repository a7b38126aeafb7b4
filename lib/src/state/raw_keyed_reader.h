// state/raw_keyed_reader.h - a subtask's keyed state as RocksDB-layout pairs, values untouched.
//
// The reading half of `ckpt convert`: whatever the handle (heap or canonical key groups, a
// RocksDB native snapshot), the entries come out in Flink's RocksDB layout (formats/keyed-state.md §10), grouped by
// key group (ascending) and by state (indexed as in the handle's keyed proxy), with every value
// byte as the job wrote it. Heap entries are re-framed by StateTranscoder. A changelog-backend
// handle is its materialized part read this way with the change logs replayed on the pairs
// (ChangelogState's byte-level mode): the one layout held in memory per subtask.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/backend_meta.h"
#include "state/layout_transcoder.h"
#include "state/stream_opener.h"

namespace ckpt {

enum class KeyedLayout : uint8_t { kHeap, kCanonical, kNative, kChangelog };
const char* keyed_layout_name(KeyedLayout l);  // "heap", "canonical", "rocksdb", "changelog"

// by_state[i]: pairs of proxy state i in this key group (unsorted for heap and canonical
// sources: the heap writer's order is its hash tables').
using KeyGroupPairsFn = std::function<Status(int32_t key_group, std::vector<std::vector<RocksPair>>& by_state)>;

struct RawKeyedSource {
  KeyedLayout layout = KeyedLayout::kHeap;
  KeyedBackendMeta meta;
};

// Every state of a keyed proxy as the dump layer reads it (its kind, its serializers): checked
// by whatever copies a proxy into an output unread.
Status check_keyed_states(const KeyedBackendMeta& meta, int32_t max_parallelism);

// Reads the proxy of `handle` (types 3, 5, 7, 11, 12) and tells its layout. For a changelog
// backend handle (13, 14) `meta` is its materialized part's proxy plus the states its change
// logs register, keyed by the materialized key serializer (else the one timers nest, else
// `key_fallback` if given).
Result<RawKeyedSource> open_raw_keyed(const KeyedHandle& handle, const StreamOpener& streams, int32_t max_parallelism,
                                      const SerializerSnapshot* key_fallback = nullptr);

// Every key group of the handle that holds entries, ascending, one at a time: memory is bounded
// by one key group. Native snapshots are read through their RocksDB instance (opened
// read-only in a temporary directory, every SST's checksums verified whole first), entries
// outside the handle's range dropped. With `check_blocks`, each heap or canonical key group is
// decoded as the input check decodes it before its pairs are made (for_each_key_group_block),
// so that a writer needs no check pass over these streams before it.
Status read_raw_keyed(const KeyedHandle& handle, const RawKeyedSource& source, const StreamOpener& streams,
                      int32_t max_parallelism, const KeyGroupPairsFn& fn, bool check_blocks = false);

}  // namespace ckpt
