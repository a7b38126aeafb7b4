// The entry engine: a snapshot opened and its operators and subtasks selected, and one
// subtask's handles read by the layout readers (lib/README.md, the keyed-state read path).
#include "ops/entries/entry_engine.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <unordered_map>

#include <fmt/format.h>

#include "ckpt/file_system.h"
#include "ckpt/verify.h"
#include "format/state_bytes.h"
#include "ops/key_serializers.h"
#include "ops/key_spelling.h"
#include "state/changelog/changelog_reader.h"
#include "state/heap/key_groups_reader.h"
#include "state/operator_state_reader.h"
#include "state/proxy_reader.h"
#include "state/raw_timers_reader.h"
#include "state/rocksdb/incremental_reader.h"
#include "support/json_text.h"
#include "types/value_decoder.h"

namespace ckpt {
namespace {

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

Status read_keyed(const KeyedHandle& h, const StreamOpener& streams, const StateFilter& filter, int32_t max_parallelism,
                  const EntrySink& sink, const ProblemSink& problems,
                  const SerializerSnapshot* key_fallback = nullptr) {
  switch (h.type) {
    case handle_type::kNull:
      return Status::OK();
    case handle_type::kKeyGroups:
    case handle_type::kKeyGroupsWithId:
    case handle_type::kSavepointKeyGroups:
      return streams.read(h.delegate, problems, [&](const StateStream& stream, const ProblemSink& stamped) {
        return read_key_groups_handle(h, stream, max_parallelism, filter, sink, stamped);
      });
    case handle_type::kIncrementalV1:
    case handle_type::kIncremental:
      return read_incremental_handle(h, streams, max_parallelism, filter, sink, problems);
    case handle_type::kChangelogBackendV1:
    case handle_type::kChangelogBackend: {
      ChangelogState state;
      // A materialized part's proxy, read below, names the key serializer where there is one.
      if (key_fallback) state.set_key_serializer(*key_fallback);
      ProxyReader proxies(streams);
      StateFilter trees = filter;  // replaying change logs needs the entries' values as trees
      trees.json_text = false;
      trees.values = false;
      for (const KeyedHandle& m : h.materialized) {
        // Change logs store no key serializer: the materialized part's proxy has it.
        Status s = proxies.keyed(m, [&](const KeyedBackendMeta& meta) { state.set_key_serializer(meta.key_serializer); });
        if (s.ok()) s = read_keyed(m, streams, trees, max_parallelism, state.collector(), problems);
        if (!s.ok()) CKPT_RETURN_IF_ERROR(problems(std::move(s).error().with_context("materialized part")));
      }
      Status s = state.replay(h.non_materialized, h.range, streams);
      if (!s.ok()) CKPT_RETURN_IF_ERROR(problems(std::move(s).error().with_context("change log")));
      return state.emit(filter, sink);
    }
    default:
      return streams.in_metadata(Error(
          ErrorCode::kNotSupported,
          fmt::format("keyed state handle type {:#04x} ({}) cannot be dumped", h.type, handle_type_name(h.type))));
  }
}

}  // namespace

void EntryReader::Impl::read_task(const EntryTask& t, const TaskReading& reading, TaskOutput& out) const {
  const int32_t subtask = t.subtask->index;
  const StateFilter& filter = reading.filter;
  bool stopped = false;
  StateFilter narrowed;
  const StateFilter* active = &reading.filter;
  EntrySink sink = [&](StateEntry&& e) -> Status {
    const StateFilter& filter = *active;
    if (!filter.wants_state(e.state)) return Status::OK();
    if (e.kind != EntryKind::kOperator && !filter.wants_key_group(e.key_group)) return Status::OK();
    if (filter.keys) {
      if (e.kind == EntryKind::kOperator || !e.has_key) return Status::OK();
      // A reader of Values leaves the key's text beside them when it looks keys up.
      const bool text = e.is_text || e.is_value;
      int k = filter.keys->find(text ? nullptr : &e.key, text ? &e.key_text : nullptr);
      if (k < 0) return Status::OK();
      filter.keys->matched[filter.keys->given[k]].store(true, std::memory_order_relaxed);
    }
    if (options.progress) options.progress->add_entries(1);
    if (!out.add(std::move(e))) {
      stopped = true;
      return stop_error();
    }
    return Status::OK();
  };
  const std::string where = fmt::format("operator {}, subtask {}", t.operator_hex, subtask);
  const char* slot_now = "";  // the handle being read, for the context of problems
  ProblemSink problems = [&](Error&& e) -> Status {
    if (is_stop(e)) return std::move(e);
    if (!reading.keep_going) return std::move(e);
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
      // Not keep-going: the error ends this subtask and, at the consumer, the run.
      if (!is_stop(r.error())) out.problem(std::move(r).error().with_context(fmt::format("{}: {}", where, slot)));
      stopped = true;
    }
    return !stopped;
  };
  try {
    if (filter.keys) {
      narrowed = filter;
      if (!finish(narrow_to_keys(t, narrowed), "managed keyed state")) return;
      active = &narrowed;
    }
    if (operator_state_wanted) {
      slot_now = "managed operator state";
      for (const OperatorHandle& h : t.subtask->managed_operator) {
        if (h.is_null()) continue;
        if (!finish(read_operator_handle(h, streams, filter, sink, problems), "managed operator state")) return;
      }
    }
    if (options.operator_state_only) return;
    const KeyedHandle& keyed = t.subtask->managed_keyed;
    const KeyedHandle& raw = t.subtask->raw_keyed;
    const bool has_raw_timers = raw.type == handle_type::kKeyGroups || raw.type == handle_type::kKeyGroupsWithId;
    auto read_raw = [&](const EntrySink& to) {
      slot_now = "raw keyed state";
      Status s = streams.read(raw.delegate, problems, [&](const StateStream& stream, const ProblemSink& stamped) {
        return read_raw_timers(raw, stream, *active, to, stamped);
      });
      return finish(std::move(s), "raw keyed state");
    };
    // Key-group major: legacy timers of raw keyed state (few: timers only) are read first and
    // each handed out before the first managed entry of a later key group.
    std::vector<StateEntry> timers;
    size_t next_timer = 0;
    EntrySink keyed_sink = sink;
    if (has_raw_timers && filter.key_group_major) {
      if (!read_raw([&](StateEntry&& e) {
            timers.push_back(std::move(e));
            return Status::OK();
          }))
        return;
      std::stable_sort(timers.begin(), timers.end(),
                       [](const StateEntry& a, const StateEntry& b) { return a.key_group < b.key_group; });
      keyed_sink = [&](StateEntry&& e) -> Status {
        while (next_timer < timers.size() && timers[next_timer].key_group < e.key_group)
          CKPT_RETURN_IF_ERROR(sink(std::move(timers[next_timer++])));
        return sink(std::move(e));
      };
    }
    const char* keyed_slot = keyed.is_null() ? "managed keyed state" : keyed_handle_description(keyed.type);
    slot_now = keyed_slot;
    auto fallback = key_serializers.find(t.operator_hex);
    const SerializerSnapshot* key_fallback = fallback == key_serializers.end() ? nullptr : &fallback->second;
    if (!finish(read_keyed(keyed, streams, *active, t.op->max_parallelism, keyed_sink, problems, key_fallback),
                keyed_slot))
      return;
    if (filter.key_group_major) {
      while (next_timer < timers.size())
        if (!finish(sink(std::move(timers[next_timer++])), "raw keyed state")) return;
    } else if (has_raw_timers && !read_raw(sink)) {
      return;
    }
  } catch (const std::exception& ex) {
    // Decoders do not throw by design; a bug or an allocation failure still ends up here,
    // reported against the subtask instead of taking the process down.
    Error e(ErrorCode::kCorruption, fmt::format("internal error: {}", ex.what()));
    out.problem(std::move(e).with_context(where));
  }
}

