// The SST checks: every SST of a native handle passes RocksDB's checksum verification and
// holds only key groups of its job (verify --deep, and what writing commands check of their input).
#include <algorithm>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "ckpt/file_system.h"
#include "ops/engine/snapshot_checks.h"
#include "state/keyed_state_codec.h"
#include "state/rocksdb/rocks_sst.h"
#include "state/stream_opener.h"
#include "support/worker_threads.h"

namespace ckpt {

// dump's problems carry "operator <hex>, subtask <n>: <handle>: ..." as their context.
VerifyProblem problem_of_read_error(const Error& e) {
  VerifyProblem p;
  p.kind = ProblemKind::kUndecodable;
  p.error = e;
  p.error.context.clear();  // parsed into the problem's place below
  std::string rest = e.context;
  if (rest.starts_with("operator ") && rest.size() >= 9 + 32) {
    p.operator_id = rest.substr(9, 32);
    rest.erase(0, 9 + 32);
    if (rest.starts_with(", subtask ")) {
      char* end = nullptr;
      long n = std::strtol(rest.c_str() + 10, &end, 10);
      p.subtask = static_cast<int32_t>(n);
      rest.erase(0, static_cast<size_t>(end - rest.c_str()));
    }
    if (rest.starts_with(": ")) rest.erase(0, 2);
  }
  p.handle = rest;
  if (p.error.message.find("checksum") != std::string::npos) p.kind = ProblemKind::kChecksumMismatch;
  return p;
}

namespace {

struct SstTask {
  const OperatorState* op = nullptr;
  int32_t subtask = 0;
  const KeyedHandle* handle = nullptr;
  const NamedStream* file = nullptr;
  std::string role;
  bool checksum = true;  // every block checksummed, not only the file opened
};

void collect_ssts(const OperatorState& op, int32_t subtask, const KeyedHandle& h, bool checksum,
                  std::vector<SstTask>& out) {
  if (h.type == handle_type::kIncremental || h.type == handle_type::kIncrementalV1) {
    for (const NamedStream& f : h.shared_files)
      if (is_sst_name(f.name)) out.push_back({&op, subtask, &h, &f, "shared", checksum});
    for (const NamedStream& f : h.private_files)
      if (is_sst_name(f.name)) out.push_back({&op, subtask, &h, &f, "private", checksum});
  }
  for (const KeyedHandle& m : h.materialized) collect_ssts(op, subtask, m, checksum, out);
}

// The outcome of one SST: a problem, or whether it holds key groups beyond its handle's range.
struct SstOutcome {
  std::optional<VerifyProblem> problem;
  bool beyond_range = false;
  bool skipped = false;
};

// A problem about the SST of `t`, its kind and message still to be said.
VerifyProblem deep_sst_problem(const SstTask& t, const std::string& metadata_file) {
  VerifyProblem p;
  p.operator_id = operator_id_hex(t.op->id);
  p.subtask = t.subtask;
  p.handle = fmt::format("managed-keyed {} {}", t.role, t.file->name);
  // Files as `_metadata` names them, as the quick checks report them; inline bytes: `_metadata`.
  p.error.file = t.file->handle.is_file() ? t.file->handle.path : metadata_file;
  return p;
}

SstOutcome check_sst(const SstTask& t, const StreamOpener& streams, const std::unordered_set<std::string>& faulty) {
  SstOutcome out;
  VerifyProblem p = deep_sst_problem(t, streams.metadata_file());
  if (faulty.count(t.file->handle.path)) {
    out.skipped = true;
    return out;
  }
  auto fail = [&](ProblemKind kind, const Error& e) {
    p.kind = kind;
    p.error.code = e.code;
    p.error.message = e.context.empty() ? e.message : e.context + ": " + e.message;
    p.error.offset = e.offset;
    out.problem = p;
    return out;
  };
  Result<StateStream> stream = streams.open(t.file->handle);
  if (!stream.ok()) return fail(ProblemKind::kUndecodable, stream.error());
  Status checksum = t.checksum ? SstFile::verify_checksum(*stream) : Status::OK();
  if (!checksum.ok()) {
    bool is_checksum = checksum.error().message.find("checksum verification failed") == 0 ||
                       checksum.error().message.find("hecksum") != std::string::npos;
    return fail(is_checksum ? ProblemKind::kChecksumMismatch : ProblemKind::kUndecodable, checksum.error());
  }
  Result<SstFile> sst = SstFile::open(t.checksum ? *stream : stream->uncounted());
  if (!sst.ok()) return fail(ProblemKind::kUndecodable, sst.error());
  if (sst->first_key().empty() && sst->last_key().empty()) return out;
  // Keys sort by their key-group prefix: the first and last bound every entry.
  int bytes = key_group_prefix_bytes(t.op->max_parallelism);
  int32_t first = key_group_of_rocks_key(sst->first_key(), bytes);
  int32_t last = key_group_of_rocks_key(sst->last_key(), bytes);
  if (first < 0 || last < 0 || last >= t.op->max_parallelism) {
    p.kind = ProblemKind::kKeyGroupOutOfRange;
    p.error.message =
        fmt::format("entries of key groups {} to {}, beyond the job's 0-{}", first, last, t.op->max_parallelism - 1);
    out.problem = p;
    return out;
  }
  out.beyond_range = !t.handle->range.contains(first) || !t.handle->range.contains(last);
  return out;
}

}  // namespace

void check_ssts(const Metadata& m, const SnapshotLocation& where, const VerifyOptions& options,
                const SubtaskFilter& wanted, const std::unordered_set<std::string>& faulty, VerifyReport& report,
                std::unordered_set<std::string>& known, const SubtaskFilter& checksummed) {
  std::vector<SstTask> tasks;
  for (const OperatorState& op : m.operators)
    for (const SubtaskState& st : op.subtasks)
      if (!wanted || wanted(op, st))
        collect_ssts(op, st.index, st.managed_keyed, !checksummed || checksummed(op, st), tasks);
  if (tasks.empty()) return;

  // Resolve every path up front: the resolver is not shared between threads.
  FileResolver resolver(where.directory, options.remap);
  std::unordered_map<std::string, std::string> paths;
  for (const SstTask& t : tasks)
    if (t.file->handle.is_file())
      if (auto found = resolver.find(t.file->handle.type, t.file->handle.path); found && found->escape.empty() && found->unlisted.ok())
        paths[t.file->handle.path] = found->path;
  StreamOpener streams(
      [&paths](uint8_t, const std::string& uri) -> Result<std::optional<std::string>> {
        auto it = paths.find(uri);
        if (it == paths.end()) return std::optional<std::string>();
        return std::optional<std::string>(it->second);
      },
      where.metadata_path);
  // A store downloads the SSTs ahead of the checks, in their order.
  std::vector<std::string> order;
  for (const SstTask& t : tasks)
    if (auto it = paths.find(t.file->handle.path); it != paths.end() && is_object_store_uri(it->second))
      order.push_back(it->second);
  if (!order.empty())
    if (Result<std::shared_ptr<FileSystem>> files = file_system_for(order.front()); files.ok())
      files.value()->will_read(order);
  if (options.progress) {
    streams.set_progress(options.progress);
    uint64_t total = 0;
    // An SST only opened reads a few blocks: its bytes count where it is read whole.
    for (const SstTask& t : tasks)
      if (t.checksum) total += static_cast<uint64_t>(std::max<int64_t>(t.file->handle.size, 0));
    options.progress->bytes_total.fetch_add(total, std::memory_order_relaxed);
  }

  std::vector<SstOutcome> outcomes(tasks.size());
  Status threads = run_parallel(tasks.size(), options.jobs, [&](size_t i) -> Status {
    Result<SstOutcome> o = catch_internal([&]() -> Result<SstOutcome> { return check_sst(tasks[i], streams, faulty); });
    if (o.ok()) {
      outcomes[i] = std::move(o).value();
    } else {
      // Not known to be damaged, not known to be sound: an SST that was not checked.
      outcomes[i].problem = deep_sst_problem(tasks[i], where.metadata_path);
      outcomes[i].problem->error.code = o.error().code;
      outcomes[i].problem->error.message = o.error().message;
    }
    return Status::OK();
  });
  if (!threads.ok()) report.problems.push_back(problem_of_read_error(threads.error()));
  for (size_t i = 0; i < outcomes.size(); ++i) {
    SstOutcome& o = outcomes[i];
    if (o.skipped) continue;
    ++report.sst_files;
    if (o.beyond_range) ++report.sst_files_beyond_range;
    if (!o.problem) continue;
    const std::string& uri = tasks[i].file->handle.path;
    known.insert(uri);
    if (auto it = paths.find(uri); it != paths.end()) known.insert(it->second);
    report.problems.push_back(std::move(*o.problem));
  }
}

}  // namespace ckpt
