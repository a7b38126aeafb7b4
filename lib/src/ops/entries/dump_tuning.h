// ops/entries/dump_tuning.h - the dump's chunk and buffer sizes, shrinkable by tests.
//
// A test cannot make a snapshot large enough to fill 256 KiB chunks four deep in every
// subtask; it shrinks these instead so that spilling to disk really happens, and reads back
// how much did.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ckpt {

struct DumpTuning {
  size_t chunk_bytes = 256 * 1024;  // NDJSON text per chunk
  size_t channel_capacity = 4;      // chunks in memory per running subtask
  bool spill = true;                // text chunks of subtasks ahead of the printer may go to disk
  std::atomic<uint64_t> spilled_chunks{0};  // written to spill files, over the process
  std::atomic<uint64_t> spill_failures{0};  // spill files that could not be created or written
};

// The process-wide settings dump_snapshot() reads at its start.
DumpTuning& dump_tuning();

}  // namespace ckpt
