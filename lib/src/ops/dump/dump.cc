// dump_snapshot: an EntryReader's subtasks decoded in parallel, rendered as NDJSON on the workers
// (or read as Entry values, as the reader's iteration reads them), handed over in order.
#include "ckpt/dump.h"

#include <set>
#include <unordered_set>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/entries.h"
#include "ckpt/metadata.h"
#include "ops/engine/input_checks.h"
#include "ops/engine/key_names.h"
#include "ops/entries/dump_entries.h"
#include "ops/entries/dump_tuning.h"
#include "ops/entries/entry_engine.h"
#include "ops/entries/ndjson_line.h"
#include "ops/selection_check.h"
#include "state/ordered_channels.h"
#include "state/proxy_reader.h"
#include "support/json_text.h"
#include "support/worker_threads.h"

namespace ckpt {

namespace {

// Hands a chunk of lines to the sink, cut where the limit falls.
void deliver(DumpChunk& c, const DumpOptions& options, DumpSink& sink, DumpSummary& summary) {
  uint64_t n = c.count;
  if (options.limit && summary.entries + n >= options.limit) {
    n = options.limit - summary.entries;
    summary.limit_reached = true;
    size_t end = 0;
    for (uint64_t i = 0; i < n; ++i) end = c.text.find('\n', end) + 1;
    c.text.resize(end);
  }
  summary.entries += n;
  sink.ndjson(c.text);
}

// Reported here already by the structure checks: their decoding errors say nothing new.
using FaultyFiles = std::unordered_set<std::string>;

// The sink takes NDJSON lines: rendered on the workers, handed over a chunk at a time.
Status print_lines(const EntryReaderImpl& entries, const std::vector<EntryTask>& tasks, const DumpOptions& options,
                   const FaultyFiles& faulty, DumpSink& sink, DumpSummary& summary) {
  TaskReading reading;
  reading.filter = entries.filter;
  reading.filter.json_text = true;
  reading.keep_going = options.keep_going;
  OrderedChannels<DumpItem>::MakeOverflow spill;
  if (dump_tuning().spill) spill = &make_dump_chunk_spill;
  OrderedChannels<DumpItem> channels(tasks.size(), dump_tuning().channel_capacity, spill);
  channels.start(options.jobs, [&](size_t i, const OrderedChannels<DumpItem>::Push& push) {
    run_dump_task(entries, reading, tasks[i], push);
  });
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
    DumpItem item;
    bool more = true;  // false once the task has given its last item
    while (!summary.limit_reached && !failure && (more = channels.pop(i, &item))) {
      if (auto* e = std::get_if<Error>(&item)) {
        if (options.keep_going && faulty.count(e->file)) continue;
        fail(std::move(*e));
        continue;
      }
      deliver(std::get<DumpChunk>(item), options, sink, summary);
    }
    if (more) continue;  // cut short by the limit or an error
    if (std::exception_ptr thrown = channels.thrown(i)) {
      Error e = internal_error(thrown).with_file(entries.where.metadata_path);
      fail(std::move(e).with_context(
          fmt::format("operator {}, subtask {}", tasks[i].operator_hex, tasks[i].subtask->index)));
    }
  }
  channels.stop_and_join();
  if (failure) return std::move(*failure);
  return Status::OK();
}

// The sink takes Entry values: the reader's own iteration, with the dump's names and problems.
Status hand_entries(const EntryReaderImpl& entries, std::vector<EntryTask> tasks, const DumpOptions& options,
                    const FaultyFiles& faulty, DumpSink& sink, DumpSummary& summary) {
  EntryPulling pulling;
  pulling.tasks = std::move(tasks);
  pulling.reading.filter = entries.filter;
  pulling.reading.filter.raw_bytes = true;
  pulling.jobs = options.jobs;
  if (options.keep_going) {
    pulling.on_problem = [&](const Error& e) {
      if (faulty.count(e.file)) return;
      ++summary.problems;
      sink.problem(e);
    };
  }
  std::unique_ptr<EntryPull> it = pull_entries(entries, std::move(pulling));
  for (; it->valid(); it->next()) {
    sink.entry(it->entry());
    if (++summary.entries == options.limit) {
      summary.limit_reached = true;
      return Status::OK();
    }
  }
  return it->status();
}

// The names of the states the selected subtasks' proxies give, and whether they are all.
Status check_filters(const EntryReaderImpl& entries, const DumpOptions& options) {
  const std::string& file = entries.where.metadata_path;
  CKPT_RETURN_IF_ERROR(
      check_subtask_selection(entries.operators, options.subtask, options.key_groups, SubtaskNeed::kAny, file));
  if (options.state.empty()) return Status::OK();
  std::set<std::string> names;
  bool complete = true;
  ProxyReader proxies(entries.streams);
  auto add = [&](const std::vector<StateMetaInfo>& states) {
    for (const StateMetaInfo& info : states) names.insert(info.name);
  };
  for (const OperatorState* op : entries.operators) complete &= !may_hold_unnamed_states(*op);
  for (const EntryTask& t : entries.selected) {
    if (!complete) break;
    Status keyed = proxies.keyed(t.subtask->managed_keyed, [&](const KeyedBackendMeta& m) { add(m.states); });
    complete &= keyed.ok();
    if (!entries.operator_state_wanted) continue;
    for (const OperatorHandle& h : t.subtask->managed_operator) {
      if (h.is_null()) continue;
      Result<OperatorBackendMeta> meta = proxies.operator_state(h);
      if (!meta.ok()) {
        complete = false;
        continue;
      }
      add(meta->list_states);
      add(meta->broadcast_states);
    }
  }
  return check_state_selection(options.state, names, complete, file);
}
}  // namespace

