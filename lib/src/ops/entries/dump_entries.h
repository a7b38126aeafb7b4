// ops/entries/dump_entries.h - a dump's entries rendered on the workers in chunks, in order.
//
// dump_snapshot() hands the chunks to its sink; diff --keys pulls the entries one at a time to
// read two snapshots side by side. Both run the tasks of an EntryReader (a subset, in order)
// decoded on `jobs` workers and rendered to NDJSON text or DumpEntry there.
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
  std::string text;                // whole NDJSON lines, for sinks that want them
  std::vector<DumpEntry> entries;  // for the others
  uint64_t count = 0;              // entries (lines) in the chunk
};
using DumpItem = std::variant<DumpChunk, Error>;

// Renders task `t`'s entries into chunks and pushes them, text or DumpEntry.
void run_dump_task(const EntryReaderImpl& entries, const TaskReading& reading, const EntryTask& t,
                   const std::string& uid, const std::vector<std::string>* key_columns, bool text,
                   const OrderedChannels<DumpItem>::Push& push);

// A spill file in $TMPDIR for the text chunks of subtasks ahead of the printer, or null (counted
// in dump_tuning()) when none can be created.
std::unique_ptr<OrderedChannels<DumpItem>::Overflow> make_dump_chunk_spill();

struct DumpIteration {
  std::vector<EntryTask> tasks;          // of the reader, in output order
  TaskReading reading;                   // its filter with json_text set; not keep_going
  const OperatorNames* names = nullptr;  // uids and key columns, or nullptr
  int jobs = 1;
};

class DumpEntryIterator {
 public:
  virtual ~DumpEntryIterator() = default;
  // The next entry into `out`; false at the end or on the first error (see status()).
  virtual bool next(DumpEntry* out) = 0;
  virtual const Status& status() const = 0;
};

// `reader` must outlive the iterator. No thread of its own: the workers are the engine's.
std::unique_ptr<DumpEntryIterator> iterate_dump_entries(const EntryReaderImpl& reader, DumpIteration iteration);

}  // namespace ckpt
