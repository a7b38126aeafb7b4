// generate_snapshot: one synthetic snapshot through the conversion writers, or a chain.
#include "ckpt/generate.h"

#include <fmt/format.h>

#include "ckpt/io.h"
#include "format/java/java_serialization.h"
#include "ops/generate/generate_internal.h"
#include "ops/generate/generate_model.h"
#include "ops/rewrite/keyed_target.h"
#include "ops/output_guard.h"
#include "s3/output_directory.h"
#include "support/worker_threads.h"

namespace ckpt {

Result<GenerateBackend> parse_generate_backend(const std::string& name) {
  if (name == "rocksdb") return GenerateBackend::kRocksDb;
  if (name == "heap" || name == "hashmap") return GenerateBackend::kHeap;
  if (name == "canonical") return GenerateBackend::kCanonical;
  return Error(ErrorCode::kInvalidArgument, fmt::format("unknown backend '{}', expected rocksdb, heap or canonical", name));
}

Metadata generated_metadata(const GenerateModel& model, int64_t checkpoint_id,
                            const std::vector<std::vector<KeyedHandle>>& handles, const CheckpointProperties& p) {
  const GenerateOptions& o = model.options();
  Metadata m;
  m.version = 4;
  m.checkpoint_id = checkpoint_id;
  for (int32_t op = 0; op < o.operators; ++op) {
    OperatorState os;
    os.id = model.operator_id(op);
    os.parallelism = o.parallelism;
    os.max_parallelism = o.max_parallelism;
    for (int32_t s = 0; s < o.parallelism; ++s) {
      SubtaskState st;
      st.index = s;
      st.managed_keyed = handles[op][s];
      os.subtasks.push_back(std::move(st));
    }
    m.operators.push_back(std::move(os));
  }
  m.properties = p;
  m.properties_raw = encode_checkpoint_properties(p);
  return m;
}

Result<GenerateSummary> generate_snapshot(const GenerateOptions& options) {
  if (options.output.empty()) return Error(ErrorCode::kInvalidArgument, "no output directory given");
  CKPT_RETURN_IF_ERROR(check_output(options.output, OutputKind::kDirectory, options.force, {}));
  CKPT_ASSIGN_OR_RETURN(GenerateModel model, GenerateModel::make(options));
  if (options.chain > 0) return generate_chain(model);

  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<OutputDirectory> temp, OutputDirectory::create(options.output));
  const GenerateOptions& o = options;
  if (o.progress)
    o.progress->parts_total.fetch_add(static_cast<uint64_t>(o.operators) * o.max_parallelism, std::memory_order_relaxed);
  std::vector<std::vector<KeyedHandle>> handles(o.operators, std::vector<KeyedHandle>(o.parallelism));
  std::vector<KeyedTargetStats> stats(static_cast<size_t>(o.operators) * o.parallelism);
  CKPT_RETURN_IF_ERROR(run_parallel(stats.size(), o.jobs, [&](size_t i) -> Status {
    const int32_t op = static_cast<int32_t>(i / o.parallelism), sub = static_cast<int32_t>(i % o.parallelism);
    KeyedTarget t;
    t.to = o.backend == GenerateBackend::kRocksDb ? ConvertTarget::kRocksDb
           : o.backend == GenerateBackend::kHeap  ? ConvertTarget::kHeap
                                                  : ConvertTarget::kCanonical;
    t.out_dir = temp->path();
    t.op_hex = operator_id_hex(model.operator_id(op));
    t.subtask = sub;
    t.max_parallelism = o.max_parallelism;
    t.checkpoint_id = 1;
    t.sst_bytes = o.sst_bytes;
    t.range = key_group_range_of_subtask(o.max_parallelism, o.parallelism, sub);
    CKPT_ASSIGN_OR_RETURN(handles[op][sub], write_keyed_target(t, model.meta(), [&](const KeyGroupPairsFn& fn) -> Status {
      std::vector<std::vector<RocksPair>> by_state;
      for (int32_t kg = t.range.first; kg <= t.range.last(); ++kg) {
        model.pairs(op, kg, 0, &by_state);
        bool any = false;
        for (const auto& v : by_state) any |= !v.empty();
        if (any) CKPT_RETURN_IF_ERROR(fn(kg, by_state));
        if (o.progress) {
          for (const auto& v : by_state) o.progress->add_entries(v.size());
          o.progress->add_parts(1);
        }
      }
      return Status::OK();
    }, &stats[i]));
    return Status::OK();
  }));

  CheckpointProperties p = savepoint_properties(o.backend == GenerateBackend::kCanonical);
  CKPT_ASSIGN_OR_RETURN(std::string bytes, encode_metadata(generated_metadata(model, 1, handles, p)));
  CKPT_RETURN_IF_ERROR(write_file_atomic(temp->path() + "/_metadata", bytes));
  CKPT_RETURN_IF_ERROR(temp->commit(options.force));
  GenerateSummary summary;
  summary.snapshots = 1;
  summary.files = 1;
  summary.bytes = bytes.size();
  for (const KeyedTargetStats& s : stats) {
    summary.entries += s.entries;
    summary.files += s.files;
    summary.bytes += s.bytes;
  }
  return summary;
}

}  // namespace ckpt
