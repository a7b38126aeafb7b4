// ckpt/progress.h - how far a long operation has come, for a caller that shows it.
//
// The library only counts: its workers add to these atomics as they read state bytes, scan an
// SST or write an entry; a caller that shows progress reads them from a thread of its own (the
// ckpt tool redraws one line on standard error). Counting never changes what an operation
// reads or writes, and an operation given no Progress counts nothing.
#pragma once

#include <atomic>
#include <cstdint>

#include "ckpt/export.h"

namespace ckpt {

struct CKPT_API Progress {
  // Bytes of state the operation will read (or, for generate, write), set before the work
  // starts; 0 while unknown. Shared files are counted once per reference, as they are read.
  std::atomic<uint64_t> bytes_total{0};
  std::atomic<uint64_t> bytes_done{0};
  // Entries decoded, written or copied so far, where the operation has entries.
  std::atomic<uint64_t> entries_done{0};
  // For work not measured in bytes read (generate writes state it makes up): equal pieces of
  // it, e.g. key groups written of all operators' key groups. 0 total: not used.
  std::atomic<uint64_t> parts_total{0};
  std::atomic<uint64_t> parts_done{0};

  void add_bytes(uint64_t n) { bytes_done.fetch_add(n, std::memory_order_relaxed); }
  void add_entries(uint64_t n) { entries_done.fetch_add(n, std::memory_order_relaxed); }
  void add_parts(uint64_t n) { parts_done.fetch_add(n, std::memory_order_relaxed); }
};

}  // namespace ckpt
