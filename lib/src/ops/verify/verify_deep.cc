// Deep checks: every stream decodes (through the dump readers), every SST of a native handle
// passes RocksDB's checksum verification and holds only key groups of its job (ops/engine/sst_checks.cc).
#include "ops/verify/verify_deep.h"

#include <algorithm>
#include <set>

#include "ckpt/dump.h"
#include "ops/engine/snapshot_checks.h"

namespace ckpt {
namespace {

// A problem already reported by the quick checks (a missing or short file) would fail to
// decode again; one fault, one line.
bool already_reported(const Error& e, const std::unordered_set<std::string>& faulty) {
  if (faulty.count(e.file)) return true;
  for (const std::string& f : faulty)
    if (e.message.find(f) != std::string::npos) return true;
  return false;
}

// Counts entries; keeps the dump's problems that are not a known fault seen again (a damaged
// file, or a subtask whose metadata the quick checks already found wrong).
class CountingSink : public DumpSink {
 public:
  CountingSink(const std::unordered_set<std::string>& faulty, std::set<std::pair<std::string, int32_t>> bad_subtasks,
               VerifyReport& report)
      : faulty_(faulty), bad_subtasks_(std::move(bad_subtasks)), report_(report) {}
  void entry(const Entry&) override { ++report_.entries; }
  void problem(const Error& e) override {
    if (already_reported(e, faulty_)) return;
    VerifyProblem p = problem_of_read_error(e);
    if (bad_subtasks_.count({p.operator_id, p.subtask})) return;
    if (e.code == ErrorCode::kNotSupported) report_.unchecked.push_back(std::move(p));
    else report_.problems.push_back(std::move(p));
  }

 private:
  const std::unordered_set<std::string>& faulty_;
  std::set<std::pair<std::string, int32_t>> bad_subtasks_;
  VerifyReport& report_;
};

}  // namespace

void check_deep(const Metadata& m, const SnapshotLocation& where, const VerifyOptions& options,
                const std::unordered_set<std::string>& faulty, VerifyReport& report) {
  std::set<std::pair<std::string, int32_t>> bad_subtasks;
  for (const VerifyProblem& p : report.problems)
    if (p.kind == ProblemKind::kOffsetOutsideFile || p.kind == ProblemKind::kBadKeyGroupRange)
      bad_subtasks.emplace(p.operator_id, p.subtask);
  // An SST found damaged here would fail the dump as well: one fault, one line.
  std::unordered_set<std::string> known = faulty;
  check_ssts(m, where, options, {}, faulty, report, known);

  DumpOptions dump;
  dump.keep_going = true;
  dump.jobs = std::max(options.jobs, 1);
  dump.remap = options.remap;
  dump.structure_checks = false;  // verify_snapshot ran them
  dump.progress = options.progress;
  dump.shard = options.shard;  // `m` is that part already; the dump reads `_metadata` again
  CountingSink sink(known, std::move(bad_subtasks), report);
  Result<DumpSummary> summary = dump_snapshot(where.metadata_path, dump, sink);
  if (!summary.ok()) {
    // A fault the quick checks found may stop the whole dump (a path that leaves the snapshot
    // directory): reported once, and what it kept from being checked is said.
    bool unchecked = summary.error().code == ErrorCode::kNotSupported || already_reported(summary.error(), known);
    (unchecked ? report.unchecked : report.problems).push_back(problem_of_read_error(summary.error()));
  }
}

}  // namespace ckpt
