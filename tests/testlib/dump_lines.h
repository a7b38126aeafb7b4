// tests/testlib/dump_lines.h - a snapshot's dump as NDJSON lines, in dump order, for tests that
// compare two snapshots entry by entry.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ckpt/dump.h"
#include "ckpt/value.h"

namespace ckpt::test {

// Every entry of `snapshot` (of `options`' selection) as the NDJSON line `ckpt dump` prints;
// REQUIREs that the dump succeeds (the failure message carries the error).
std::vector<std::string> dump_lines(const std::string& snapshot, const DumpOptions& options = {});

// Lookup keys (EntrySelection::keys) from the JSON `ckpt dump` prints them as; REQUIREs each
// parses.
std::vector<Value> keys_of(const std::vector<std::string>& json);

// An entry's field as JSON text, as dump prints it; "" when the entry has no such field.
inline std::string json_of(const std::optional<Value>& field) { return field ? field->json() : std::string(); }

}  // namespace ckpt::test
