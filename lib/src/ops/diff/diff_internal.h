// ops/diff/diff_internal.h - the parts of `ckpt diff` shared between its source files.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ckpt/diff.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"

namespace ckpt {

// What the backend proxies say about one state: its kind and a serializer signature per role.
struct StateShape {
  std::string kind;                                   // state_kind_name()
  std::map<std::string, std::string> serializers;     // role -> "LongSerializer", "MapSerializer<..>"
};

// Per operator (32 hex digits): the states its subtasks' proxies name, by state name.
struct OperatorStates {
  std::map<std::string, StateShape> states;
  std::vector<std::string> notes;  // parts whose proxy could not be read
};
std::map<std::string, OperatorStates> collect_states(const Metadata& m, const SnapshotLocation& where,
                                                     const std::vector<PrefixRule>& remap);

// Appends the state additions, removals, kind and serializer changes of operators in both.
void diff_states(const std::map<std::string, OperatorStates>& a, const std::map<std::string, OperatorStates>& b,
                 DiffReport& report);

// What the logical diff held at most at once, for tests of its memory bound: entries buffered
// for comparison (the current key group of both sides, or a pass's operator state).
struct KeyDiffStats {
  uint64_t peak_buffered = 0;
  uint64_t passes = 0;  // (operator, state) passes, each one dump per side
};

// The logical diff: fills report.keys and passes each differing entry to `changes`. The
// states to read come from the proxies (collect_states of each side).
Status diff_keys(const std::string& a, const Metadata& ma, const std::map<std::string, OperatorStates>& sa,
                 const std::string& b, const Metadata& mb, const std::map<std::string, OperatorStates>& sb,
                 const DiffOptions& options, DiffReport& report, KeyChangeSink* changes, KeyDiffStats* stats = nullptr);

// One side's entries of one dump, produced on a thread of their own and handed over in batches
// through a small queue, so that two sides can be read in step. `keep` (may be empty) drops entries on
// the reading thread. Destroying the stream early lets the dump finish unheard.
class DiffEntryStream {
 public:
  DiffEntryStream(std::string snapshot, DumpOptions options, std::function<bool(const DumpEntry&)> keep);
  ~DiffEntryStream();
  DiffEntryStream(const DiffEntryStream&) = delete;
  DiffEntryStream& operator=(const DiffEntryStream&) = delete;

  // The next entry; false at the end of the dump (or where it failed: see status()).
  bool next(DumpEntry* out);
  // How the dump ended (waits for it).
  Status status();

 private:
  class Sink;
  std::function<bool(const DumpEntry&)> keep_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::vector<DumpEntry>> queue_;  // batches handed over
  std::vector<DumpEntry> current_;             // the batch being read, from at_
  size_t at_ = 0;
  bool done_ = false, cancelled_ = false;
  Status status_;
  std::thread thread_;
};

}  // namespace ckpt
