// ops/engine/input_checks.h - what convert, compact and restore check of their input before writing.
//
// A command that writes from damaged input must not publish an output that looks good: it runs
// verify's checks (ops/engine/snapshot_checks.h) on the subtasks it reads, before it writes anything,
// and returns the first problem as an error naming the file and the byte offset. The quick
// checks (files and their sizes, key-group ranges, stored offsets) run on `_metadata`; then
// every stream the command would carry over without decoding is decoded (operator state to
// its last element, raw keyed timers, meta streams) and every SST of a native handle has its
// blocks checksummed and its key groups checked (a command reading an instance reads only the
// blocks of its key groups and states).
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/metadata.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"
#include "ops/engine/snapshot_checks.h"
#include "state/read_options.h"

namespace ckpt {

struct InputChecks {
  SubtaskFilter wanted;  // the subtasks the command reads; empty: every one
  // Decode heap and canonical keyed streams too, for a command that copies them as they are.
  bool keyed_streams = false;
  int jobs = 1;
  Progress* progress = nullptr;  // the bytes the checks read (they read the input once whole)
  // The subtasks whose SSTs are checked whole (every block's checksum); empty: those `wanted`
  // admits. A command that then reads every entry of a subtask's SSTs through RocksDB, which
  // checks each block it reads (data blocks as scanned, index, filter and properties when the
  // table opens), leaves it out rather than read its SSTs twice; a block it never reads (keys of
  // other key groups) is not carried into its output either.
  SubtaskFilter whole_sst_checks;
  // The subtasks whose SSTs are only opened (footer, properties, first and last keys: the
  // key-group bounds), not read whole, because the command checksums every block of them as it
  // opens their instance (RocksInstanceReader::open) before it reads an entry; empty: none.
  SubtaskFilter ssts_opened;
};

Status check_input(const Metadata& m, const SnapshotLocation& where, const std::vector<PrefixRule>& remap,
                   const InputChecks& checks);

// The quick checks alone, for commands that only read (dump, diff --keys): each problem of the
// subtasks `wanted` admits goes to `problems` as an error naming its file and offset; the first
// error `problems` returns stops them. `faulty` (if given) receives the URI and local path of
// every file found missing or of the wrong size, whose decoding errors say nothing new.
Status check_structure(const Metadata& m, const SnapshotLocation& where, const std::vector<PrefixRule>& remap,
                       const SubtaskFilter& wanted, const ProblemSink& problems,
                       std::unordered_set<std::string>* faulty = nullptr);

// check_structure() in two steps, for a caller that reads one snapshot in several passes (a
// query's scans): the checks run once over every subtask, their findings are reported for each
// pass's subtasks.
struct StructureFindings {
  VerifyReport report;
  std::unordered_set<std::string> faulty;  // as check_structure()'s `faulty`
};
Result<StructureFindings> find_structure_problems(const Metadata& m, const SnapshotLocation& where,
                                                  const std::vector<PrefixRule>& remap);
Status report_structure_problems(const StructureFindings& found, const Metadata& m, const SnapshotLocation& where,
                                 const SubtaskFilter& wanted, const ProblemSink& problems);

// check_key_group_ranges() (ckpt/verify.h) of one operator as a streaming reader hands it over:
// whether it fails them.
bool has_bad_key_group_range(const OperatorState& op);

}  // namespace ckpt
