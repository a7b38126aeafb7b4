// convert_snapshot: keyed state re-framed per subtask in parallel, everything else copied.
#include "ckpt/convert.h"

#include <atomic>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "ckpt/metadata.h"
#include "format/java/java_serialization.h"
#include "format/state_bytes.h"
#include "ops/verify/input_checks.h"
#include "ops/key_serializers.h"
#include "ops/convert/keyed_target.h"
#include "ops/output_guard.h"
#include "state/raw_keyed_reader.h"
#include "state/stream_opener.h"
#include "support/worker_threads.h"

namespace ckpt {

namespace {

struct Job {
  const Metadata* metadata = nullptr;
  StreamOpener streams;
  std::string out_dir;  // the temporary output directory
  ConvertTarget to = ConvertTarget::kCanonical;
  bool modern_types = true;  // 11 / 12 rather than 5 / 3
  Progress* progress = nullptr;
  std::map<std::string, SerializerSnapshot> key_serializers;  // by operator id (hex), for changelog handles
};

struct Counters {
  std::atomic<uint64_t> subtasks{0}, entries{0}, files{0}, bytes{0};
};

// The bytes behind `h` copied to `name` in the output, as a relative handle; inline and null
// handles stay as they are.
Result<StreamHandle> copy_stream(const StreamHandle& h, const Job& job, const std::string& name, Counters& c) {
  if (h.type == handle_type::kNull || h.type == handle_type::kByteStream) return h;
  if (h.type == handle_type::kKeyGroups) {
    // Key-groups handle in stream context: its delegate is the stream.
    StreamHandle out = h;
    CKPT_ASSIGN_OR_RETURN(out.key_groups.at(0).delegate, copy_stream(h.key_groups.at(0).delegate, job, name, c));
    return out;
  }
  std::string bytes;
  CKPT_RETURN_IF_ERROR(job.streams.read(h, [&](const StateStream& stream) { return stream.read_all(&bytes); }));
  CKPT_RETURN_IF_ERROR(write_file_atomic(job.out_dir + "/" + name, bytes));
  c.files++;
  c.bytes += bytes.size();
  StreamHandle out;
  out.type = handle_type::kRelativeFile;
  out.path = name;
  out.size = static_cast<int64_t>(bytes.size());
  return out;
}

Result<KeyedHandle> convert_keyed(const KeyedHandle& in, const OperatorState& op, int32_t subtask, const Job& job,
                                  Counters& c) {
  if (in.is_null()) return in;
  auto key = job.key_serializers.find(operator_id_hex(op.id));
  CKPT_ASSIGN_OR_RETURN(RawKeyedSource source,
                        open_raw_keyed(in, job.streams, op.max_parallelism,
                                       key == job.key_serializers.end() ? nullptr : &key->second));
  KeyedTarget target;
  target.to = job.to;
  target.modern_types = job.modern_types;
  target.out_dir = job.out_dir;
  target.op_hex = operator_id_hex(op.id);
  target.subtask = subtask;
  target.max_parallelism = op.max_parallelism;
  target.checkpoint_id = job.metadata->checkpoint_id;
  target.range = in.range;
  target.deferred_sync = true;  // convert_snapshot syncs the whole output before its rename
  KeyedTargetStats stats;
  CKPT_ASSIGN_OR_RETURN(KeyedHandle out, write_keyed_target(target, source.meta, [&](const KeyGroupPairsFn& fn) {
    return read_raw_keyed(in, source, job.streams, op.max_parallelism, fn);
  }, &stats));
  c.entries += stats.entries;
  if (job.progress) job.progress->add_entries(stats.entries);
  c.files += stats.files;
  c.bytes += stats.bytes;
  c.subtasks++;
  return out;
}

Status convert_subtask(const OperatorState& op, SubtaskState& st, const Job& job, Counters& c) {
  const std::string op_hex = operator_id_hex(op.id);
  const std::string prefix = fmt::format("{}-{}-", op_hex, st.index);
  int n = 0;
  auto copy = [&](StreamHandle& h, const char* slot) -> Status {
    CKPT_ASSIGN_OR_RETURN(h, copy_stream(h, job, fmt::format("{}{}-{}", prefix, slot, n++), c));
    return Status::OK();
  };
  for (StreamHandle& h : st.legacy) CKPT_RETURN_IF_ERROR(copy(h, "legacy"));
  for (auto* list : {&st.managed_operator, &st.raw_operator})
    for (OperatorHandle& h : *list) {
      if (h.is_null()) continue;
      if (h.type == handle_type::kFileMergingOperator) {
        // Its directories belong to the job that wrote it; the copy stands alone.
        h.type = handle_type::kPartitionableOperator;
        h.taskowned_dir.clear();
        h.shared_dir.clear();
        h.empty_variant = false;
      }
      CKPT_RETURN_IF_ERROR(copy(h.delegate, "operator"));
    }
  for (auto* list : {&st.input_channels, &st.result_subpartitions})
    for (ChannelHandle& h : *list) CKPT_RETURN_IF_ERROR(copy(h.delegate, "channel"));
  if (!st.raw_keyed.is_null()) {
    if (st.raw_keyed.type != handle_type::kKeyGroups && st.raw_keyed.type != handle_type::kKeyGroupsWithId)
      return Error(ErrorCode::kNotSupported, fmt::format("raw keyed state handle type {:#04x} ({}) cannot be copied",
                                                         st.raw_keyed.type, handle_type_name(st.raw_keyed.type)));
    CKPT_RETURN_IF_ERROR(copy(st.raw_keyed.delegate, "raw-keyed"));
  }
  CKPT_ASSIGN_OR_RETURN(st.managed_keyed, convert_keyed(st.managed_keyed, op, st.index, job, c));
  return Status::OK();
}

// Handle types of the Flink generation that wrote the input: 12 / 11 carry ids (1.15+); 3 / 5
// are what older versions read. A file with only canonical handles says nothing: its version does.
bool uses_modern_types(const Metadata& m) {
  for (const OperatorState& op : m.operators)
    for (const SubtaskState& st : op.subtasks) {
      switch (st.managed_keyed.type) {
        case handle_type::kKeyGroupsWithId:
        case handle_type::kIncremental:
        case handle_type::kChangelogBackend: return true;
        case handle_type::kKeyGroups:
        case handle_type::kIncrementalV1: return false;
        default: break;
      }
    }
  return m.version >= 4;
}

}  // namespace

const char* convert_target_name(ConvertTarget t) {
  switch (t) {
    case ConvertTarget::kRocksDb: return "rocksdb";
    case ConvertTarget::kHeap: return "heap";
    case ConvertTarget::kCanonical: return "canonical";
  }
  return "canonical";
}

Result<ConvertTarget> parse_convert_target(std::string_view name) {
  if (name == "rocksdb") return ConvertTarget::kRocksDb;
  if (name == "heap" || name == "hashmap") return ConvertTarget::kHeap;
  if (name == "canonical") return ConvertTarget::kCanonical;
  return Error(ErrorCode::kInvalidArgument,
               fmt::format("unknown conversion target '{}', expected rocksdb, heap or canonical", name));
}

Result<ConvertSummary> convert_snapshot(const std::string& snapshot, const ConvertOptions& options) {
  if (options.output.empty()) return Error(ErrorCode::kInvalidArgument, "no output directory given");
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(snapshot));
  CKPT_ASSIGN_OR_RETURN(Metadata metadata, read_metadata_file(where.metadata_path));
  CKPT_RETURN_IF_ERROR(check_relative_paths(metadata, where.metadata_path));
  CKPT_RETURN_IF_ERROR(check_output(options.output, OutputKind::kDirectory, options.force,
                                    {{&where, &metadata, &options.remap, {}},
                                     {nullptr, nullptr, &options.remap, options.key_serializers_from}}));
  InputChecks checks;
  checks.jobs = options.jobs;
  checks.progress = options.progress;
  if (options.progress)
    for (const OperatorState& op : metadata.operators)
      for (const SubtaskState& st : op.subtasks)
        if (!st.finished) options.progress->bytes_total.fetch_add(subtask_state_bytes(st), std::memory_order_relaxed);
  CKPT_RETURN_IF_ERROR(check_input(metadata, where, options.remap, checks));

