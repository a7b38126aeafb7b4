// tests/testlib/native_snapshot.h - a RocksDB native snapshot of any size, generated.
//
// SUBTASKS RocksDB instances, one column family named after the first state of a corpus
// checkpoint (the template, whose `_metadata` layout and meta data stream are borrowed), keys
// in Flink's layout (key-group prefix, an 8-byte key, VoidNamespace), each instance's files
// taken with a RocksDB Checkpoint and stored as Flink stores them: under unique names in the
// snapshot directory, one incremental handle (type 11) per subtask. With value_size 8 the
// template's Tuple1<Long> key / Long value state decodes (value = key); larger values are
// incompressible bytes, for benchmarks.
#pragma once

#include <cstdint>
#include <string>

#include "ckpt/error.h"

namespace ckpt::test {

struct NativeSnapshotSpec {
  std::string template_dir;  // a corpus RocksDB incremental checkpoint
  std::string out;           // the snapshot directory to write
  uint64_t bytes = 0;        // about this many bytes of keys and values in all
  int32_t subtasks = 1;
  int32_t max_parallelism = 128;
  size_t value_size = 8;
  // Compact each instance before its checkpoint: non-overlapping SSTs, which the dump layer
  // reads without a manifest (several memtable flushes otherwise leave overlapping L0 files).
  bool compact = false;
};

Status write_native_snapshot(const NativeSnapshotSpec& spec);

}  // namespace ckpt::test
