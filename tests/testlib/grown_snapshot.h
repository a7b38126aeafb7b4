// tests/testlib/grown_snapshot.h - a real RocksDB checkpoint whose instances hold overlapping SSTs.
#pragma once

#include <cstddef>
#include <string>

namespace ckpt::test {

struct GrownSnapshot {
  std::string dir;   // the grown snapshot (its _metadata inside)
  size_t ssts = 0;   // SST files of the grown instances
};

// Copies the native RocksDB checkpoint `input` to `scratch`/chk-2 with every instance
// rewritten `rounds` times, one flush (one overlapping SST per column family) per round, as
// later incremental checkpoints leave an instance. With `shadowed`, the first round writes
// every entry with another entry's value and the second deletes every other key, so that only
// RocksDB's order of the files gives the original state back; the logical content is always
// the input's. Files other than the instances' stay in `input`, referenced by absolute path.
GrownSnapshot grow_snapshot(const std::string& input, const std::string& scratch, int rounds, bool shadowed);

}  // namespace ckpt::test
