// ops/engine/snapshot_checks.h - the checks behind verify_snapshot() and the input checks of the
// other commands (input_checks.h), one function per family.
#pragma once

#include <functional>
#include <string>
#include <unordered_set>

#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "ckpt/verify.h"
#include "ckpt/walk.h"

namespace ckpt {

// "managed-keyed", "managed-keyed shared 000010.sst", ... for a stream's site.
std::string site_description(const StreamSite& site);

// Files: existence, declared sizes, segments inside their files, one file referenced
// consistently. Adds every file with a problem (URI and local path) to `faulty`, so that
// deep checks do not report the same fault again. Errors: a file that is a symbolic link out
// of the snapshot (FileResolver::Found::escape), which is not read at all.
Status check_files(const Metadata& m, FileResolver& resolver, VerifyReport& report,
                   std::unordered_set<std::string>& faulty);

// Key-group ranges of each operator: inside the job, disjoint, covering every key group
// whose subtask has keyed state.
void check_key_groups(const Metadata& m, VerifyReport& report);
// The same for one operator, as a streaming reader hands it over.
void check_operator_key_groups(const OperatorState& op, VerifyReport& report);

// Offsets stored in `_metadata` (key groups, operator state list elements, channel state,
// change log pieces) inside the stream they point into.
void check_offsets(const Metadata& m, VerifyReport& report);

// The subtasks a check looks at; an empty filter admits every one.
using SubtaskFilter = std::function<bool(const OperatorState&, const SubtaskState&)>;

// Deep, SSTs only: every SST of the native handles of the subtasks `wanted` admits opened, its
// blocks checksummed (only those of the subtasks `checksummed` admits, if given), its key groups
// inside the job's. Adds the URI and local path of every SST found damaged to `known`; skips
// those in `faulty`.
void check_ssts(const Metadata& m, const SnapshotLocation& where, const VerifyOptions& options,
                const SubtaskFilter& wanted, const std::unordered_set<std::string>& faulty, VerifyReport& report,
                std::unordered_set<std::string>& known, const SubtaskFilter& checksummed = {});

// A read error as a problem: "operator <hex>, subtask <n>: <handle>: ..." in its context (as
// the entry readers write it) names the operator, subtask and handle.
VerifyProblem problem_of_read_error(const Error& e);

}  // namespace ckpt
