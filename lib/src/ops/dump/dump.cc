// dump_snapshot: one task per (operator, subtask), decoded in parallel, printed in order.
#include "ckpt/dump.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <unordered_set>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/metadata.h"
#include "state/rocksdb/incremental_reader.h"
#include "state/heap/key_groups_reader.h"
#include "state/operator_state_reader.h"
#include "ops/dump/ndjson_line.h"
#include "state/ordered_channels.h"
#include "state/raw_timers_reader.h"
#include "ops/verify/input_checks.h"
#include "state/changelog/changelog_reader.h"
#include "ops/dump/dump_tuning.h"
#include "state/proxy_reader.h"
#include "state/stream_opener.h"
#include "support/json_text.h"
#include "support/spill_file.h"
#include "support/worker_threads.h"

namespace ckpt {

DumpTuning& dump_tuning() {
  static DumpTuning tuning;
  return tuning;
}

namespace {

struct Chunk {
  std::string text;                // whole NDJSON lines, for sinks that want them
  std::vector<DumpEntry> entries;  // for the others
  uint64_t count = 0;              // entries (lines) in the chunk
};
using Item = std::variant<Chunk, Error>;

// A worker's side of the handoff: renders entries into the current chunk and pushes full
// chunks; a problem first pushes the entries before it, so the order holds.
class ChunkWriter {
 public:
  // Entries travel to the printer in chunks, so that it wakes once per chunk, not per entry.
  ChunkWriter(const OrderedChannels<Item>::Push& push, bool text, std::string operator_hex, std::string uid,
              int32_t subtask)
      : push_(push),
        text_(text),
        chunk_bytes_(dump_tuning().chunk_bytes),
        chunk_entries_(dump_tuning().chunk_entries),
        operator_hex_(std::move(operator_hex)),
        uid_(std::move(uid)),
        subtask_(subtask) {}

  // False once the run is stopped (limit reached, another subtask failed).
  bool add(StateEntry&& e) {
    if (text_) render(e);
    else chunk_.entries.push_back(to_dump_entry(std::move(e)));
    ++chunk_.count;
    if (chunk_.text.size() >= chunk_bytes_ || chunk_.entries.size() >= chunk_entries_) return flush();
    return true;
  }
  bool problem(Error&& e) { return flush() && push_(Item(std::move(e))); }
  bool flush() {
    if (chunk_.count == 0) return true;
    Chunk full = std::move(chunk_);
    chunk_ = Chunk();
    if (text_) chunk_.text.reserve(chunk_bytes_ + chunk_bytes_ / 8);
    return push_(Item(std::move(full)));
  }

 private:
  void render(const StateEntry& e) {
    if (e.state != head_state_ || head_.empty()) {
      head_state_ = e.state;
      head_ = ndjson_line_head(operator_hex_, uid_, subtask_, e.state);
    }
    std::string& out = chunk_.text;
    out += head_;
    const int32_t* key_group = e.kind != EntryKind::kOperator ? &e.key_group : nullptr;
    if (e.is_text) {
      append_ndjson_tail(out, entry_kind_name(e.kind), key_group, e.has_key ? &e.key_text : nullptr,
                         e.has_namespace ? &e.ns_text : nullptr, e.has_user_key ? &e.user_key_text : nullptr,
                         e.value_text, [](std::string& o, const std::string& json) { o += json; });
    } else {
      append_ndjson_tail(out, entry_kind_name(e.kind), key_group, e.has_key ? &e.key : nullptr,
                         e.has_namespace ? &e.ns : nullptr, e.has_user_key ? &e.user_key : nullptr, e.value,
                         [](std::string& o, const nlohmann::json& j) { append_json_text(o, j); });
    }
    out += '\n';
  }

  DumpEntry to_dump_entry(StateEntry&& e) const {
    DumpEntry d;
    d.operator_id = operator_hex_;
    if (!uid_.empty()) d.uid = uid_;
    d.subtask = subtask_;
    d.state = std::move(e.state);
    d.kind = entry_kind_name(e.kind);
    if (e.kind != EntryKind::kOperator) d.key_group = e.key_group;
    auto text = [&](nlohmann::json& tree, std::string& json) {
      if (e.is_text) return std::move(json);
      std::string t;
      append_json_text(t, tree);
      return t;
    };
    if (e.has_key) d.key = text(e.key, e.key_text);
    if (e.has_namespace) d.namespace_json = text(e.ns, e.ns_text);
    if (e.has_user_key) d.user_key = text(e.user_key, e.user_key_text);
    d.value = text(e.value, e.value_text);
    return d;
  }

