// rewrite_snapshot: keyed state re-framed per subtask in parallel, everything else copied.
#include "ops/rewrite/snapshot_rewrite.h"

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "format/java/java_serialization.h"
#include "format/state_bytes.h"
#include "ops/rewrite/keyed_target.h"
#include "ops/rewrite/rewrite_parts.h"
#include "ops/engine/input_checks.h"
#include "ops/key_serializers.h"
#include "ops/output_guard.h"
#include "s3/output_directory.h"
#include "state/operator_state_reader.h"
#include "state/stream_opener.h"
#include "support/worker_threads.h"

namespace ckpt {

namespace {

struct Job {
  const Metadata* metadata = nullptr;
  const RewriteOptions* options = nullptr;
  const SnapshotEdits* edits = nullptr;
  StreamOpener streams;
  std::string out_dir;                                        // the temporary output directory
  bool modern_types = true;                                   // 11 / 12 rather than 5 / 3
  bool check_on_read = false;                                 // RewriteOptions::check_on_read, in force
  std::map<std::string, SerializerSnapshot> key_serializers;  // by operator id (hex), for changelog handles
};

struct Counters {
  std::atomic<uint64_t> subtasks{0}, entries{0}, files{0}, bytes{0};
  std::atomic<uint64_t> canonical{0}, native{0};  // keyed handles written in each kind of layout
  std::atomic<uint64_t> peak_buffered{0};         // the largest of the subtasks'

