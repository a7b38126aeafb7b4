// ops/report/report.cc - the numbers of ckpt-report(1): sizes from inspect, history from
// diff_metadata between consecutive checkpoints, skew counted through the entry engine.
#include "ckpt/report.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "ckpt/diff.h"
#include "ckpt/entries.h"
#include "ckpt/file_system.h"
#include "ckpt/names.h"
#include "ops/engine/gc_snapshots.h"
#include "ops/report/report_estimate.h"
#include "ops/ttl_expiry.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

struct Located {
  std::string name;
  SnapshotLocation where;
};

// Whether PATH is a directory without `_metadata` (a job's checkpoint directory), on disk or in
// a store.
bool is_job_directory(const std::string& path) {
  Result<std::shared_ptr<FileSystem>> files = file_system_for(path);
  if (!files.ok()) return false;
  Result<FileInfo> dir = files.value()->stat(path);
  if (!dir.ok() || !dir->directory) return false;
  return !files.value()->stat((path.ends_with('/') ? path : path + "/") + "_metadata").ok();
}

// The snapshots PATH stands for, oldest first: its `chk-*` directories, or PATH itself.
Result<std::vector<Located>> locate(const std::string& path, bool* job_directory) {
  *job_directory = false;
  if (is_job_directory(path)) {
    CKPT_ASSIGN_OR_RETURN(std::vector<gc_detail::SnapshotDir> dirs, gc_detail::find_snapshots(path, false));
    std::vector<Located> out;
    for (auto& d : dirs)
      if (d.name.starts_with("chk-")) out.push_back({d.name, SnapshotLocation{d.metadata_path, d.directory}});
    if (out.empty())
      return Error(ErrorCode::kNotFound, "a snapshot or a job directory holding chk-*/_metadata was expected, found neither")
          .with_file(path);
    *job_directory = true;
    return out;
  }
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(path));
  std::string name = fs::path(where.directory).lexically_normal().filename().string();
  if (name.empty()) name = fs::path(where.directory).lexically_normal().parent_path().filename().string();
  return std::vector<Located>{{name, where}};
}

// The table runtime's serializers (org.apache.flink.table.runtime.typeutils) hold a SQL job's
// keys and rows.
bool table_runtime_class(const std::string& c) { return c.find("org.apache.flink.table.") != std::string::npos; }

ReportOperator operator_of(const OperatorSummary& op) {
  ReportOperator r;
  r.id = op.id;
  r.uid = op.uid;
  r.name = op.name;
  r.description = op.description;
  r.sql = !op.description.empty();
  for (const StateSummary& s : op.states)
    r.sql = r.sql || table_runtime_class(s.key_serializer) || table_runtime_class(s.value_serializer);
  r.parallelism = op.parallelism;
  r.max_parallelism = op.max_parallelism;
  r.kinds = op.kinds;
  r.state_size = op.state_size;
  r.checkpointed_size = op.checkpointed_size;
  r.file_count = op.file_count;
  for (const StateSummary& s : op.states) r.states.push_back({s.name, s.kind, s.keyed, s.value_type});
  for (const SubtaskSummary& st : op.subtasks) {
    ReportSubtask sub;
    sub.index = st.index;
    for (const HandleSummary& h : st.handles) {
      sub.state_size += h.state_size;
      if (h.slot == HandleSlot::kManagedKeyed && h.key_groups && !h.key_groups->empty()) sub.key_groups = *h.key_groups;
    }
    r.subtasks.push_back(sub);
  }
  return r;
}

// A state whose values are Flink's TtlValues (a list's elements, a map's values): its value
// serializer tree holds TtlStateFactory's TtlSerializer.
bool is_ttl_state(const ReportState& s) { return s.value_type.find("TtlSerializer") != std::string::npos; }

// The last-access timestamps of an entry's TtlValues, as the value decoder reads them
// (formats/serializers.md: {"ttl_ts": t, "value": v}): the value's, or each list element's.
template <class F>
void for_each_last_access(const Value& v, F&& f) {
  auto one = [&](const Value& x) {
    if (x.kind() != Value::Kind::kObject) return;
    if (const Value* t = x.find("ttl_ts"); t && t->is_number()) f(t->as_int());
  };
  if (v.kind() == Value::Kind::kArray)
    for (const Value& e : v.elements()) one(e);
  else
    one(v);
}

struct KeyGroupCounters {
  std::vector<uint64_t> bytes, entries;
  std::vector<int32_t> subtask;
};

