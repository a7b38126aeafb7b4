// verify_snapshot: runs the quick checks, then (with --deep) the ones that read every byte.
#include "ckpt/verify.h"

#include <algorithm>

#include "ckpt/io.h"
#include "ops/engine/snapshot_checks.h"
#include "ops/verify/verify_deep.h"

namespace ckpt {

const char* problem_kind_name(ProblemKind kind) {
  switch (kind) {
    case ProblemKind::kMissingFile: return "missing-file";
    case ProblemKind::kSizeMismatch: return "size-mismatch";
    case ProblemKind::kOffsetOutsideFile: return "offset-outside-file";
    case ProblemKind::kFileConflict: return "file-conflict";
    case ProblemKind::kKeyGroupOverlap: return "key-group-overlap";
    case ProblemKind::kKeyGroupGap: return "key-group-gap";
    case ProblemKind::kBadKeyGroupRange: return "bad-key-group-range";
    case ProblemKind::kUndecodable: return "undecodable";
    case ProblemKind::kChecksumMismatch: return "checksum-mismatch";
    case ProblemKind::kKeyGroupOutOfRange: return "key-group-out-of-range";
    case ProblemKind::kPathOutsideSnapshot: return "path-outside-snapshot";
    case ProblemKind::kNotRegularFile: return "not-regular-file";
    case ProblemKind::kBadFileName: return "bad-file-name";
    case ProblemKind::kOutsideJobDirectory: return "outside-job-directory";
  }
  return "unknown";
}

namespace {

// `m` with only the subtasks of part `shard` (and, in part 0, the coordinator state and the
// finished subtasks, which no part's subtasks hold): operators keep their places, so problems
// name them as in the whole snapshot.
Metadata part_of_snapshot(const Metadata& m, const ShardSpec& shard) {
  const Plan plan = plan_parts(m, shard.count);
  Metadata part = m;
  for (size_t i = 0; i < m.operators.size(); ++i) {
    OperatorState& op = part.operators[i];
    op.subtasks.clear();
    for (const SubtaskState& st : m.operators[i].subtasks)
      if (st.finished ? shard.index == 0 : plan.owns(shard.index, m.operators[i], st.index)) op.subtasks.push_back(st);
    if (shard.index != 0) op.coordinator = StreamHandle{};
  }
  return part;
}

}  // namespace

Result<VerifyReport> verify_snapshot(const std::string& snapshot, const VerifyOptions& options) {
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(snapshot));
  CKPT_ASSIGN_OR_RETURN(Metadata m, read_metadata_file(where.metadata_path));
  if (options.shard) m = part_of_snapshot(m, *options.shard);
  VerifyReport report;
  report.metadata_path = where.metadata_path;
  report.deep = options.deep;
  report.operators = m.operators.size();
  for (const OperatorState& op : m.operators) report.subtasks += op.subtasks.size();

  FileResolver resolver(where.directory, options.remap);
  std::unordered_set<std::string> faulty;
  CKPT_RETURN_IF_ERROR(check_files(m, resolver, report, faulty));
  check_key_groups(m, report);
  check_offsets(m, report);
  if (options.deep) check_deep(m, where, options, faulty, report);
  append_named_operators(m, options.names, &report.named);
  report.naming = !options.names.empty();
  report.unmatched_uids = options.names.unmatched(m);
  for (auto* list : {&report.problems, &report.unchecked, &report.warnings})
    for (VerifyProblem& p : *list)
      for (const NamedOperator& n : report.named)
        if (n.operator_id == p.operator_id) p.uid = n.uid;
  return report;
}

}  // namespace ckpt