  Job job;
  job.metadata = &metadata;
  job.streams = StreamOpener::for_snapshot(where, options.remap);
  job.streams.set_progress(options.progress);
  job.progress = options.progress;
  if (!options.key_serializers_from.empty()) {
    CKPT_ASSIGN_OR_RETURN(job.key_serializers, key_serializers_of(options.key_serializers_from, options.remap));
  }
  job.to = options.to;
  job.modern_types = uses_modern_types(metadata);
  CKPT_ASSIGN_OR_RETURN(TempDir temp, TempDir::create_beside(options.output));
  job.out_dir = temp.path();

  Metadata out = metadata;
  Counters counters;
  std::vector<std::pair<OperatorState*, SubtaskState*>> tasks;
  for (OperatorState& op : out.operators) {
    for (SubtaskState& st : op.subtasks)
      if (!st.finished) tasks.emplace_back(&op, &st);
    CKPT_ASSIGN_OR_RETURN(op.coordinator,
                          copy_stream(op.coordinator, job, fmt::format("{}-coordinator", operator_id_hex(op.id)), counters));
  }

  CKPT_RETURN_IF_ERROR(run_parallel(tasks.size(), options.jobs, [&](size_t i) -> Status {
    auto [op, st] = tasks[i];
    Status s = convert_subtask(*op, *st, job, counters);
    if (s.ok()) return s;
    return std::move(s).error().with_context(
        fmt::format("operator {}, subtask {}", operator_id_hex(op->id), st->index));
  }));

  SnapshotKind kind = options.to == ConvertTarget::kCanonical ? SnapshotKind::kSavepointCanonical
                                                              : SnapshotKind::kSavepointNative;
  if (out.version >= 4) {
    CheckpointProperties p;
    p.present = true;
    p.forced = true;
    p.type_class = "org.apache.flink.runtime.checkpoint.SavepointType";
    p.type_name = "Savepoint";
    p.format_type = kind == SnapshotKind::kSavepointCanonical ? "CANONICAL" : "NATIVE";
    p.post_checkpoint_action = "NONE";
    out.properties = p;
    out.properties_raw = encode_checkpoint_properties(p);
  }
  CKPT_ASSIGN_OR_RETURN(std::string bytes, encode_metadata(out));
  CKPT_RETURN_IF_ERROR(write_file_atomic(job.out_dir + "/_metadata", bytes));
  // commit() syncs the whole output in one pass before its rename, instead of RocksDB's
  // thirty-odd syncs per instance (which made small instances cost tens of milliseconds each);
  // the heap and canonical streams, written unsynced, become durable there too.
  CKPT_RETURN_IF_ERROR(temp.commit(options.force));

  ConvertSummary summary;
  summary.subtasks = counters.subtasks;
  summary.entries = counters.entries;
  summary.files = counters.files + 1;
  summary.bytes = counters.bytes + bytes.size();
  summary.kind = out.version >= 4 ? snapshot_kind_name(kind) : snapshot_kind_name(out.kind());
  return summary;
}

}  // namespace ckpt