Status count_entries(const SnapshotLocation& where, const ReportOptions& options, Report* r) {
  EntryReaderOptions eo;
  eo.remap = options.remap;
  eo.jobs = options.jobs;
  eo.progress = options.progress;
  eo.raw_bytes = true;
  eo.on_problem = [r](const Error& e) { r->problems.push_back(e.to_string()); };
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<EntryReader> reader, EntryReader::open(where.metadata_path, eo));
  std::unordered_map<std::string, size_t> op_index;
  std::vector<std::unordered_map<std::string, size_t>> state_index(r->operators.size());
  std::vector<KeyGroupCounters> groups(r->operators.size());
  for (size_t i = 0; i < r->operators.size(); ++i) {
    ReportOperator& op = r->operators[i];
    op_index[op.id] = i;
    for (size_t s = 0; s < op.states.size(); ++s) {
      state_index[i][op.states[s].name] = s;
      op.states[s].ttl_state = is_ttl_state(op.states[s]);
    }
    // Only keyed operators have key groups; theirs passed check_key_group_ranges().
    const bool keyed = std::any_of(op.subtasks.begin(), op.subtasks.end(),
                                   [](const ReportSubtask& s) { return !s.key_groups.empty(); });
    const size_t m = keyed ? static_cast<size_t>(std::max(op.max_parallelism, 0)) : 0;
    groups[i].bytes.assign(m, 0);
    groups[i].entries.assign(m, 0);
    groups[i].subtask.assign(m, -1);
  }
  CKPT_RETURN_IF_ERROR(reader->for_each([&](const Entry& e) -> Status {
    auto op = op_index.find(e.operator_id);
    if (op == op_index.end()) return Status();
    ReportOperator& o = r->operators[op->second];
    const uint64_t n = entry_bytes(e);
    ++r->entry_count;
    auto st = state_index[op->second].find(e.state);
    if (st == state_index[op->second].end()) {
      // A state the proxies did not list (legacy timers found by counting): one more row.
      state_index[op->second][e.state] = o.states.size();
      o.states.push_back({e.state, e.kind == EntryKind::kTimer ? "TIMER" : "", e.kind != EntryKind::kOperator, ""});
      st = state_index[op->second].find(e.state);
    }
    ReportState& state = o.states[st->second];
    state.entry_count += 1;
    state.bytes += n;
    if (state.ttl_state)
      for_each_last_access(e.value, [&](int64_t ts) {
        state.oldest_access = state.ttl_values == 0 ? ts : std::min(state.oldest_access, ts);
        state.newest_access = state.ttl_values == 0 ? ts : std::max(state.newest_access, ts);
        ++state.ttl_values;
      });
    // Subtasks are listed by index, 0 .. parallelism - 1.
    if (e.subtask >= 0 && static_cast<size_t>(e.subtask) < o.subtasks.size() &&
        o.subtasks[static_cast<size_t>(e.subtask)].index == e.subtask) {
      o.subtasks[static_cast<size_t>(e.subtask)].bytes += n;
      o.subtasks[static_cast<size_t>(e.subtask)].entry_count += 1;
    }
    if (e.key_group && *e.key_group >= 0 && static_cast<size_t>(*e.key_group) < groups[op->second].bytes.size()) {
      const size_t kg = static_cast<size_t>(*e.key_group);
      groups[op->second].bytes[kg] += n;
      groups[op->second].entries[kg] += 1;
      groups[op->second].subtask[kg] = e.subtask;
    }
    return Status();
  }));
  for (size_t i = 0; i < r->operators.size(); ++i)
    for (size_t kg = 0; kg < groups[i].bytes.size(); ++kg)
      if (groups[i].entries[kg] > 0)
        r->operators[i].key_groups.push_back(
            {static_cast<int32_t>(kg), groups[i].subtask[kg], groups[i].bytes[kg], groups[i].entries[kg]});
  return Status();
}