// The files RocksDB opens by name (an instance's SSTs and the rest), of the operators read: a
// store downloads them whole ahead of the readers, in the order of `_metadata`.
static void announce_whole_files(const Metadata& m, const std::vector<const OperatorState*>& operators,
                                 const StreamOpener& streams) {
  std::vector<std::string> paths;
  for_each_stream(m, [&](const StreamHandle& h, const StreamSite& site) {
    if (site.role != StreamRole::kSharedFile && site.role != StreamRole::kPrivateFile) return;
    const OperatorState* op = &m.operators[site.operator_index];
    if (std::find(operators.begin(), operators.end(), op) == operators.end()) return;
    Result<StateStream> s = streams.open(h);
    if (s.ok() && s->is_remote() && s->base() == 0) paths.push_back(s->path());
  });
  if (paths.empty()) return;
  if (Result<std::shared_ptr<FileSystem>> files = file_system_for(paths.front()); files.ok())
    files.value()->will_read(paths);
}

Result<std::shared_ptr<OpenedSnapshot>> OpenedSnapshot::open(const std::string& snapshot,
                                                             const std::vector<PrefixRule>& remap) {
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(snapshot));
  CKPT_ASSIGN_OR_RETURN(Metadata metadata, read_metadata_file(where.metadata_path));
  return std::make_shared<OpenedSnapshot>(std::move(where), std::move(metadata), remap);
}