  void note_buffered(uint64_t n) {
    uint64_t was = peak_buffered.load();
    while (n > was && !peak_buffered.compare_exchange_weak(was, n)) {
    }
  }
  // One subtask's keyed state written in layout `to`, as `stats` counts it.
  void note_keyed(const KeyedTargetStats& stats, ConvertTarget to, Progress* progress) {
    entries += stats.entries;
    if (progress) progress->add_entries(stats.entries);
    files += stats.files;
    bytes += stats.bytes;
    note_buffered(stats.peak_buffered_bytes);
    subtasks++;
    (to == ConvertTarget::kCanonical ? canonical : native)++;
  }
};

using BytesEdit = std::function<Status(std::string& bytes)>;

// The bytes behind `h` (edited by `edit` if given) copied to `name` in the output, as a relative
// handle; inline and null handles stay as they are (an inline one edited in place).
Result<StreamHandle> copy_stream(const StreamHandle& h, const Job& job, const std::string& name, Counters& c,
                                 const BytesEdit& edit = {}) {
  if (h.type == handle_type::kNull) return h;
  if (h.type == handle_type::kByteStream) {
    if (!edit) return h;
    StreamHandle out = h;
    CKPT_RETURN_IF_ERROR(edit(out.data));
    return out;
  }
  if (h.type == handle_type::kKeyGroups) {
    // Key-groups handle in stream context: its delegate is the stream.
    StreamHandle out = h;
    CKPT_ASSIGN_OR_RETURN(out.key_groups.at(0).delegate, copy_stream(h.key_groups.at(0).delegate, job, name, c, edit));
    return out;
  }
  if (job.options->dry_run && !edit) return h;
  std::string bytes;
  CKPT_RETURN_IF_ERROR(job.streams.read(h, [&](const StateStream& stream) { return stream.read_all(&bytes); }));
  if (edit) CKPT_RETURN_IF_ERROR(edit(bytes));
  if (job.options->dry_run) return h;
  CKPT_RETURN_IF_ERROR(write_file_atomic(job.out_dir + "/" + name, bytes));
  c.files++;
  c.bytes += bytes.size();
  StreamHandle out;
  out.type = handle_type::kRelativeFile;
  out.path = name;
  out.size = static_cast<int64_t>(bytes.size());
  return out;
}

// The elements of managed operator state `h` whose stream (as written) is `bytes`: entries as
// dump and verify --deep count them, so the summary's count is theirs. An element that does not
// decode still counts (dump shows it as hex); a stream that does not parse counts what it read.
uint64_t count_operator_entries(const OperatorHandle& h, const std::string& bytes) {
  OperatorHandle in_memory = h;
  in_memory.delegate = StreamHandle{};
  in_memory.delegate.type = handle_type::kByteStream;
  in_memory.delegate.data = bytes;
  uint64_t n = 0;
  Status s = read_operator_handle(
      in_memory, StreamOpener{}, StateFilter{},
      [&](StateEntry&&) {
        ++n;
        return Status::OK();
      },
      [](Error&&) { return Status::OK(); });
  (void)s;
  return n;
}

Result<KeyedHandle> rewrite_keyed(const KeyedHandle& in, const OperatorState& op, const SubtaskState& st,
                                  const Job& job, Counters& c) {
  const int32_t subtask = st.index;
  std::optional<KeyedSource> from;
  CKPT_ASSIGN_OR_RETURN(from, job.edits->keyed_source(op, st));
  if (!from) {
    if (in.is_null()) return in;
    auto key = job.key_serializers.find(operator_id_hex(op.id));
    CKPT_ASSIGN_OR_RETURN(
        RawKeyedSource raw,
        open_raw_keyed(in, job.streams, op.max_parallelism, key == job.key_serializers.end() ? nullptr : &key->second));
    from.emplace();
    from->meta = std::move(raw.meta);
    from->range = in.range;
    from->layout = same_layout_target(in);
    const int32_t max_parallelism = op.max_parallelism;
    from->produce = [&job, &in, raw_layout = raw.layout, meta = from->meta,
                     max_parallelism](const KeyGroupPairsFn& fn) {
      RawKeyedSource source;
      source.layout = raw_layout;
      source.meta = meta;
      return read_raw_keyed(in, source, job.streams, max_parallelism, fn, job.check_on_read);
    };
  }
  const KeyedSource& source = *from;
  KeyedBackendMeta meta = source.meta;
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<KeyedEdit> edit, job.edits->keyed(op, subtask, meta));
  // The input state each output state is (an edit drops states, never adds or renames one).
  std::vector<size_t> kept;
  for (const StateMetaInfo& out_state : meta.states)
    for (size_t i = 0; i < source.meta.states.size(); ++i)
      if (source.meta.states[i].name == out_state.name) kept.push_back(i);
  if (kept.size() != meta.states.size())
    return Error(ErrorCode::kInvalidArgument, "an edit of the state meta data added or renamed a state");
  const bool all_kept = kept.size() == source.meta.states.size();
  std::vector<std::vector<RocksPair>> projected(kept.size());
  // Sources call back only for key groups with data: those an edit adds to are passed in between.
  std::vector<int32_t> added;
  if (edit)
    for (int32_t kg : edit->added_key_groups())
      if (source.range.contains(kg)) added.push_back(kg);
  auto produce = [&](const KeyGroupPairsFn& fn) -> Status {
    auto one = [&](int32_t kg, std::vector<std::vector<RocksPair>>& by_state) -> Status {
      if (edit) CKPT_RETURN_IF_ERROR(edit->key_group(kg, by_state));
      if (all_kept) return fn(kg, by_state);
      // Swapped in and back out: the reader recycles its vectors' pairs.
      for (size_t j = 0; j < kept.size(); ++j) projected[j].swap(by_state[kept[j]]);
      Status s = fn(kg, projected);
      for (size_t j = 0; j < kept.size(); ++j) projected[j].swap(by_state[kept[j]]);
      return s;
    };
    size_t next = 0;
    std::vector<std::vector<RocksPair>> empty(source.meta.states.size());
    auto added_before = [&](int32_t kg) -> Status {
      for (; next < added.size() && added[next] < kg; ++next) {
        for (auto& pairs : empty) pairs.clear();
        CKPT_RETURN_IF_ERROR(one(added[next], empty));
      }
      if (next < added.size() && added[next] == kg) ++next;
      return Status::OK();
    };
    CKPT_RETURN_IF_ERROR(source.produce([&](int32_t kg, std::vector<std::vector<RocksPair>>& by_state) -> Status {
      CKPT_RETURN_IF_ERROR(added_before(kg));
      return one(kg, by_state);
    }));
    return added_before(INT32_MAX);
  };
  KeyedTarget target;
  target.to = job.options->to ? *job.options->to : source.layout;
  if (source.written) {
    // Written before any subtask was rewritten: nothing here may change it.
    if (edit || !all_kept || !added.empty() || target.to != source.layout || job.options->dry_run)
      return Error(ErrorCode::kInvalidArgument,
                   "keyed state written by the regrouping cannot be edited again in the same rewrite");
    const WrittenKeyedStream& w = *source.written;
    target.modern_types = job.modern_types;
    target.op_hex = operator_id_hex(op.id);
    target.subtask = subtask;
    target.range = source.range;
    if (w.instance) {
      target.out_dir = job.out_dir;
      target.checkpoint_id = job.metadata->checkpoint_id;
      KeyedTargetStats stats;
      CKPT_ASSIGN_OR_RETURN(KeyedHandle out, rocks_instance_handle(target, meta, *w.instance, &stats));
      stats.peak_buffered_bytes = w.peak_buffered_bytes;
      c.note_keyed(stats, target.to, job.options->progress);
      return out;
    }
    c.note_keyed(KeyedTargetStats{w.entries, 1, w.size, w.peak_buffered_bytes}, target.to, job.options->progress);
    return key_groups_handle(target, w.name, w.offsets, w.size);
  }
  if (job.options->dry_run) {
    uint64_t entries = 0;
    CKPT_RETURN_IF_ERROR(produce([&](int32_t, std::vector<std::vector<RocksPair>>& by_state) -> Status {
      for (const auto& pairs : by_state) entries += pairs.size();
      return Status::OK();
    }));
    c.entries += entries;
    c.subtasks++;
    return KeyedHandle{};  // a dry run writes no handle
  }
  target.modern_types = job.modern_types;
  target.out_dir = job.out_dir;
  target.op_hex = operator_id_hex(op.id);
  target.subtask = subtask;
  target.max_parallelism = op.max_parallelism;
  target.checkpoint_id = job.metadata->checkpoint_id;
  target.range = source.range;
  target.keep_order = source.keep_order;
  if (all_kept) target.state_order = source.state_order;
  target.deferred_sync = true;  // rewrite_snapshot syncs the whole output before its rename
  // With a core to spare (-j below the cores), a RocksDB target puts a key group's states on two threads.
  target.parallel_families = job.options->jobs < static_cast<int>(std::thread::hardware_concurrency());
  KeyedTargetStats stats;
  CKPT_ASSIGN_OR_RETURN(KeyedHandle out, write_keyed_target(target, std::move(meta), produce, &stats));
  c.note_keyed(stats, target.to, job.options->progress);
  return out;
}

Status rewrite_subtask(const OperatorState& op, SubtaskState& st, const Job& job, Counters& c) {
  const std::string op_hex = operator_id_hex(op.id);
  const std::string prefix = fmt::format("{}-{}-", op_hex, st.index);
  int n = 0;
  auto copy = [&](StreamHandle& h, const char* slot, const BytesEdit& edit = {}) -> Status {
    CKPT_ASSIGN_OR_RETURN(h, copy_stream(h, job, fmt::format("{}{}-{}", prefix, slot, n++), c, edit));
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
      BytesEdit edit;
      if (list == &st.managed_operator)
        edit = [&](std::string& bytes) -> Status {
          CKPT_RETURN_IF_ERROR(job.edits->operator_state(op, st.index, h, bytes));
          c.entries += count_operator_entries(h, bytes);
          return Status::OK();
        };
      CKPT_RETURN_IF_ERROR(copy(h.delegate, "operator", edit));
    }
  for (auto* list : {&st.input_channels, &st.result_subpartitions})
    for (ChannelHandle& h : *list) CKPT_RETURN_IF_ERROR(copy(h.delegate, "channel"));
  CKPT_ASSIGN_OR_RETURN(std::optional<RawKeyedStream> raw, job.edits->raw_keyed_source(op, st));
  if (raw && !job.options->dry_run) {
    const std::string name = fmt::format("{}raw-keyed-{}", prefix, n++);
    CKPT_RETURN_IF_ERROR(write_file_atomic(job.out_dir + "/" + name, raw->bytes));
    c.files++;
    c.bytes += raw->bytes.size();
    KeyedHandle h;
    h.type = job.modern_types ? handle_type::kKeyGroupsWithId : handle_type::kKeyGroups;
    if (job.modern_types) h.handle_id = stable_uuid(op_hex, st.index, 'r');
    h.range = raw->range;
    h.offsets = std::move(raw->offsets);
    h.delegate = file_stream_handle(handle_type::kRelativeFile, name, raw->bytes.size());
    st.raw_keyed = std::move(h);
  } else if (!st.raw_keyed.is_null()) {
    if (st.raw_keyed.type != handle_type::kKeyGroups && st.raw_keyed.type != handle_type::kKeyGroupsWithId)
      return Error(ErrorCode::kNotSupported, fmt::format("raw keyed state handle type {:#04x} ({}) cannot be copied",
                                                         st.raw_keyed.type, handle_type_name(st.raw_keyed.type)));
    CKPT_RETURN_IF_ERROR(copy(st.raw_keyed.delegate, "raw-keyed"));
  }
  CKPT_ASSIGN_OR_RETURN(st.managed_keyed, rewrite_keyed(st.managed_keyed, op, st, job, c));
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

// Canonical when every keyed handle written is (or, with none, when the input was canonical).
SnapshotKind output_kind(const RewriteOptions& options, const Counters& c, const Metadata& in) {
  if (options.to)
    return *options.to == ConvertTarget::kCanonical ? SnapshotKind::kSavepointCanonical
                                                    : SnapshotKind::kSavepointNative;
  if (c.native == 0 && (c.canonical > 0 || in.kind() == SnapshotKind::kSavepointCanonical))
    return SnapshotKind::kSavepointCanonical;
  return SnapshotKind::kSavepointNative;
}

}  // namespace

ConvertTarget same_layout_target(const KeyedHandle& h) {
  switch (h.type) {
    case handle_type::kIncremental:
    case handle_type::kIncrementalV1: return ConvertTarget::kRocksDb;
    case handle_type::kSavepointKeyGroups: return ConvertTarget::kCanonical;
    case handle_type::kChangelogBackend:
    case handle_type::kChangelogBackendV1:
      for (const KeyedHandle& m : h.materialized)
        if (!m.is_null()) return same_layout_target(m);
      return ConvertTarget::kHeap;
    default: return ConvertTarget::kHeap;
  }
}

Result<ConvertSummary> rewrite_snapshot(const std::string& snapshot, const RewriteOptions& options,
                                        const SnapshotEdits& edits) {
  if (options.output.empty() && !options.dry_run)
    return Error(ErrorCode::kInvalidArgument, "no output directory given");
  const bool part = options.shard.has_value();
  if ((part || options.finish) && options.dry_run)
    return Error(ErrorCode::kInvalidArgument, "a dry run is not made in parts");
  if (part && options.finish) return Error(ErrorCode::kInvalidArgument, "a part is not the finishing step");
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(snapshot));
  CKPT_ASSIGN_OR_RETURN(Metadata metadata, read_metadata_file(where.metadata_path));
  CKPT_RETURN_IF_ERROR(check_relative_paths(metadata, where.metadata_path));
  const std::vector<GuardedInput> guarded = {{&where, &metadata, &options.remap, {}},
                                             {nullptr, nullptr, &options.remap, options.key_serializers_from}};
  // A part refuses an existing output too: better before its work than at the last step.
  if (!options.output.empty())
    CKPT_RETURN_IF_ERROR(check_output(options.output, OutputKind::kDirectory, options.force, guarded));
  const std::string publish_at = part ? part_directory(options.output, *options.shard) : options.output;
  if (part) CKPT_RETURN_IF_ERROR(check_output(publish_at, OutputKind::kDirectory, options.force, guarded));
  std::vector<FoundPart> parts;
  std::unique_ptr<FetchedParts> fetched;  // the parts of an output in a store, on the disk
  if (options.finish) {
    std::string parts_of = options.output;
    if (is_object_store_uri(parts_of)) {
      CKPT_ASSIGN_OR_RETURN(fetched, FetchedParts::fetch(parts_of));
      parts_of = fetched->output();
    }
    CKPT_ASSIGN_OR_RETURN(parts, find_parts(parts_of));
  }
  InputChecks checks;
  checks.jobs = options.jobs;
  checks.progress = options.progress;
  // Heap and canonical streams carry no checksum, and their keys and values are copied as bytes
  // without being decoded: decoded whole first, as dump reads them, before any byte is trusted.
  // With check_on_read the rewrite decodes them as it reads them, and checksums every SST whole
  // as it opens its instance: here the SSTs are only opened (bounds, column families).
  const bool check_on_read = options.check_on_read;
  checks.keyed_streams = !check_on_read;
  if (check_on_read) {
    checks.whole_sst_checks = [](const OperatorState&, const SubtaskState&) { return false; };
    checks.ssts_opened = [&checks](const OperatorState& op, const SubtaskState& st) {
      return !checks.wanted || checks.wanted(op, st);
    };
  }
  if (options.progress && !part && !options.finish)
    for (const OperatorState& op : metadata.operators)
      for (const SubtaskState& st : op.subtasks)
        if (!st.finished) options.progress->bytes_total.fetch_add(subtask_state_bytes(st), std::memory_order_relaxed);
  // A part checks its own subtasks once it knows them (after the edits); the last step reads
  // only coordinator state.
  if (options.finish) checks.wanted = [](const OperatorState&, const SubtaskState&) { return false; };
  auto set_sst_checks = [&] {
    if (!options.entries_read || check_on_read) return;
    checks.whole_sst_checks = [&, wanted = checks.wanted](const OperatorState& op, const SubtaskState& st) {
      return (!wanted || wanted(op, st)) && !options.entries_read(op);
    };
  };
  set_sst_checks();
  if (!part) CKPT_RETURN_IF_ERROR(check_input(metadata, where, options.remap, checks));

