// restore_snapshot: choose the subtasks, restore them in parallel into a temporary directory,
// then rename it into place.
#include "ckpt/restore.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "ckpt/walk.h"
#include "format/state_bytes.h"
#include "ops/engine/input_checks.h"
#include "ops/key_serializers.h"
#include "ops/output_guard.h"
#include "ops/restore/restore_instance.h"
#include "ops/selection_check.h"
#include "s3/output_directory.h"
#include "support/worker_threads.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

// Native handles are placed; heap and canonical key-groups handles are rebuilt, and so are
// changelog backend handles (their materialized part with the change logs replayed).
bool restorable(const KeyedHandle& h) {
  return handle_type::is_incremental(h.type) || h.type == handle_type::kKeyGroups || h.type == handle_type::kKeyGroupsWithId ||
         h.type == handle_type::kSavepointKeyGroups || h.type == handle_type::kChangelogBackend ||
         h.type == handle_type::kChangelogBackendV1;
}

Error invalid(const std::string& file, std::string message, ErrorCode code = ErrorCode::kInvalidArgument) {
  Error e(code, std::move(message));
  e.file = file;
  return e;
}

}  // namespace

Result<RestoreReport> restore_snapshot(const std::string& snapshot, const RestoreOptions& options) {
  if (options.output.empty()) return invalid("", "no output directory given");
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(snapshot));
  CKPT_ASSIGN_OR_RETURN(Metadata m, read_metadata_file(where.metadata_path));
  CKPT_RETURN_IF_ERROR(check_relative_paths(m, where.metadata_path));
  CKPT_RETURN_IF_ERROR(check_output(options.output, OutputKind::kDirectory, options.force,
                                    {{&where, &m, &options.remap, {}},
                                     {nullptr, nullptr, &options.remap, options.key_serializers_from}}));

  std::map<std::string, SerializerSnapshot> key_serializers;
  if (!options.key_serializers_from.empty()) {
    CKPT_ASSIGN_OR_RETURN(key_serializers, key_serializers_of(options.key_serializers_from, options.remap));
  }

  RestoreReport report;
  report.output = options.output;
  std::vector<InstanceJob> jobs;
  Result<std::vector<const OperatorState*>> selected = select_operators(m, options.operator_filter);
  if (!selected.ok()) return std::move(selected).error().with_file(where.metadata_path);
  CKPT_RETURN_IF_ERROR(check_subtask_selection(*selected, options.subtask, options.key_groups, SubtaskNeed::kKeyed,
                                               where.metadata_path));
  std::optional<Plan> plan;
  if (options.shard) plan = plan_parts(m, options.shard->count);
  for (const OperatorState* selected_op : *selected) {
    const OperatorState& op = *selected_op;
    std::vector<const SubtaskState*> subtasks;
    for (const SubtaskState& st : op.subtasks)
      if (!st.finished && !st.managed_keyed.is_null() && (!options.subtask || st.index == *options.subtask) &&
          (!plan || plan->owns(options.shard->index, op, st.index)))
        subtasks.push_back(&st);
    std::stable_sort(subtasks.begin(), subtasks.end(),
                     [](const SubtaskState* a, const SubtaskState* b) { return a->index < b->index; });
    for (const SubtaskState* st : subtasks) {
      const KeyedHandle& h = st->managed_keyed;
      std::string id = operator_id_hex(op.id);
      if (!restorable(h)) {
        report.skipped.push_back({id, st->index, fmt::format("{} handles are not restored yet", handle_type_name(h.type))});
        continue;
      }
      InstanceJob job;
      job.op = &op;
      job.subtask = st;
      job.handle = &h;
      job.keep = h.range;
      job.link = options.link;
      job.full_check = options.full_check;
      if (auto key = key_serializers.find(id); key != key_serializers.end()) job.key_fallback = &key->second;
      if (options.key_groups) {
        int32_t first = std::max(options.key_groups->first, h.range.first);
        int32_t last = std::min(options.key_groups->second, h.range.last());
        if (first > last) continue;  // this subtask holds none of the wanted key groups
        job.keep = {first, last - first + 1};
        job.clip = handle_type::is_incremental(h.type) && job.keep != h.range;
      }
      job.directory = fmt::format("{}/subtask-{}", id, st->index);  // relative until the temp dir exists
      jobs.push_back(std::move(job));
    }
  }
  if (jobs.empty() && options.shard && report.skipped.empty()) return report;  // an empty part
  if (jobs.empty()) {
    std::string why = report.skipped.empty() ? "no subtask with keyed state matches"
                                             : fmt::format("{} subtasks skipped: {}", report.skipped.size(),
                                                           report.skipped.front().reason);
    return invalid(where.metadata_path, "nothing to restore: " + why, ErrorCode::kNotFound);
  }

  // Every file must be there before anything is written.
  FileResolver resolver(where.directory, options.remap);
  ResolvedPaths paths;
  for (const InstanceJob& job : jobs) {
    // Every stream of the handle: a changelog handle's materialized parts and log files too.
    std::vector<const StreamHandle*> streams;
    visit_streams(*job.handle, [&](const StreamHandle& s, StreamRole, const std::string*) { streams.push_back(&s); });
    for (const StreamHandle* s : streams) {
      if (!s->is_file() || paths.count(s->path)) continue;
      auto found = resolver.find(s->type, s->path);
      if (!found)
        return invalid(where.metadata_path,
                       fmt::format("operator {}, subtask {}: state file '{}' not found", operator_id_hex(job.op->id),
                                   job.subtask->index, s->path),
                       ErrorCode::kNotFound);
      CKPT_RETURN_IF_ERROR(found->usable());
      paths.emplace(s->path, found->path);
    }
  }

  // A damaged part of a restored subtask stops the restore before anything is written. Its SSTs
  // are opened (footer, properties, first and last keys) but checksummed whole only with
  // full_check: placing them copies or links their bytes unread, so that a restore costs a few
  // reads per file, not a read of every byte (`ckpt verify --deep` checksums them too).
  InputChecks checks;
  checks.jobs = options.jobs;
  if (!options.full_check) checks.whole_sst_checks = [](const OperatorState&, const SubtaskState&) { return false; };
  checks.progress = options.progress;
  // Heap and canonical streams carry no checksum and are re-framed without their values being
  // decoded: decoded whole first, as dump reads them.
  checks.keyed_streams = true;
  if (options.progress)
    for (InstanceJob& job : jobs) {
      job.progress = options.progress;
      options.progress->bytes_total.fetch_add(subtask_state_bytes(*job.subtask, false), std::memory_order_relaxed);
    }
  checks.wanted = [&options](const OperatorState& op, const SubtaskState& st) {
    return operator_matches(op, options.operator_filter) && (!options.subtask || st.index == *options.subtask);
  };
  CKPT_RETURN_IF_ERROR(check_input(m, where, options.remap, checks));

  std::string final_path = options.output;
  while (final_path.size() > 1 && final_path.back() == '/') final_path.pop_back();
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<OutputDirectory> temp, OutputDirectory::create(final_path));
  for (InstanceJob& job : jobs) job.directory = temp->path() + "/" + job.directory;

  std::vector<std::optional<Result<RestoredInstance>>> results(jobs.size());
  std::atomic<bool> failed{false};
  // A failure other than kNotSupported stops the instances not yet started; every outcome is
  // reported below with its operator and subtask.
  Status run = run_parallel(jobs.size(), options.jobs, [&](size_t i) -> Status {
    results[i] = catch_internal([&]() -> Result<RestoredInstance> {
      return restore_instance(jobs[i], paths, where.metadata_path);
    });
    if (results[i]->ok() || results[i]->error().code == ErrorCode::kNotSupported) return Status::OK();
    failed = true;
    return results[i]->error();
  });
  if (!run.ok() && !failed) return std::move(run).error();  // the threads, not an instance
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i]) continue;
    if (!results[i]->ok() && results[i]->error().code == ErrorCode::kNotSupported) {
      // Valid state ckpt cannot rebuild (a value that needs the job's classes to delimit):
      // the subtask is skipped with the reason, its partial output removed.
      std::error_code ec;
      fs::remove_all(jobs[i].directory, ec);
      fs::remove_all(jobs[i].directory + ".build", ec);
      report.skipped.push_back({operator_id_hex(jobs[i].op->id), jobs[i].subtask->index, results[i]->error().to_string()});
      continue;
    }
    if (!results[i]->ok())
      return std::move(*results[i]).error().with_context(
          fmt::format("operator {}, subtask {}", operator_id_hex(jobs[i].op->id), jobs[i].subtask->index));
    RestoredInstance inst = std::move(*results[i]).value();
    inst.directory = fmt::format("{}/{}/subtask-{}", final_path, inst.operator_id, inst.subtask);
    report.instances.push_back(std::move(inst));
  }
  if (report.instances.empty())
    return invalid(where.metadata_path,
                   fmt::format("nothing to restore: {} subtasks skipped: {}", report.skipped.size(),
                               report.skipped.front().reason),
                   ErrorCode::kNotFound);

  CKPT_RETURN_IF_ERROR(temp->commit(options.force));
  return report;
}

}  // namespace ckpt