  const OrderedChannels<Item>::Push& push_;
  const bool text_;
  const size_t chunk_bytes_;
  const size_t chunk_entries_;
  const std::string operator_hex_;
  const std::string uid_;
  const int32_t subtask_;
  Chunk chunk_;
  std::string head_state_;
  std::string head_;  // ndjson_line_head() of head_state_
};

// A subtask's text chunks that are ready before the printer gets to it: each record is the
// chunk's size and entry count, then its text. Errors and entry chunks are never spilled (the
// worker waits for room instead), so the printer's limit counting sees the same chunks.
class ChunkSpill : public OrderedChannels<Item>::Overflow {
 public:
  explicit ChunkSpill(std::unique_ptr<SpillFile> file) : file_(std::move(file)) {}

  // A spill file in $TMPDIR, or null (counted) when none can be created.
  static std::unique_ptr<OrderedChannels<Item>::Overflow> make() {
    auto file = SpillFile::create();
    if (!file.ok()) {
      ++dump_tuning().spill_failures;
      return nullptr;
    }
    return std::make_unique<ChunkSpill>(std::move(file).value());
  }

  bool write(Item& item) override {
    auto* c = std::get_if<Chunk>(&item);
    if (!c || !c->entries.empty()) return false;
    uint64_t header[2] = {c->text.size(), c->count};
    if (!file_->append(std::string_view(reinterpret_cast<const char*>(header), sizeof header), c->text).ok()) {
      ++dump_tuning().spill_failures;
      return false;
    }
    ++dump_tuning().spilled_chunks;
    return true;
  }

  void read(Item* out) override {
    uint64_t header[2] = {0, 0};
    Status s = file_->read(sizeof header, reinterpret_cast<char*>(header));
    Chunk c;
    // The header is our own, but a chunk is never larger than what the file still holds.
    if (s.ok() && header[0] > file_->written()) s = Error(ErrorCode::kCorruption, "spilled chunk larger than its file");
    if (s.ok()) {
      c.text.resize(header[0]);
      c.count = header[1];
      s = file_->read(c.text.size(), c.text.data());
    }
    if (!s.ok()) {
      *out = Item(std::move(s).error().with_context("reading back spilled output"));
      return;
    }
    *out = Item(std::move(c));
  }

