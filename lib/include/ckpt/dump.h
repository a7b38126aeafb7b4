// ckpt/dump.h - every state entry of a snapshot, decoded, for people and scripts.
//
// dump_snapshot() walks the operators and subtasks of a snapshot as an EntryReader
// (ckpt/entries.h) does, reads each state handle in whatever layout its backend wrote (heap,
// canonical, RocksDB SST files, operator streams, legacy raw timers, changelog) and hands each
// entry to a sink, as an Entry (ckpt/entries.h) or as its NDJSON line, in a deterministic order: operators in file order, subtasks ascending, within a subtask operator
// state then keyed state (key groups ascending) then raw-keyed timers. Subtasks are decoded
// in parallel and handed to the calling thread in chunks (a few hundred entries or 256 KiB of
// text); the sink is only ever called from the calling thread, in that order. Memory stays
// bounded by a few chunks per worker, whatever the state size.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/entries.h"
#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/names.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"

namespace ckpt {

// Which entries (operator, state, subtask, key groups, --remap), as an EntryReader selects them.
struct CKPT_API DumpOptions : EntrySelection {
  uint64_t limit = 0;  // stop after this many entries; 0: no limit
  int jobs = 1;        // subtasks decoded at once
  // Report a damaged handle, key group or SST through DumpSink::problem and go on, instead of
  // stopping with its error.
  bool keep_going = false;
  // First check what `ckpt verify` checks of `_metadata` and the files of the dumped subtasks
  // (present with their declared sizes, key-group ranges, stored offsets): a problem is an
  // error, or with keep_going a problem. Off for callers that ran those checks themselves.
  bool structure_checks = true;
  OperatorNames names;            // uids for the lines (ckpt/names.h)
  Progress* progress = nullptr;   // bytes read and entries decoded (ckpt/progress.h)
  // A subtask, key-group or state filter that selects nothing is an error naming what exists.
  // Off for callers that compare several snapshots (diff), where one side may lack a state.
  bool filters_must_match = true;
};

// The entry as `ckpt dump` prints it: {"operator":..,"uid":..,"subtask":..,"state":..,"kind":..,
// "key_group":..,"key":..,"namespace":..,"user_key":..,"value":..} without a trailing newline;
// absent fields (an unknown uid, a key group of operator state, ...) are left out.
CKPT_API std::string to_ndjson(const Entry& e);

class CKPT_API DumpSink {
 public:
  virtual ~DumpSink() = default;
  // The entry's uid is DumpOptions::names' (else the `_metadata`'s), and its key's fields are
  // named after the plan's key columns where the names give them. The entry is valid only
  // during the call.
  virtual void entry(const Entry& e) = 0;
  // The fast path for sinks that only print NDJSON: if true, dump_snapshot() calls ndjson()
  // instead of entry(), with whole lines (to_ndjson() of each entry, each ending in '\n')
  // that the worker threads rendered, in the same order.
  virtual bool wants_ndjson() const { return false; }
  virtual void ndjson(std::string_view lines) {}
  // Only with keep_going: a part of the snapshot that could not be dumped.
  virtual void problem(const Error& e) = 0;
};

struct CKPT_API DumpSummary {
  uint64_t entries = 0;
  uint64_t problems = 0;
  bool limit_reached = false;
  std::vector<std::string> unmatched_uids;  // DumpOptions::names: uids given that name no operator
  // DumpOptions::keys that no dumped entry has, in the order given; left empty when the limit
  // cut the dump short, and in a part (DumpOptions::shard: the key may be in another part).
  std::vector<Value> unmatched_keys;
};

// Errors: the snapshot cannot be read, a filter matches nothing (kNotFound), or (without
// keep_going) the first damaged part, naming its file, handle and offset.
CKPT_API Result<DumpSummary> dump_snapshot(const std::string& snapshot, const DumpOptions& options, DumpSink& sink);

}  // namespace ckpt