// The TTL of every TTL state that ReportOptions::ttls or the plan gives one, then its values
// expired at the newest last access (or `now`) counted in a pass over those states alone (the
// time is known only once every value was read).
Status count_expired(const SnapshotLocation& where, const Metadata& m, const ReportOptions& options, Report* r) {
  std::map<OperatorId, std::vector<int64_t>> by_node;
  if (!options.plan.empty()) {
    OperatorNames plan;
    CKPT_RETURN_IF_ERROR(plan.add_plan_file(options.plan));
    CKPT_ASSIGN_OR_RETURN(by_node, plan_ttls(plan, m, options.plan, "--plan"));
  }
  std::map<std::string, int64_t> named(options.ttls.begin(), options.ttls.end());
  std::set<std::string> found;
  std::map<std::string, std::vector<int64_t>> by_hex;
  for (const auto& [id, ttls] : by_node) by_hex.emplace(operator_id_hex(id), ttls);
  for (ReportOperator& op : r->operators) {
    auto node = by_hex.find(op.id);
    for (ReportState& s : op.states) {
      if (auto n = named.find(s.name); n != named.end()) {
        if (!s.ttl_state)
          return Error(
              ErrorCode::kInvalidArgument,
              fmt::format("--ttl: state '{}' of operator {} ({}) has no time-to-live", s.name, op.id, s.value_type));
        found.insert(s.name);
        s.ttl = n->second;
      } else if (s.ttl_state && node != by_hex.end()) {
        std::optional<int64_t> ttl = plan_state_ttl(node->second, s.name);
        if (ttl && *ttl > 0) s.ttl = ttl;  // 0: the node keeps this state without a TTL
      }
    }
  }
  for (const auto& [name, ttl] : named)
    if (!found.count(name))
      return Error(ErrorCode::kInvalidArgument, fmt::format("--ttl: no state '{}' in the snapshot", name));
  std::optional<int64_t> newest;
  bool any = false;
  for (const ReportOperator& op : r->operators)
    for (const ReportState& s : op.states) {
      any |= s.ttl.has_value() && s.ttl_values > 0;
      if (s.ttl_values > 0) newest = std::max(newest.value_or(s.newest_access), s.newest_access);
    }
  if (!any) return Status::OK();
  r->ttl_now_given = options.now.has_value();
  r->ttl_now = options.now ? *options.now : *newest;
  std::unique_ptr<EntryReader> snapshot;  // opened once, reselected per state
  for (ReportOperator& op : r->operators)
    for (ReportState& s : op.states) {
      if (!s.ttl || s.ttl_values == 0) continue;
      EntryReaderOptions eo;
      eo.remap = options.remap;
      eo.jobs = options.jobs;
      eo.raw_bytes = false;
      if (!snapshot) {
        CKPT_ASSIGN_OR_RETURN(snapshot, EntryReader::open(where.metadata_path, eo));
      }
      eo.operator_filter = op.id;
      eo.state = s.name;
      eo.on_problem = [](const Error&) {};  // reported by the counting pass already
      CKPT_ASSIGN_OR_RETURN(std::unique_ptr<EntryReader> reader, snapshot->reselect(eo));
      CKPT_RETURN_IF_ERROR(reader->for_each([&](const Entry& e) -> Status {
        for_each_last_access(e.value, [&](int64_t ts) { s.expired += ttl_expired(ts, *s.ttl, *r->ttl_now) ? 1 : 0; });
        return Status();
      }));
    }
  return Status::OK();
}

void name_key_groups(ReportOperator* op, const ReportOptions& options, bool counted) {
  std::vector<const ReportKeyGroup*> by_size;
  for (const ReportKeyGroup& kg : op->key_groups)
    if (kg.bytes > 0) by_size.push_back(&kg);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const ReportKeyGroup* a, const ReportKeyGroup* b) { return a->bytes > b->bytes; });
  for (size_t i = 0; i < by_size.size() && i < options.largest_key_groups; ++i)
    op->largest_key_groups.push_back(by_size[i]->key_group);
  if (by_size.empty()) return;
  std::vector<uint64_t> sizes;
  for (const ReportKeyGroup* kg : by_size) sizes.push_back(kg->bytes);
  std::nth_element(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(sizes.size() / 2), sizes.end());
  op->median_key_group_bytes = sizes[sizes.size() / 2];
  if (!counted || by_size.size() < 8) return;
  for (const ReportKeyGroup& kg : op->key_groups)
    if (static_cast<double>(kg.bytes) > options.hot_factor * static_cast<double>(op->median_key_group_bytes))
      op->hot_key_groups.push_back(kg.key_group);
}

// The SST files a keyed handle's RocksDB instances hold, by their local names (Flink uploads
// them under other names).
size_t sst_files(const KeyedHandle& h) {
  size_t n = 0;
  for (const std::vector<NamedStream>* files : {&h.shared_files, &h.private_files})
    for (const NamedStream& f : *files) n += f.name.ends_with(".sst") ? 1 : 0;
  for (const KeyedHandle& m : h.materialized) n += sst_files(m);
  return n;
}

