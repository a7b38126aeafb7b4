// ops/dump/dump_entries.h - a dump's entries pulled one at a time, for the library's own
// comparisons (diff --keys reads two snapshots side by side).
//
// The tasks are an EntryReader's (a subset, in order), decoded on `jobs` workers and rendered
// to DumpEntry as dump_snapshot() renders them for its sinks; the caller pulls them in order.
// No thread of its own: the workers are the engine's.
#pragma once

#include <memory>
#include <vector>

#include "ckpt/dump.h"
#include "ops/entries/entry_engine.h"

namespace ckpt {

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

// `reader` must outlive the iterator.
std::unique_ptr<DumpEntryIterator> iterate_dump_entries(const EntryReaderImpl& reader, DumpIteration iteration);

}  // namespace ckpt
