// ckpt compact: every RocksDB instance of a snapshot compacted into a self-contained native
// savepoint (ckpt/compact.h).
#include "ckpt/compact.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <mutex>

#include <fmt/format.h>

#include "ckpt/io.h"
#include "ckpt/walk.h"
#include "format/java/java_serialization.h"
#include "ops/compact/compact_rocks.h"
#include "ops/engine/input_checks.h"
#include "ops/output_guard.h"
#include "s3/output_directory.h"
#include "support/fs_listing.h"
#include "support/worker_threads.h"

namespace fs = std::filesystem;

namespace ckpt {

namespace {

StreamHandle relative_handle(const std::string& name, int64_t size) {
  StreamHandle h;
  h.type = handle_type::kRelativeFile;
  h.path = name;
  h.size = size;
  return h;
}

// Copies the files of every stream handle left in the model into the output, flat, once each,
// and makes the handles relative to them.
class FileCopier {
 public:
  FileCopier(FileResolver& resolver, std::string dir) : resolver_(resolver), dir_(std::move(dir)) {}

  Status copy(StreamHandle& s) {
    if (s.type == handle_type::kSegmentFile)
      return Error(ErrorCode::kNotSupported, "file-merging segments (handle type 15) cannot be compacted yet");
    if (s.type != handle_type::kFile && s.type != handle_type::kRelativeFile) return Status::OK();
    auto found = resolver_.find(s.type, s.path);
    if (!found) return Error(ErrorCode::kNotFound, "referenced file '" + s.path + "' not found");
    auto it = copied_.find(found->path);
    if (it == copied_.end()) {
      // Copying a FIFO would block; a device or directory is no state file, a link out of the
      // snapshot no state of it.
      CKPT_RETURN_IF_ERROR(found->usable());
      std::string base = fs::path(s.path).filename().string();
      std::string name = used_.insert(base).second ? base : fmt::format("{}-{}", copied_.size(), base);
      used_.insert(name);
      CKPT_RETURN_IF_ERROR(copy_to_local(found->path, dir_ + "/" + name));
      it = copied_.emplace(found->path, name).first;
    }
    s = relative_handle(it->second, s.size);
    return Status::OK();
  }
  void reserve(const std::string& name) { used_.insert(name); }

 private:
  FileResolver& resolver_;
  std::string dir_;
  std::map<std::string, std::string> copied_;  // source path -> output name
  std::set<std::string> used_;
};

struct Instance {
  size_t op = 0, subtask = 0;  // indices into the model
  RocksCompactJob job;
  std::string prefix;  // output names of this instance's files: prefix + RocksDB name
  Result<std::vector<std::string>> files = std::vector<std::string>{};
};

// The savepoint properties Flink 1.16+ writes for a native savepoint.
void make_native_savepoint(Metadata& m) {
  if (m.version < 4) return;  // V1-V3 carry no properties: the handles say what it is
  m.properties = savepoint_properties(/*canonical=*/false);
  m.properties_raw = encode_checkpoint_properties(m.properties);
}

}  // namespace

Result<CompactCompression> parse_compact_compression(const std::string& name) {
  if (name == "zstd") return CompactCompression::kZstd;
  if (name == "lz4") return CompactCompression::kLz4;
  if (name == "snappy") return CompactCompression::kSnappy;
  if (name == "none") return CompactCompression::kNone;
  return Error(ErrorCode::kInvalidArgument, "expected zstd, lz4, snappy or none, found '" + name + "'");
}

Result<CompactReport> compact_snapshot(const std::string& snapshot, const std::string& output,
                                       const CompactOptions& options) {
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(snapshot));
  CKPT_ASSIGN_OR_RETURN(Metadata m, read_metadata_file(where.metadata_path));
  CKPT_RETURN_IF_ERROR(check_relative_paths(m, where.metadata_path));
  CKPT_RETURN_IF_ERROR(check_output(output, OutputKind::kDirectory, options.force, {{&where, &m, &options.remap, {}}}));
  CompactReport report;
  report.input = where.metadata_path;
  report.output = output;

  CKPT_ASSIGN_OR_RETURN(std::vector<ReferencedFile> referenced, resolve_files(m, where, options.remap));
  for (const ReferencedFile& f : referenced) {
    if (!f.refused.empty() && f.path) return Error(ErrorCode::kInvalidArgument, f.refused).with_file(*f.path);
    if (!f.exists) return Error(ErrorCode::kNotFound, "referenced file '" + f.uri + "' not found").with_file(report.input);
    ++report.files_before;
    report.bytes_before += f.actual_size;
  }

  std::error_code ec;
  InputChecks checks;
  checks.keyed_streams = true;  // heap and canonical handles are copied as they are
  checks.jobs = options.jobs;
  checks.progress = options.progress;
  CKPT_RETURN_IF_ERROR(check_input(m, where, options.remap, checks));
  if (!is_object_store_uri(output)) {
    fs::path parent = fs::absolute(output, ec).parent_path();
    if (ec)
      return Error(ErrorCode::kIOError, "cannot make the output path absolute: " + ec.message()).with_file(output);
    fs::create_directories(parent, ec);
    if (ec) return Error(ErrorCode::kIOError, "cannot create '" + parent.string() + "': " + ec.message());
  }
  CKPT_ASSIGN_OR_RETURN(std::unique_ptr<OutputDirectory> out_dir, OutputDirectory::create(output));
  const OutputDirectory& tmp = *out_dir;
  FileResolver resolver(where.directory, options.remap);

