// check_input: verify's checks on what a writing command reads, the first problem as an error.
#include "ops/engine/input_checks.h"

#include <algorithm>

#include <fmt/format.h>

#include "ckpt/file_system.h"
#include "ckpt/io.h"
#include "ckpt/walk.h"
#include "format/metadata_offsets.h"
#include "format/state_bytes.h"
#include "state/heap/key_groups_reader.h"
#include "state/operator_state_reader.h"
#include "state/proxy_reader.h"
#include "state/raw_keyed_reader.h"
#include "state/raw_timers_reader.h"
#include "state/rocksdb/rocks_manifest.h"
#include "state/rocksdb/rocks_sst.h"
#include "state/stream_opener.h"
#include "support/worker_threads.h"

namespace ckpt {
namespace {

// A problem of an operator counts when one of its subtasks it concerns is read.
bool concerns_wanted(const Metadata& m, const VerifyProblem& p, const SubtaskFilter& wanted) {
  if (!wanted || p.operator_id.empty()) return true;
  for (const OperatorState& op : m.operators) {
    if (operator_id_hex(op.id) != p.operator_id) continue;
    for (const SubtaskState& st : op.subtasks)
      if ((p.subtask < 0 || st.index == p.subtask) && wanted(op, st)) return true;
  }
  return false;
}

std::string problem_context(const VerifyProblem& p) {
  std::string out;
  if (!p.operator_id.empty()) out = "operator " + p.operator_id;
  if (p.subtask >= 0) out += fmt::format(", subtask {}", p.subtask);
  if (!p.handle.empty()) out += (out.empty() ? "" : ": ") + p.handle;
  return out;
}

// A problem with a place in a file keeps it; one about what `_metadata` says (a range, an
// offset, a size) is reported at the handle's bytes in `_metadata`.
Error error_of(const VerifyProblem& p, const Metadata& m, const std::string& metadata_path) {
  Error e(p.kind == ProblemKind::kMissingFile ? ErrorCode::kNotFound : ErrorCode::kCorruption,
          fmt::format("{}: {}", problem_kind_name(p.kind), p.error.message));
  e.context = problem_context(p);
  if (p.error.offset || p.kind == ProblemKind::kMissingFile || p.kind == ProblemKind::kUndecodable ||
      p.kind == ProblemKind::kChecksumMismatch) {
    e.file = p.error.file.empty() ? metadata_path : p.error.file;
    e.offset = p.error.offset;
    return e;
  }
  e.file = metadata_path;
  if (!p.error.file.empty()) e.message += fmt::format(" (file '{}')", p.error.file);
  // Decoded a second time, on this error path only, to learn where the handle lies.
  Result<std::string> bytes = read_through_file_system(metadata_path);
  MetadataOffsets offsets;
  if (bytes.ok() && decode_metadata_located(*bytes, metadata_path, offsets).ok())
    e.offset = offsets.find(m, p.operator_id, p.subtask, p.handle);
  return e;
}

Status decoded(Status s, const OperatorState& op, const SubtaskState& st, const char* what,
               const std::string& metadata_path) {
  if (s.ok() || s.error().code == ErrorCode::kNotSupported) return Status::OK();  // verify: unchecked, not a problem
  Error e = std::move(s).error();
  if (e.file.empty()) e.file = metadata_path;
  return std::move(e).with_context(fmt::format("operator {}, subtask {}: {}", operator_id_hex(op.id), st.index, what));
}

// Every SST with entries belongs to a state of the meta data stream (as verify's dump checks):
// a damaged name in either leaves a column family Flink's restore would not know.
Status check_column_families(const KeyedHandle& h, const std::vector<std::string>& states,
                             const StreamOpener& streams) {
  for (const auto* list : {&h.shared_files, &h.private_files})
    for (const NamedStream& f : *list) {
      if (!f.name.ends_with(".sst")) continue;
      std::string cf;
      CKPT_RETURN_IF_ERROR(streams.read(f.handle, [&](const StateStream& stream) -> Status {
        CKPT_ASSIGN_OR_RETURN(SstFile sst, SstFile::open(stream));
        if (sst.num_entries() > 0) cf = sst.column_family();
        return Status::OK();
      }));
      if (cf.empty() || cf == "default" || std::find(states.begin(), states.end(), cf) != states.end()) continue;
      CKPT_ASSIGN_OR_RETURN(StateStream meta, streams.open(h.delegate));
      Error e(ErrorCode::kCorruption,
              fmt::format("the states it names do not include column family '{}' of sst '{}'", cf, f.name));
      e.file = meta.file();
      e.offset = meta.base();
      return std::move(e).with_context("meta data stream");
    }
  return Status::OK();
}

// The streams of one subtask a command would carry over without decoding them, decoded.
Status decode_subtask(const OperatorState& op, const SubtaskState& st, const InputChecks& checks,
                      const StreamOpener& streams, const std::string& metadata_path) {
  StateFilter all;
  all.check_only = true;
  const EntrySink drop = [](StateEntry&&) { return Status::OK(); };
  // What cannot be checked without the job's classes is skipped, as verify lists it unchecked;
  // the rest of the stream is still read.
  const ProblemSink stop = [](Error&& e) -> Status {
    if (e.code == ErrorCode::kNotSupported) return Status::OK();
    return std::move(e);
  };
  for (const OperatorHandle& h : st.managed_operator) {
    if (h.is_null()) continue;
    CKPT_RETURN_IF_ERROR(decoded(read_operator_handle(h, streams, all, drop, stop), op, st,
                                 "managed operator state", metadata_path));
  }
  const KeyedHandle& raw = st.raw_keyed;
  if (raw.type == handle_type::kKeyGroups || raw.type == handle_type::kKeyGroupsWithId) {
    Status s = streams.read(raw.delegate, [&](const StateStream& stream) {
      return read_raw_timers(raw, stream, all, drop, stop);
    });
    CKPT_RETURN_IF_ERROR(decoded(std::move(s), op, st, "raw keyed state", metadata_path));
  }
  const KeyedHandle& keyed = st.managed_keyed;
  if (keyed.type == handle_type::kIncremental || keyed.type == handle_type::kIncrementalV1) {
    std::vector<std::string> states;
    Status valid;
    ProxyReader proxies(streams);
    CKPT_RETURN_IF_ERROR(decoded(proxies.keyed(keyed,
                                               [&](const KeyedBackendMeta& meta) {
                                                 for (const StateMetaInfo& s : meta.states) states.push_back(s.name);
                                                 valid = check_keyed_states(meta, op.max_parallelism);
                                               }),
                                 op, st, "managed-keyed meta data stream", metadata_path));
    CKPT_RETURN_IF_ERROR(decoded(std::move(valid), op, st, "managed-keyed meta data stream", metadata_path));
    CKPT_RETURN_IF_ERROR(decoded(check_column_families(keyed, states, streams), op, st,
                                 "managed-keyed", metadata_path));
    CKPT_RETURN_IF_ERROR(decoded(check_instance_files(keyed, streams), op, st,
                                 "managed-keyed instance files", metadata_path));
  } else if (checks.keyed_streams && (keyed.type == handle_type::kKeyGroups ||
                                      keyed.type == handle_type::kKeyGroupsWithId ||
                                      keyed.type == handle_type::kSavepointKeyGroups)) {
    Status s = streams.read(keyed.delegate, [&](const StateStream& stream) {
      return read_key_groups_handle(keyed, stream, op.max_parallelism, all, drop, stop);
    });
    CKPT_RETURN_IF_ERROR(decoded(std::move(s), op, st, "managed-keyed state", metadata_path));
  }
  return Status::OK();
}

}  // namespace

Result<StructureFindings> find_structure_problems(const Metadata& m, const SnapshotLocation& where,
                                                  const std::vector<PrefixRule>& remap) {
  StructureFindings found;
  {
    FileResolver resolver(where.directory, remap);
    CKPT_RETURN_IF_ERROR(check_files(m, resolver, found.report, found.faulty));
  }
  check_key_groups(m, found.report);
  check_offsets(m, found.report);
  return found;
}

Status report_structure_problems(const StructureFindings& found, const Metadata& m, const SnapshotLocation& where,
                                 const SubtaskFilter& wanted, const ProblemSink& problems) {
  for (const VerifyProblem& p : found.report.problems)
    if (concerns_wanted(m, p, wanted)) CKPT_RETURN_IF_ERROR(problems(error_of(p, m, where.metadata_path)));
  return Status::OK();
}

Status check_structure(const Metadata& m, const SnapshotLocation& where, const std::vector<PrefixRule>& remap,
                       const SubtaskFilter& wanted, const ProblemSink& problems,
                       std::unordered_set<std::string>* faulty) {
  CKPT_ASSIGN_OR_RETURN(StructureFindings found, find_structure_problems(m, where, remap));
  if (faulty) faulty->insert(found.faulty.begin(), found.faulty.end());
  return report_structure_problems(found, m, where, wanted, problems);
}

Status check_key_group_ranges(const Metadata& m, const std::string& metadata_path) {
  VerifyReport report;
  check_key_groups(m, report);
  for (const VerifyProblem& p : report.problems)
    if (p.kind == ProblemKind::kBadKeyGroupRange) return error_of(p, m, metadata_path);
  return Status::OK();
}

bool has_bad_key_group_range(const OperatorState& op) {
  VerifyReport report;
  check_operator_key_groups(op, report);
  return std::any_of(report.problems.begin(), report.problems.end(),
                     [](const VerifyProblem& p) { return p.kind == ProblemKind::kBadKeyGroupRange; });
}

Status check_input(const Metadata& m, const SnapshotLocation& where, const std::vector<PrefixRule>& remap,
                   const InputChecks& checks) {
  CKPT_RETURN_IF_ERROR(check_structure(m, where, remap, checks.wanted, [](Error&& e) -> Status { return std::move(e); }));

  std::vector<std::pair<const OperatorState*, const SubtaskState*>> subtasks;
  for (const OperatorState& op : m.operators)
    for (const SubtaskState& st : op.subtasks)
      if (!st.finished && (!checks.wanted || checks.wanted(op, st))) subtasks.emplace_back(&op, &st);
  StreamOpener streams = StreamOpener::for_snapshot(where, remap);
  if (checks.progress) {
    streams.set_progress(checks.progress);
    uint64_t total = 0;
    // What decoding reads: operator state always, keyed streams only when asked to (SSTs are
    // counted by check_ssts below).
    for (const auto& [op, st] : subtasks) {
      total += subtask_state_bytes(*st) - subtask_state_bytes(*st, false);
      // Decoded whole: the key-group streams of heap and canonical handles (a RocksDB handle's
      // files are not read here).
      const uint8_t t = st->managed_keyed.type;
      if (checks.keyed_streams && (t == handle_type::kKeyGroups || t == handle_type::kKeyGroupsWithId ||
                                   t == handle_type::kSavepointKeyGroups))
        visit_streams(st->managed_keyed, [&total](const StreamHandle& s, StreamRole, const std::string*) {
          if (s.size > 0) total += static_cast<uint64_t>(s.size);
        });
    }
    checks.progress->bytes_total.fetch_add(total, std::memory_order_relaxed);
  }
  CKPT_RETURN_IF_ERROR(run_parallel(subtasks.size(), checks.jobs, [&](size_t i) {
    return decode_subtask(*subtasks[i].first, *subtasks[i].second, checks, streams, where.metadata_path);
  }));

  VerifyOptions options;
  options.jobs = checks.jobs;
  options.remap = remap;
  options.progress = checks.progress;
  VerifyReport deep;
  std::unordered_set<std::string> known;
  const SubtaskFilter& whole = checks.whole_sst_checks ? checks.whole_sst_checks : checks.wanted;
  const SubtaskFilter& opened = checks.ssts_opened;
  if (!opened) {
    check_ssts(m, where, options, whole, {}, deep, known);
  } else {
    auto either = [&](const OperatorState& op, const SubtaskState& st) {
      return opened(op, st) || !whole || whole(op, st);
    };
    auto checksummed = [&](const OperatorState& op, const SubtaskState& st) {
      return !opened(op, st) && (!whole || whole(op, st));
    };
    check_ssts(m, where, options, either, {}, deep, known, checksummed);
  }
  if (!deep.problems.empty()) return error_of(deep.problems.front(), m, where.metadata_path);
  return Status::OK();
}

}  // namespace ckpt
