// ops/entries/dump_entries.h - a dump's entries rendered on the workers in chunks, in order.
//
// dump_snapshot() runs the tasks of an EntryReader (a subset, in order) decoded on `jobs`
// workers and rendered to NDJSON text there, and hands the chunks to its sink. (Sinks that take
// Entry values read them as an EntryReader's iteration does: pull_entries().)
#pragma once

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ckpt/dump.h"
#include "ops/entries/entry_engine.h"
#include "state/ordered_channels.h"

namespace ckpt {

struct DumpChunk {
  std::string text;    // whole NDJSON lines
  uint64_t count = 0;  // entries (lines) in the chunk
};
using DumpItem = std::variant<DumpChunk, Error>;

// Renders task `t`'s entries (named by its uid and key columns) into chunks and pushes them.
void run_dump_task(const EntryReaderImpl& entries, const TaskReading& reading, const EntryTask& t,
                   const OrderedChannels<DumpItem>::Push& push);

// A spill file in $TMPDIR for the text chunks of subtasks ahead of the printer, or null (counted
// in dump_tuning()) when none can be created.
std::unique_ptr<OrderedChannels<DumpItem>::Overflow> make_dump_chunk_spill();

}  // namespace ckpt