ReportCheckpoint checkpoint_of(const std::string& name, const InspectReport& in) {
  ReportCheckpoint c;
  c.name = name;
  c.checkpoint_id = in.checkpoint_id;
  c.state_size = in.state_size;
  c.checkpointed_size = in.checkpointed_size;
  c.file_count = in.files.size();
  for (const OperatorSummary& op : in.operators) c.operator_sizes.emplace_back(op.id, op.state_size);
  return c;
}

}  // namespace

Result<Report> build_report(const std::string& path, const ReportOptions& options) {
  Report r;
  r.path = path;
  CKPT_ASSIGN_OR_RETURN(std::vector<Located> snapshots, locate(path, &r.job_directory));
  InspectOptions light;
  light.remap = options.remap;
  light.states = false;
  // History: one decoded `_metadata` at a time besides the one before it.
  std::optional<Metadata> previous;  // after the loop: the newest
  SnapshotLocation previous_where;
  for (size_t i = 0; i < snapshots.size(); ++i) {
    const Located& s = snapshots[i];
    CKPT_ASSIGN_OR_RETURN(Metadata m, read_metadata_file(s.where.metadata_path));
    const bool newest = i + 1 == snapshots.size();
    InspectOptions io = light;
    io.states = newest;
    if (newest) io.names = options.names;
    CKPT_ASSIGN_OR_RETURN(InspectReport in, inspect_metadata(m, s.where, io));
    ReportCheckpoint c = checkpoint_of(s.name, in);
    for (const OperatorState& op : m.operators)
      for (const SubtaskState& st : op.subtasks) c.sst_count += sst_files(st.managed_keyed);
    if (previous) {
      DiffReport d = diff_metadata(*previous, previous_where, m, s.where);
      c.files_added = d.files_added.size();
      c.files_shared = d.files_shared.size();
      c.files_dropped = d.files_removed.size();
      c.added_bytes = d.b_incremental_bytes;
      for (const DiffFile& f : d.files_removed) c.dropped_bytes += std::max<int64_t>(f.size, 0);
    } else {
      c.files_added = c.file_count;
      for (const FileTable::File f : in.files) c.added_bytes += std::max<int64_t>(f.size, 0);
    }
    r.history.push_back(std::move(c));
    if (newest) {
      r.unmatched_uids = in.unmatched_uids;
      r.inspect = std::move(in);
    }
    previous = std::move(m);
    previous_where = s.where;
  }
  const InspectReport& in = r.inspect;
  r.snapshot = in.metadata_path;
  r.checkpoint_id = in.checkpoint_id;
  r.snapshot_kind = snapshot_kind_name(in.kind);
  r.state_size = in.state_size;
  r.checkpointed_size = in.checkpointed_size;
  r.file_count = in.files.size();
  r.missing_file_count = in.missing_files;
  for (const OperatorSummary& op : in.operators) {
    r.operators.push_back(operator_of(op));
    for (const SubtaskSummary& st : op.subtasks)
      for (const HandleSummary& h : st.handles)
        if (h.slot == HandleSlot::kInputChannel || h.slot == HandleSlot::kResultSubpartition) {
          ++r.channel_state_handles;
          r.channel_state_bytes += h.state_size;
        }
  }
  if (!options.fast) {
    CKPT_RETURN_IF_ERROR(count_entries(snapshots.back().where, options, &r));
    r.counted = true;
    CKPT_RETURN_IF_ERROR(count_expired(snapshots.back().where, *previous, options, &r));
  } else {
    const StreamOpener streams = StreamOpener::for_snapshot(snapshots.back().where, options.remap);
    for (ReportOperator& op : r.operators)
      for (const OperatorState& o : previous->operators)
        if (operator_id_hex(o.id) == op.id) estimate_key_groups(o, streams, options, &op, &r.problems);
  }
  for (ReportOperator& op : r.operators) name_key_groups(&op, options, r.counted);
  if (r.history.size() >= 2) {
    const ReportCheckpoint& first = r.history.front();
    const ReportCheckpoint& last = r.history.back();
    int64_t best = 0;  // an operator that only shrank grew least, not most: none is named
    for (const auto& [id, size] : last.operator_sizes) {
      ReportGrowth g{id, 0, size};
      for (const auto& [fid, fsize] : first.operator_sizes)
        if (fid == id) g.first_state_size = fsize;
      if (g.growth_bytes() > best) {
        best = g.growth_bytes();
        r.most_grown = id;
      }
      r.growth.push_back(g);
    }
  }
  return r;
}

}  // namespace ckpt