  // The RocksDB instances: their files leave the model here and come back compacted.
  Metadata out = m;
  std::vector<Instance> instances;
  for (size_t oi = 0; oi < out.operators.size(); ++oi) {
    OperatorState& op = out.operators[oi];
    for (size_t si = 0; si < op.subtasks.size(); ++si) {
      KeyedHandle& h = op.subtasks[si].managed_keyed;
      if (!handle_type::is_incremental(h.type)) continue;
      Instance in;
      in.op = oi;
      in.subtask = si;
      in.prefix = fmt::format("{}-{}-", operator_id_hex(op.id).substr(0, 8), op.subtasks[si].index);
      in.job.work_dir = tmp.path() + "/.work-" + in.prefix;
      in.job.out_dir = in.job.work_dir + "/out";
      in.job.compression = options.compression;
      for (auto* list : {&h.shared_files, &h.private_files}) {
        for (const NamedStream& n : *list) {
          auto found = resolver.find(n.handle.type, n.handle.path);
          if (!n.handle.is_file() || !found)
            return Error(ErrorCode::kNotFound, "file '" + n.name + "' of operator " + operator_id_hex(op.id) +
                                                   ", subtask " + std::to_string(op.subtasks[si].index) +
                                                   " not found or not a file")
                .with_file(report.input);
          CKPT_RETURN_IF_ERROR(found->usable());
          in.job.files.emplace_back(n.name, found->path);
          if (n.name.ends_with(".sst")) ++report.sst_files_before;
        }
        list->clear();
      }
      instances.push_back(std::move(in));
    }
  }
  if (instances.empty())
    return Error(ErrorCode::kInvalidArgument, "no RocksDB native state to compact (a heap or canonical snapshot?)")
        .with_file(report.input);

  // Every other file (meta streams, operator state, ...) is copied as it is.
  FileCopier copier(resolver, tmp.path());
  for (const Instance& in : instances) copier.reserve(in.prefix);
  Status copied;
  for_each_stream(out, [&](StreamHandle& s, const StreamSite&) {
    if (copied.ok()) copied = copier.copy(s);
  });
  CKPT_RETURN_IF_ERROR(copied);

  // Each instance's outcome is kept, to be reported with its operator and subtask below.
  auto input_bytes = [](const RocksCompactJob& job) {
    uint64_t total = 0;
    for (const auto& [name, path] : job.files) {
      std::error_code size_ec;
      uintmax_t size = fs::file_size(path, size_ec);
      if (!size_ec) total += size;
    }
    return total;
  };
  if (options.progress)
    for (Instance& in : instances) {
      in.job.progress = options.progress;
      // Copied, then compacted: each instance's bytes twice.
      options.progress->bytes_total.fetch_add(2 * input_bytes(in.job), std::memory_order_relaxed);
    }
  CKPT_RETURN_IF_ERROR(run_parallel(instances.size(), options.jobs, [&](size_t i) -> Status {
    instances[i].files = catch_internal([&] { return compact_instance(instances[i].job); });
    if (Progress* p = instances[i].job.progress) p->add_bytes(input_bytes(instances[i].job));
    return Status::OK();
  }));

  for (Instance& in : instances) {
    OperatorState& op = out.operators[in.op];
    SubtaskState& st = op.subtasks[in.subtask];
    if (!in.files.ok())
      return std::move(in.files).error().with_context("operator " + operator_id_hex(op.id) + ", subtask " +
                                                      std::to_string(st.index));
    KeyedHandle& h = st.managed_keyed;
    int64_t total = h.delegate.state_size();
    for (const std::string& name : *in.files) {
      std::string target = in.prefix + name;
      fs::rename(fs::path(in.job.out_dir) / name, fs::path(tmp.path()) / target, ec);
      if (ec) return Error(ErrorCode::kIOError, "cannot move '" + name + "' into the output: " + ec.message());
      auto size = static_cast<int64_t>(fs::file_size(fs::path(tmp.path()) / target, ec));
      NamedStream n{name, relative_handle(target, size)};
      bool sst = name.ends_with(".sst");
      (sst ? h.shared_files : h.private_files).push_back(std::move(n));
      total += size;
      ++report.files_after;
      report.bytes_after += static_cast<uint64_t>(size);
      if (sst) ++report.sst_files_after;
    }
    h.checkpointed_size = total;
    fs::remove_all(in.job.work_dir, ec);
    ++report.instances;
  }
  // Files copied as they were.
  CKPT_ASSIGN_OR_RETURN(std::vector<fs::directory_entry> listed, list_directory(tmp.path()));
  for (const auto& e : listed) {
    std::string name = e.path().filename().string();
    bool mine = false;
    for (const Instance& in : instances) mine = mine || name.starts_with(in.prefix);
    if (!mine && e.is_regular_file(ec)) {
      ++report.files_after;
      report.bytes_after += e.file_size(ec);
    }
  }

  make_native_savepoint(out);
  CKPT_ASSIGN_OR_RETURN(std::string bytes, encode_metadata(out));
  CKPT_RETURN_IF_ERROR(write_file_atomic(tmp.path() + "/_metadata", bytes));
  CKPT_RETURN_IF_ERROR(out_dir->commit(options.force));
  return report;
}

}  // namespace ckpt
