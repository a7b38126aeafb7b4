// state/changelog_reader.h - keyed state of the changelog backend (§12).
//
// A ChangelogStateBackendHandle is a materialized part (any keyed layout) plus change logs
// to replay on top of it. The logical state is only known once every change is applied, so
// this reader, unlike the others, holds the subtask's state in memory: changelog snapshots
// are small by design (materialization truncates the log).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "state/read_options.h"
#include "state/state_entry.h"

namespace ckpt {

class ChangelogState {
 public:
  // Receives the materialized part's entries.
  EntrySink collector();
  // Applies one non-materialized handle (in-memory change log, type 9).
  Status replay(const KeyedHandle& changes, int32_t max_parallelism);
  // The resulting entries, key groups ascending.
  Status emit(const StateFilter& filter, const EntrySink& sink);

 private:
  static std::string identity(const StateEntry& e);
  std::map<std::string, StateEntry> entries_;  // identity -> entry, ordered for output
};

}  // namespace ckpt