std::string to_ndjson(const Entry& e) {
  std::string out = ndjson_line_head(e.operator_id, e.uid, e.subtask, e.state);
  const int32_t* key_group = e.key_group ? &*e.key_group : nullptr;
  auto opt = [](const std::optional<Value>& f) { return f ? &*f : nullptr; };
  append_ndjson_tail(out, entry_kind_name(e.kind), key_group, opt(e.key), opt(e.ns), opt(e.user_key), e.value,
                     [](std::string& o, const Value& v) { o += v.json(); });
  return out;
}

Result<DumpSummary> dump_snapshot(const std::string& snapshot, const DumpOptions& options, DumpSink& sink) {
  EntryReaderOptions selection;
  static_cast<EntrySelection&>(selection) = options;
  selection.progress = options.progress;
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<EntryReader> reader, EntryReader::open(snapshot, selection));
  const EntryReaderImpl& entries = EntryReaderAccess::impl(*reader);
  if (options.filters_must_match) CKPT_RETURN_IF_ERROR(check_filters(entries, options));
  std::vector<EntryTask> tasks = entries.tasks;
  for (EntryTask& t : tasks) {
    t.uid = options.names.uid_of(*t.op);
    const OperatorName* name = options.names.find(t.op->id);
    t.key_columns = name && !name->key_columns.empty() ? &name->key_columns : nullptr;
  }

  DumpSummary summary;
  FaultyFiles faulty;
  if (options.structure_checks) {
    // Entries that all decode are no good dump of a subtask whose file is short or whose
    // key-group range is wrong: verify's quick checks come first.
    std::unordered_set<const SubtaskState*> dumped;
    for (const EntryTask& t : tasks) dumped.insert(t.subtask);
    CKPT_RETURN_IF_ERROR(check_structure(
        entries.metadata(), entries.where, options.remap,
        [&dumped](const OperatorState&, const SubtaskState& st) { return dumped.count(&st) > 0; },
        [&](Error&& e) -> Status {
          if (!options.keep_going) return std::move(e);
          ++summary.problems;
          sink.problem(e);
          return Status::OK();
        },
        &faulty));
  }
  summary.unmatched_uids = options.names.unmatched(entries.metadata());
  CKPT_RETURN_IF_ERROR(sink.wants_ndjson() ? print_lines(entries, tasks, options, faulty, sink, summary)
                                            : hand_entries(entries, std::move(tasks), options, faulty, sink, summary));
  if (!summary.limit_reached && !options.shard) summary.unmatched_keys = entries.unmatched_keys();
  return summary;
}

}  // namespace ckpt
