// tests/testlib/dump_lines.h - a snapshot's dump as NDJSON lines, in dump order, for tests that
// compare two snapshots entry by entry.
#pragma once

#include <string>
#include <vector>

namespace ckpt::test {

// Every entry of `snapshot` as its NDJSON line; REQUIREs that the dump succeeds (the failure
// message carries the error).
std::vector<std::string> dump_lines(const std::string& snapshot);

}  // namespace ckpt::test
