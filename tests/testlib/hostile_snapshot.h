// tests/testlib/hostile_snapshot.h - snapshots of `ckpt generate` rewritten through the
// project's own readers and writers into something a damaged or hostile file could be.
#pragma once

#include <string>

#include "ckpt/error.h"
#include "ckpt/metadata.h"

namespace ckpt::test {

// A native RocksDB savepoint from ckpt generate in `dir`: one operator of two subtasks (max
// parallelism 128), 200 String keys, a value state of byte[].
Status generate_rocksdb_savepoint(const std::string& dir);

// Every state's VALUE_SERIALIZER in the meta streams of `dir`'s RocksDB handles becomes
// `versioned_snapshot` (a serializer snapshot in the versioned form); `_metadata` is written
// again with the meta streams' new sizes.
Status replace_value_serializers(const std::string& dir, const std::string& versioned_snapshot);

// The managed keyed handle of subtask `subtask` of `dir`'s first operator gets `range`
// (`_metadata` written through the metadata writer, which does not check ranges).
Status set_key_group_range(const std::string& dir, int32_t subtask, KeyGroupRange range);

}  // namespace ckpt::test
