// dump_snapshot: one task per (operator, subtask), decoded in parallel, printed in order.
#include "ckpt/dump.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/metadata.h"
#include "state/incremental_reader.h"
#include "state/key_groups_reader.h"
#include "state/operator_state_reader.h"
#include "state/ordered_channels.h"
#include "state/raw_timers_reader.h"
#include "state/changelog_reader.h"
#include "state/proxy_reader.h"
#include "state/state_stream.h"

namespace ckpt {
namespace {

// Items buffered per running subtask before its worker waits for the printer.
constexpr size_t kChannelCapacity = 4096;

std::string json_text(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool equals_ignore_case(const std::string& a, const std::string& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

using Item = std::variant<DumpEntry, Error>;

// Everything a subtask's readers need, shared read-only between workers.
struct Job {
  const Metadata* metadata = nullptr;
  std::string metadata_file;
  PathResolver resolve;
  StateFilter filter;
  bool operator_state_wanted = true;
  bool keep_going = false;
};

struct Task {
  const OperatorState* op = nullptr;
  const SubtaskState* subtask = nullptr;
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
    case handle_type::kSavepointKeyGroups: {
      CKPT_ASSIGN_OR_RETURN(StateStream stream, StateStream::open(h.delegate, job.resolve, job.metadata_file));
      return read_key_groups_handle(h, stream, max_parallelism, job.filter, sink, problems);
    }
    case handle_type::kIncrementalV1:
    case handle_type::kIncremental:
      return read_incremental_handle(h, job.resolve, job.metadata_file, max_parallelism, job.filter, sink, problems);
    case handle_type::kChangelogBackendV1:
    case handle_type::kChangelogBackend: {
      ChangelogState state;
      ProxyReader proxies(job.resolve, job.metadata_file);
      for (const KeyedHandle& m : h.materialized) {
        // Change logs store no key serializer: the materialized part's proxy has it.
        Status s = proxies.keyed(m, [&](const KeyedBackendMeta& meta) { state.set_key_serializer(meta.key_serializer); });
        if (s.ok()) s = read_keyed(m, job, max_parallelism, state.collector(), problems);
        if (!s.ok()) CKPT_RETURN_IF_ERROR(problems(std::move(s).error().with_context("materialized part")));
      }
      Status s = state.replay(h.non_materialized, h.range);
      if (!s.ok()) CKPT_RETURN_IF_ERROR(problems(std::move(s).error().with_context("change log")));
      return state.emit(job.filter, sink);
    }
    default:
      return Error(ErrorCode::kNotSupported,
                   fmt::format("keyed state handle type {:#04x} ({}) cannot be dumped", h.type, handle_type_name(h.type)));
  }
}

void run_task(const Job& job, const Task& t, const OrderedChannels<Item>::Push& push) {
  const std::string op_hex = operator_id_hex(t.op->id);
  const int32_t subtask = t.subtask->index;
  bool stopped = false;
  EntrySink sink = [&](StateEntry&& e) -> Status {
    if (!job.filter.wants_state(e.state)) return Status::OK();
    if (e.kind != EntryKind::kOperator && !job.filter.wants_key_group(e.key_group)) return Status::OK();
    DumpEntry d;
    d.operator_id = op_hex;
    d.subtask = subtask;
    d.state = std::move(e.state);
    d.kind = entry_kind_name(e.kind);
    if (e.kind != EntryKind::kOperator) d.key_group = e.key_group;
    if (e.has_key) d.key = json_text(e.key);
    if (e.has_namespace) d.namespace_json = json_text(e.ns);
    if (e.has_user_key) d.user_key = json_text(e.user_key);
    d.value = json_text(e.value);
    if (!push(Item(std::move(d)))) {
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
    if (!push(Item(std::move(located)))) {
      stopped = true;
      return stop_error();
    }
    return Status::OK();
  };
  auto finish = [&](Status s, const char* slot) {
    if (s.ok() || stopped || is_stop(s.error())) return !stopped;
    Error e = std::move(s).error();
    if (e.file.empty()) e.file = job.metadata_file;
    slot_now = slot;
    Status r = problems(std::move(e));
    if (!r.ok()) {
      // Not keep-going: the error ends this subtask and, at the printer, the dump.
      if (!is_stop(r.error())) push(Item(std::move(r).error().with_context(fmt::format("{}: {}", where, slot))));
      stopped = true;
    }
    return !stopped;
  };
  try {
    if (job.operator_state_wanted) {
      slot_now = "managed operator state";
      for (const OperatorHandle& h : t.subtask->managed_operator) {
        if (h.is_null()) continue;
        if (!finish(read_operator_handle(h, job.resolve, job.metadata_file, job.filter, sink, problems),
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
      Status s;
      auto stream = StateStream::open(raw.delegate, job.resolve, job.metadata_file);
      if (!stream.ok())
        s = std::move(stream).error();
      else
        s = read_raw_timers(raw, stream.value(), job.filter, sink, problems);
      if (!finish(std::move(s), "raw keyed state")) return;
    }
  } catch (const std::exception& ex) {
    // Decoders do not throw by design; a bug or an allocation failure still ends up here,
    // reported against the subtask instead of taking the process down.
    Error e(ErrorCode::kCorruption, fmt::format("internal error: {}", ex.what()));
    e.file = job.metadata_file;
    push(Item(std::move(e).with_context(where)));
  }
}

}  // namespace

std::string to_ndjson(const DumpEntry& e) {
  std::string out;
  out.reserve(96 + e.state.size() + e.value.size());
  out += "{\"operator\":\"";
  out += e.operator_id;
  out += "\",\"subtask\":";
  out += std::to_string(e.subtask);
  out += ",\"state\":";
  out += json_text(nlohmann::json(e.state));
  out += ",\"kind\":\"";
  out += e.kind;
  out += '"';
  if (e.key_group) out += ",\"key_group\":" + std::to_string(*e.key_group);
  if (e.key) out += ",\"key\":" + *e.key;
  if (e.namespace_json) out += ",\"namespace\":" + *e.namespace_json;
  if (e.user_key) out += ",\"user_key\":" + *e.user_key;
  out += ",\"value\":";
  out += e.value;
  out += '}';
  return out;
}

Result<DumpSummary> dump_snapshot(const std::string& snapshot, const DumpOptions& options, DumpSink& sink) {
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(snapshot));
  CKPT_ASSIGN_OR_RETURN(Metadata metadata, read_metadata_file(where.metadata_path));

  Job job;
  job.metadata = &metadata;
  job.metadata_file = where.metadata_path;
  auto resolver = std::make_shared<FileResolver>(where.directory, options.remap);
  auto resolver_mutex = std::make_shared<std::mutex>();
  job.resolve = [resolver, resolver_mutex](uint8_t type, const std::string& uri) -> std::optional<std::string> {
    std::lock_guard<std::mutex> lock(*resolver_mutex);
    auto found = resolver->find(type, uri);
    if (!found) return std::nullopt;
    return found->path;
  };
  job.filter.state = options.state;
  if (options.key_groups) {
    job.filter.first_key_group = options.key_groups->first;
    job.filter.last_key_group = options.key_groups->second;
    job.operator_state_wanted = false;
  }
  job.keep_going = options.keep_going;

  std::vector<Task> tasks;
  bool operator_matched = options.operator_filter.empty();
  for (const OperatorState& op : metadata.operators) {
    if (!options.operator_filter.empty()) {
      if (!equals_ignore_case(operator_id_hex(op.id), options.operator_filter) &&
          (op.uid.empty() || op.uid != options.operator_filter))
        continue;
      operator_matched = true;
    }
    std::vector<const SubtaskState*> subtasks;
    for (const SubtaskState& st : op.subtasks)
      if (!st.finished && (!options.subtask || st.index == *options.subtask)) subtasks.push_back(&st);
    std::stable_sort(subtasks.begin(), subtasks.end(),
                     [](const SubtaskState* a, const SubtaskState* b) { return a->index < b->index; });
    for (const SubtaskState* st : subtasks) tasks.push_back({&op, st});
  }
  if (!operator_matched) {
    Error e(ErrorCode::kNotFound, fmt::format("no operator with id or uid '{}'", options.operator_filter));
    e.file = where.metadata_path;
    return e;
  }

  DumpSummary summary;
  OrderedChannels<Item> channels(tasks.size(), kChannelCapacity);
  channels.start(options.jobs, [&](size_t i, const OrderedChannels<Item>::Push& push) { run_task(job, tasks[i], push); });
  std::optional<Error> failure;
  for (size_t i = 0; i < tasks.size() && !failure && !summary.limit_reached; ++i) {
    Item item;
    while (channels.pop(i, &item)) {
      if (auto* e = std::get_if<Error>(&item)) {
        if (!options.keep_going) {
          failure = std::move(*e);
          break;
        }
        ++summary.problems;
        sink.problem(*e);
        continue;
      }
      sink.entry(std::get<DumpEntry>(item));
      if (options.limit && ++summary.entries >= options.limit) {
        summary.limit_reached = true;
        break;
      }
      if (!options.limit) ++summary.entries;
    }
  }
  channels.stop_and_join();
  if (failure) return std::move(*failure);
  return summary;
}

}  // namespace ckpt