 private:
  std::unique_ptr<SpillFile> file_;
};

// Everything a subtask's readers need, shared read-only between workers.
struct Job {
  const Metadata* metadata = nullptr;
  StreamOpener streams;
  StateFilter filter;
  bool operator_state_wanted = true;
  bool keep_going = false;
};

struct Task {
  const OperatorState* op = nullptr;
  const SubtaskState* subtask = nullptr;
  std::string uid;  // "" when unknown
};

const char* keyed_handle_description(uint8_t type) {
  switch (type) {
    case handle_type::kKeyGroups:
    case handle_type::kKeyGroupsWithId: return "key-groups handle";
    case handle_type::kSavepointKeyGroups: return "savepoint key-groups handle";
    case handle_type::kIncrementalV1:
    case handle_type::kIncremental: return "incremental rocksdb handle";
    case handle_type::kChangelogBackendV1:
    case handle_type::kChangelogBackend: return "changelog handle";
    default: return handle_type_name(type);
  }
}

Status read_keyed(const KeyedHandle& h, const Job& job, int32_t max_parallelism, const EntrySink& sink,
                  const ProblemSink& problems) {
  switch (h.type) {
    case handle_type::kNull:
      return Status::OK();
    case handle_type::kKeyGroups:
    case handle_type::kKeyGroupsWithId:
    case handle_type::kSavepointKeyGroups:
      return job.streams.read(h.delegate, problems, [&](const StateStream& stream, const ProblemSink& stamped) {
        return read_key_groups_handle(h, stream, max_parallelism, job.filter, sink, stamped);
      });
    case handle_type::kIncrementalV1:
    case handle_type::kIncremental:
      return read_incremental_handle(h, job.streams, max_parallelism, job.filter, sink, problems);
    case handle_type::kChangelogBackendV1:
    case handle_type::kChangelogBackend: {
      ChangelogState state;
      ProxyReader proxies(job.streams);
      Job trees = job;  // replaying change logs needs the entries' values as trees
      trees.filter.json_text = false;
      for (const KeyedHandle& m : h.materialized) {
        // Change logs store no key serializer: the materialized part's proxy has it.
        Status s = proxies.keyed(m, [&](const KeyedBackendMeta& meta) { state.set_key_serializer(meta.key_serializer); });
        if (s.ok()) s = read_keyed(m, trees, max_parallelism, state.collector(), problems);
        if (!s.ok()) CKPT_RETURN_IF_ERROR(problems(std::move(s).error().with_context("materialized part")));
      }
      Status s = state.replay(h.non_materialized, h.range, job.streams);
      if (!s.ok()) CKPT_RETURN_IF_ERROR(problems(std::move(s).error().with_context("change log")));
      return state.emit(job.filter, sink);
    }
    default:
      return job.streams.in_metadata(Error(
          ErrorCode::kNotSupported,
          fmt::format("keyed state handle type {:#04x} ({}) cannot be dumped", h.type, handle_type_name(h.type))));
  }
}

void run_subtask(const Job& job, const Task& t, const std::string& op_hex, ChunkWriter& out) {
  const int32_t subtask = t.subtask->index;
  bool stopped = false;
  EntrySink sink = [&](StateEntry&& e) -> Status {
    if (!job.filter.wants_state(e.state)) return Status::OK();
    if (e.kind != EntryKind::kOperator && !job.filter.wants_key_group(e.key_group)) return Status::OK();
    if (!out.add(std::move(e))) {
      stopped = true;
      return stop_error();
    }
    return Status::OK();
  };
  const std::string where = fmt::format("operator {}, subtask {}", op_hex, subtask);
  const char* slot_now = "";  // the handle being read, for the context of problems
  ProblemSink problems = [&](Error&& e) -> Status {
    if (is_stop(e)) return std::move(e);
    if (!job.keep_going) return std::move(e);
    Error located = std::move(e).with_context(fmt::format("{}: {}", where, slot_now));
    if (!out.problem(std::move(located))) {
      stopped = true;
      return stop_error();
    }
    return Status::OK();
  };
  auto finish = [&](Status s, const char* slot) {
    if (s.ok() || stopped || is_stop(s.error())) return !stopped;
    Error e = std::move(s).error();
    slot_now = slot;
    Status r = problems(std::move(e));
    if (!r.ok()) {
      // Not keep-going: the error ends this subtask and, at the printer, the dump.
      if (!is_stop(r.error())) out.problem(std::move(r).error().with_context(fmt::format("{}: {}", where, slot)));
      stopped = true;
    }
    return !stopped;
  };
  try {
    if (job.operator_state_wanted) {
      slot_now = "managed operator state";
      for (const OperatorHandle& h : t.subtask->managed_operator) {
        if (h.is_null()) continue;
        if (!finish(read_operator_handle(h, job.streams, job.filter, sink, problems),
                    "managed operator state"))
          return;
      }
    }
    const KeyedHandle& keyed = t.subtask->managed_keyed;
    slot_now = keyed.is_null() ? "managed keyed state" : keyed_handle_description(keyed.type);
    if (!finish(read_keyed(keyed, job, t.op->max_parallelism, sink, problems),
                keyed.is_null() ? "managed keyed state" : keyed_handle_description(keyed.type)))
      return;
    const KeyedHandle& raw = t.subtask->raw_keyed;
    if (raw.type == handle_type::kKeyGroups || raw.type == handle_type::kKeyGroupsWithId) {
      slot_now = "raw keyed state";
      Status s = job.streams.read(raw.delegate, problems, [&](const StateStream& stream, const ProblemSink& stamped) {
        return read_raw_timers(raw, stream, job.filter, sink, stamped);
      });
      if (!finish(std::move(s), "raw keyed state")) return;
    }
  } catch (const std::exception& ex) {
    // Decoders do not throw by design; a bug or an allocation failure still ends up here,
    // reported against the subtask instead of taking the process down.
    Error e(ErrorCode::kCorruption, fmt::format("internal error: {}", ex.what()));
    out.problem(std::move(e).with_context(where));
  }
}

void run_task(const Job& job, const Task& t, bool text, const OrderedChannels<Item>::Push& push) {
  const std::string op_hex = operator_id_hex(t.op->id);
  ChunkWriter out(push, text, op_hex, t.uid, t.subtask->index);
  run_subtask(job, t, op_hex, out);
  out.flush();
}

// Hands a chunk to the sink, cut where the limit falls.
void deliver(Chunk& c, const DumpOptions& options, DumpSink& sink, bool text, DumpSummary& summary) {
  uint64_t n = c.count;
  if (options.limit && summary.entries + n >= options.limit) {
    n = options.limit - summary.entries;
    summary.limit_reached = true;
    if (text) {
      size_t end = 0;
      for (uint64_t i = 0; i < n; ++i) end = c.text.find('\n', end) + 1;
      c.text.resize(end);
    } else {
      c.entries.resize(n);
    }
  }
  summary.entries += n;
  if (text) {
    sink.ndjson(c.text);
    return;
  }
  for (const DumpEntry& e : c.entries) sink.entry(e);
}

}  // namespace

std::string to_ndjson(const DumpEntry& e) {
  std::string out = ndjson_line_head(e.operator_id, e.uid ? *e.uid : std::string_view(), e.subtask, e.state);
  const int32_t* key_group = e.key_group ? &*e.key_group : nullptr;
  auto opt = [](const std::optional<std::string>& f) { return f ? &*f : nullptr; };
  append_ndjson_tail(out, e.kind, key_group, opt(e.key), opt(e.namespace_json), opt(e.user_key), e.value,
                     [](std::string& o, const std::string& json) { o += json; });
  return out;
}

Result<DumpSummary> dump_snapshot(const std::string& snapshot, const DumpOptions& options, DumpSink& sink) {
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(snapshot));
  CKPT_ASSIGN_OR_RETURN(Metadata metadata, read_metadata_file(where.metadata_path));
  CKPT_RETURN_IF_ERROR(check_relative_paths(metadata, where.metadata_path));