  Job job;
  job.metadata = &metadata;
  job.options = &options;
  job.edits = &edits;
  job.streams = StreamOpener::for_snapshot(where, options.remap);
  job.streams.set_progress(options.progress);
  if (!options.key_serializers_from.empty()) {
    CKPT_ASSIGN_OR_RETURN(job.key_serializers, key_serializers_of(options.key_serializers_from, options.remap));
  }
  job.modern_types = uses_modern_types(metadata);
  job.check_on_read = check_on_read;
  std::unique_ptr<OutputDirectory> temp;
  if (!options.dry_run) {
    CKPT_ASSIGN_OR_RETURN(temp, OutputDirectory::create(publish_at));
    job.out_dir = temp->path();
  }

  CKPT_RETURN_IF_ERROR(edits.prepare(metadata, job.streams, options.finish ? std::string() : job.out_dir));
  Metadata out = metadata;
  CKPT_RETURN_IF_ERROR(edits.operators(out));
  std::string fingerprint;
  if (part || options.finish) {
    CKPT_ASSIGN_OR_RETURN(std::string cut, encode_metadata(out));
    // The snapshot's own bytes, not its path: parts may see it mounted elsewhere.
    fingerprint = part_fingerprint(
        fmt::format("{}\n{}\n{}", cut, options.to ? convert_target_name(*options.to) : "same", options.fingerprint));
  }
  for (const FoundPart& p : parts)
    if (p.counts.fingerprint != fingerprint)
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("part {} of {} ({}) was cut from another snapshot or by another command line",
                               p.shard.index, p.shard.count, p.dir));
  std::optional<Plan> plan;
  if (part) plan = plan_parts(out, options.shard->count);
  if (options.finish) plan = plan_parts(out, parts.at(0).shard.count);
  if (part) {
    std::set<std::pair<OperatorId, int32_t>> owned;
    const PlanPart& cut = plan->parts.at(static_cast<size_t>(options.shard->index));
    for (size_t i = cut.first; i < cut.first + cut.count; ++i)
      owned.insert({plan->units[i].op->id, plan->units[i].subtask});
    checks.wanted = [&](const OperatorState& op, const SubtaskState& st) {
      return owned.count({edits.output_id(op.id), st.index}) > 0;
    };
    if (options.progress)
      for (const OperatorState& op : metadata.operators)
        for (const SubtaskState& st : op.subtasks)
          if (!st.finished && checks.wanted(op, st))
            options.progress->bytes_total.fetch_add(subtask_state_bytes(st), std::memory_order_relaxed);
    set_sst_checks();
    CKPT_RETURN_IF_ERROR(check_input(metadata, where, options.remap, checks));
  }
  Counters counters;
  std::vector<std::pair<OperatorState*, SubtaskState*>> tasks;
  for (OperatorState& op : out.operators) {
    if (!options.finish)
      for (SubtaskState& st : op.subtasks)
        if (!st.finished && (!part || plan->owns(options.shard->index, op, st.index))) tasks.emplace_back(&op, &st);
    if (part) continue;  // the last step copies coordinator state
    CKPT_ASSIGN_OR_RETURN(op.coordinator, copy_stream(op.coordinator, job,
                                                      fmt::format("{}-coordinator", operator_id_hex(op.id)), counters));
  }

  {
    std::vector<std::pair<const OperatorState*, const SubtaskState*>> written(tasks.begin(), tasks.end());
    CKPT_RETURN_IF_ERROR(edits.subtasks(written, options.jobs));
  }
  CKPT_RETURN_IF_ERROR(run_parallel(tasks.size(), options.jobs, [&](size_t i) -> Status {
    auto [op, st] = tasks[i];
    Status s = rewrite_subtask(*op, *st, job, counters);
    if (s.ok()) return s;
    return std::move(s).error().with_context(
        fmt::format("operator {}, subtask {}", operator_id_hex(op->id), st->index));
  }));

  if (!part && !options.finish) CKPT_RETURN_IF_ERROR(edits.finish());
  if (options.finish) {
    std::set<std::string> found;
    for (const FoundPart& p : parts) found.insert(p.counts.found.begin(), p.counts.found.end());
    CKPT_RETURN_IF_ERROR(edits.finish_parts(found));
  }
  for (const FoundPart& p : parts) {
    CKPT_RETURN_IF_ERROR(take_part_subtasks(p, *plan, out));
    CKPT_RETURN_IF_ERROR(link_part_files(p.dir, job.out_dir));
    counters.subtasks += p.counts.subtasks;
    counters.entries += p.counts.entries;
    counters.files += p.counts.files;
    counters.bytes += p.counts.bytes;
    counters.canonical += p.counts.canonical;
    counters.native += p.counts.native;
  }
  SnapshotKind kind = output_kind(options, counters, metadata);
  if (out.version >= 4) {
    CheckpointProperties p = savepoint_properties(kind == SnapshotKind::kSavepointCanonical);
    out.properties = p;
    out.properties_raw = encode_checkpoint_properties(p);
  }
  CKPT_ASSIGN_OR_RETURN(std::string bytes, encode_metadata(out));
  if (part) {
    PartCounts c{counters.subtasks,  counters.entries, counters.files, counters.bytes,
                 counters.canonical, counters.native,  fingerprint, {}};
    c.found = edits.found();
    CKPT_RETURN_IF_ERROR(write_part_files(job.out_dir, *options.shard, bytes, c));
    CKPT_RETURN_IF_ERROR(temp->commit(options.force));
  } else if (!options.dry_run) {
    CKPT_RETURN_IF_ERROR(write_file_atomic(job.out_dir + "/_metadata", bytes));
    // commit() syncs the whole output in one pass before its rename, instead of RocksDB's
    // thirty-odd syncs per instance (which made small instances cost tens of milliseconds each);
    // the heap and canonical streams, written unsynced, become durable there too.
    CKPT_RETURN_IF_ERROR(temp->commit(options.force));
    // Published: the parts are spent (a part left behind is only space, and the next --finish
    // would refuse to mix it with new ones).
    for (const FoundPart& p : parts) {
      std::error_code ec;
      std::filesystem::remove_all(p.dir, ec);
    }
    if (fetched) CKPT_RETURN_IF_ERROR(fetched->remove());
  }

  ConvertSummary summary;
  summary.output = options.dry_run ? std::string() : publish_at;
  summary.subtasks = counters.subtasks;
  summary.entries = counters.entries;
  // A part's `_metadata` is no file of the output.
  summary.files = options.dry_run ? 0 : counters.files + (part ? 0 : 1);
  summary.bytes = options.dry_run ? 0 : counters.bytes + (part ? 0 : bytes.size());
  summary.peak_buffered_bytes = counters.peak_buffered;
  // What was written, whatever the version: a `_metadata` before version 4 (Flink 1.9 to 1.12)
  // has no properties that say it, and inferring it back from the handles gave "unknown".
  summary.kind = snapshot_kind_name(kind);
  return summary;
}

}  // namespace ckpt