Result<const StructureFindings*> OpenedSnapshot::structure() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!structure_) {
    CKPT_ASSIGN_OR_RETURN(StructureFindings found, find_structure_problems(metadata_, where_, remap_));
    structure_.emplace(std::move(found));
  }
  return &*structure_;
}

Result<std::unique_ptr<EntryReader>> EntryReader::open(const std::string& snapshot,
                                                       const EntryReaderOptions& options) {
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<OpenedSnapshot> opened, OpenedSnapshot::open(snapshot, options.remap));
  return EntryReaderAccess::open(std::move(opened), options);
}

Result<std::unique_ptr<EntryReader>> EntryReader::reselect(const EntryReaderOptions& options) const {
  EntryReaderOptions o = options;
  o.remap = impl_->options.remap;  // what the snapshot's structure checks looked for
  return EntryReaderAccess::open(impl_->snapshot, o);
}

Result<std::unique_ptr<EntryReader>> EntryReaderAccess::open(SnapshotLocation where, Metadata metadata,
                                                             const EntryReaderOptions& options) {
  return open(std::make_shared<OpenedSnapshot>(std::move(where), std::move(metadata), options.remap), options);
}

Result<std::unique_ptr<EntryReader>> EntryReaderAccess::open(std::shared_ptr<OpenedSnapshot> snapshot,
                                                             const EntryReaderOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->where = snapshot->where();
  impl->snapshot = std::move(snapshot);
  CKPT_RETURN_IF_ERROR(check_relative_paths(impl->metadata(), impl->where.metadata_path));
  CKPT_RETURN_IF_ERROR(check_key_group_ranges(impl->metadata(), impl->where.metadata_path));
  impl->streams = StreamOpener::for_snapshot(impl->where, options.remap);
  impl->options = options;
  impl->filter.state = options.state;
  if (options.key_groups) {
    impl->filter.first_key_group = options.key_groups->first;
    impl->filter.last_key_group = options.key_groups->second;
    impl->operator_state_wanted = false;
  }
  if (!options.keys.empty()) {
    std::vector<std::string> texts;
    std::unordered_map<std::string, size_t> first_of_text;  // keys given twice are looked up once
    for (const Value& key : options.keys) {
      texts.push_back(key.json());
      first_of_text.emplace(texts.back(), texts.size() - 1);
    }
    CKPT_ASSIGN_OR_RETURN(std::vector<GivenKey> given, parse_given_keys(texts, "key"));
    auto keys = std::make_shared<KeySet>();
    keys->matched = std::make_unique<std::atomic<bool>[]>(given.size());
    for (size_t i = 0; i < given.size(); ++i) {
      keys->given_texts.push_back(given[i].text);
      impl->given_keys.push_back(options.keys[first_of_text.at(given[i].text)]);
      for (nlohmann::json& key : given[i].spellings) {
        keys->texts.push_back(json_text(key));
        keys->keys.push_back(std::move(key));
        keys->given.push_back(i);
      }
    }
    keys->index_texts();
    impl->filter.keys = std::move(keys);
    impl->operator_state_wanted = false;
  }

  Result<std::vector<const OperatorState*>> selected = select_operators(impl->metadata(), options.operator_filter);
  if (!selected.ok()) return std::move(selected).error().with_file(impl->where.metadata_path);
  impl->operators = *selected;
  if (is_object_store_uri(impl->where.metadata_path))
    announce_whole_files(impl->metadata(), impl->operators, impl->streams);
  if (!options.key_serializers_from.empty()) {
    CKPT_ASSIGN_OR_RETURN(impl->key_serializers, key_serializers_of(options.key_serializers_from, options.remap));
  }
  for (const OperatorState* op : *selected) {
    std::vector<const SubtaskState*> subtasks;
    for (const SubtaskState& st : op->subtasks)
      if (!st.finished && (!options.subtask || st.index == *options.subtask)) subtasks.push_back(&st);
    std::stable_sort(subtasks.begin(), subtasks.end(),
                     [](const SubtaskState* a, const SubtaskState* b) { return a->index < b->index; });
    for (const SubtaskState* st : subtasks) impl->selected.push_back({op, st, operator_id_hex(op->id), op->uid});
  }
  if (options.shard) {
    const Plan plan = plan_parts(impl->metadata(), options.shard->count);
    for (const EntryTask& t : impl->selected)
      if (plan.owns(options.shard->index, *t.op, t.subtask->index)) impl->tasks.push_back(t);
  } else {
    impl->tasks = impl->selected;
  }
  if (options.progress) {
    impl->streams.set_progress(options.progress);
    uint64_t total = 0;
    for (const EntryTask& t : impl->tasks) total += subtask_state_bytes(*t.subtask, impl->operator_state_wanted);
    options.progress->bytes_total.fetch_add(total, std::memory_order_relaxed);
  }
  return std::unique_ptr<EntryReader>(new EntryReader(std::move(impl)));
}

