// tests/testlib/damaged_key_group.h - a heap snapshot with one key group's bytes overwritten,
// to prove that a lookup of a key elsewhere never reads them.
#pragma once

#include <cstdint>
#include <string>

namespace ckpt::test {

// A heap savepoint at `output` of 2000 keys in 16 key groups, one subtask: small, and every key
// group in one file with its offsets, so that one can be damaged.
void write_heap_savepoint_of_16_key_groups(const std::string& output);

// Overwrites with 0xff the bytes of `key_group` in the key-groups stream of operator 0,
// subtask 0 of the heap snapshot `dir` (its file, relative, is returned). REQUIREs that the
// subtask holds that key group in a file with its offsets.
std::string overwrite_key_group(const std::string& dir, int32_t key_group);

}  // namespace ckpt::test