  Job job;
  job.metadata = &metadata;
  job.streams = StreamOpener::for_snapshot(where, options.remap);
  job.filter.state = options.state;
  job.filter.json_text = true;  // every sink gets JSON text (DumpEntry or NDJSON lines)
  if (options.key_groups) {
    job.filter.first_key_group = options.key_groups->first;
    job.filter.last_key_group = options.key_groups->second;
    job.operator_state_wanted = false;
  }
  job.keep_going = options.keep_going;

  Result<std::vector<const OperatorState*>> selected = select_operators(metadata, options.operator_filter);
  if (!selected.ok()) return std::move(selected).error().with_file(where.metadata_path);
  std::vector<Task> tasks;
  for (const OperatorState* op : *selected) {
    std::vector<const SubtaskState*> subtasks;
    for (const SubtaskState& st : op->subtasks)
      if (!st.finished && (!options.subtask || st.index == *options.subtask)) subtasks.push_back(&st);
    std::stable_sort(subtasks.begin(), subtasks.end(),
                     [](const SubtaskState* a, const SubtaskState* b) { return a->index < b->index; });
    for (const SubtaskState* st : subtasks) tasks.push_back({op, st, options.names.uid_of(*op)});
  }

  DumpSummary summary;
  std::unordered_set<std::string> faulty;  // reported here: their decoding errors say nothing new
  if (options.structure_checks) {
    // Entries that all decode are no good dump of a subtask whose file is short or whose
    // key-group range is wrong: verify's quick checks come first.
    std::unordered_set<const SubtaskState*> dumped;
    for (const Task& t : tasks) dumped.insert(t.subtask);
    CKPT_RETURN_IF_ERROR(check_structure(
        metadata, where, options.remap,
        [&dumped](const OperatorState&, const SubtaskState& st) { return dumped.count(&st) > 0; },
        [&](Error&& e) -> Status {
          if (!options.keep_going) return std::move(e);
          ++summary.problems;
          sink.problem(e);
          return Status::OK();
        },
        &faulty));
  }
  summary.unmatched_uids = options.names.unmatched(metadata);
  const bool text = sink.wants_ndjson();
  OrderedChannels<Item>::MakeOverflow spill;
  if (text && dump_tuning().spill) spill = &ChunkSpill::make;
  OrderedChannels<Item> channels(tasks.size(), dump_tuning().channel_capacity, spill);
  channels.start(options.jobs,
                 [&](size_t i, const OrderedChannels<Item>::Push& push) { run_task(job, tasks[i], text, push); });
  std::optional<Error> failure;
  auto fail = [&](Error&& e) {
    if (!options.keep_going) {
      failure = std::move(e);
      return;
    }
    ++summary.problems;
    sink.problem(e);
  };
  for (size_t i = 0; i < tasks.size() && !failure && !summary.limit_reached; ++i) {
    Item item;
    bool more = true;  // false once the task has given its last item
    while (!summary.limit_reached && !failure && (more = channels.pop(i, &item))) {
      if (auto* e = std::get_if<Error>(&item)) {
        if (options.keep_going && faulty.count(e->file)) continue;
        fail(std::move(*e));
        continue;
      }
      deliver(std::get<Chunk>(item), options, sink, text, summary);
    }
    if (more) continue;  // cut short by the limit or an error
    if (std::exception_ptr thrown = channels.thrown(i)) {
      Error e = internal_error(thrown).with_file(where.metadata_path);
      fail(std::move(e).with_context(
          fmt::format("operator {}, subtask {}", operator_id_hex(tasks[i].op->id), tasks[i].subtask->index)));
    }
  }
  channels.stop_and_join();
  if (failure) return std::move(*failure);
  return summary;
}

}  // namespace ckpt