Status EntryReader::Impl::narrow_to_keys(const EntryTask& t, StateFilter& narrowed) const {
  const KeyedHandle& keyed = t.subtask->managed_keyed;
  if (keyed.is_null()) return Status::OK();
  std::optional<SerializerSnapshot> key_serializer;
  ProxyReader proxies(streams);
  CKPT_RETURN_IF_ERROR(proxies.keyed(keyed, [&](const KeyedBackendMeta& meta) {
    if (!key_serializer) key_serializer = meta.key_serializer;
  }));
  if (!key_serializer) return Status::OK();  // change logs only: every key group is read
  auto decoder = make_decoder(*key_serializer);
  if (!decoder.ok()) return Status::OK();  // the readers report the serializer themselves
  std::vector<int32_t> groups;
  // A key given in a spelling this key type cannot have hashes to nothing; one with no
  // spelling whose hashCode is known (user code) is looked for in every key group.
  std::vector<bool> hashed(narrowed.keys->given_texts.size(), false);
  std::vector<int32_t> of_keys(narrowed.keys->keys.size(), -1);
  for (size_t i = 0; i < narrowed.keys->keys.size(); ++i) {
    std::optional<int32_t> kg = compute_key_group(**decoder, narrowed.keys->keys[i], t.op->max_parallelism);
    if (!kg) continue;
    groups.push_back(*kg);
    of_keys[i] = *kg;
    hashed[narrowed.keys->given[i]] = true;
  }
  if (std::find(hashed.begin(), hashed.end(), false) != hashed.end()) return Status::OK();
  narrowed.key_groups_of_keys = std::move(of_keys);
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  // No wanted key group in this subtask's range: an empty range reads nothing at all.
  groups.erase(std::remove_if(groups.begin(), groups.end(), [&](int32_t kg) { return !keyed.range.contains(kg); }),
               groups.end());
  if (groups.empty()) {
    narrowed.first_key_group = 1;
    narrowed.last_key_group = 0;
    return Status::OK();
  }
  narrowed.only_key_groups = std::move(groups);
  return Status::OK();
}

std::vector<Value> EntryReader::Impl::unmatched_keys() const {
  std::vector<Value> out;
  if (!filter.keys) return out;
  for (size_t i = 0; i < filter.keys->given_texts.size(); ++i)
    if (!filter.keys->matched[i].load(std::memory_order_relaxed)) out.push_back(given_keys[i]);
  return out;
}

EntryReader::EntryReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EntryReader::~EntryReader() = default;

const Metadata& EntryReader::metadata() const { return impl_->metadata(); }

}  // namespace ckpt
