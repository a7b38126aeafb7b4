// Discovery (ckpt/query.h, list_snapshots): the snapshot directories gc finds in a job
// directory (ops/engine/gc_snapshots.h), searched for under a root of many jobs, each described
// from its `_metadata` by inspect.
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <optional>

#include "ckpt/file_system.h"
#include "ckpt/gc.h"
#include "ckpt/inspect.h"
#include "ckpt/metadata.h"
#include "ckpt/query.h"
#include "ops/backend_name.h"
#include "ops/engine/gc_snapshots.h"

namespace ckpt {
namespace {

namespace fs = std::filesystem;

// A root of jobs as Flink lays them out is `<checkpoints>/<job id>/chk-N`, often one or two
// levels further down (`flink/checkpoints/<job id>`); deeper trees are not searched, so a
// mistyped root costs a few directory listings, not a walk of a whole file system.
constexpr int kSearchDepth = 3;

// `path` absolute and normal, without a trailing '/' (an object-store prefix as it is written).
fs::path normal_dir(const std::string& path) {
  if (is_object_store_uri(path)) {
    std::string p = path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return fs::path(p);
  }
  std::error_code ec;
  fs::path p = fs::absolute(path, ec).lexically_normal();
  if (p.filename().empty() && p.has_parent_path()) p = p.parent_path();
  return p;
}

// A directory's own name, also for "." and a trailing '/'.
std::string name_of(const std::string& path) { return normal_dir(path).filename().string(); }

// The modification time of `path` (seconds since the epoch), nullopt when it cannot be read. A
// prefix of a store has none of its own: the newest object directly in it stands for it.
std::optional<time_t> modified_at(const std::string& path) {
  if (is_object_store_uri(path)) {
    Result<std::shared_ptr<FileSystem>> files = file_system_for(path);
    if (!files.ok()) return std::nullopt;
    Result<FileInfo> info = (*files)->stat(path);
    if (!info.ok()) return std::nullopt;
    int64_t newest = info->modified;
    if (info->directory)
      if (Result<std::vector<FileInfo>> listed = (*files)->list(path); listed.ok())
        for (const FileInfo& f : *listed) newest = std::max(newest, f.modified);
    if (newest <= 0) return std::nullopt;
    return static_cast<time_t>(newest);
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return st.st_mtime;
}

// The modification time of `path`, ISO 8601 UTC; "" when it cannot be read.
std::string modified(const std::string& path) {
  const std::optional<time_t> at = modified_at(path);
  struct tm t;
  if (!at || !::gmtime_r(&*at, &t)) return "";
  char buf[32];
  return std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &t) ? std::string(buf) : std::string();
}

// Directories no snapshot lives under: a job's state files, and what find_snapshots lists.
bool holds_no_jobs(const std::string& name) {
  return name == "shared" || name == "taskowned" || name.starts_with(".") || name.starts_with("savepoint-") ||
         gc_detail::checkpoint_id(name).has_value();
}

struct Found {
  std::string job;
  gc_detail::SnapshotDir dir;
};

// The directories in `dir` that may hold jobs: through the store's listing for a prefix.
Result<std::vector<std::string>> job_subdirs(const std::string& dir) {
  std::vector<std::string> subdirs;
  if (is_object_store_uri(dir)) {
    CKPT_ASSIGN_OR_RETURN(std::shared_ptr<FileSystem> files, file_system_for(dir));
    CKPT_ASSIGN_OR_RETURN(std::vector<FileInfo> listed, files->list(dir));
    for (const FileInfo& f : listed)
      if (f.directory && !holds_no_jobs(f.path.substr(f.path.rfind('/') + 1))) subdirs.push_back(f.path);
    return subdirs;
  }
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_directory(type_ec) || holds_no_jobs(it->path().filename().string())) continue;
    subdirs.push_back(it->path().string());
  }
  if (ec) return Error(ErrorCode::kIOError, "cannot list '" + dir + "': " + ec.message());
  return subdirs;
}

Status search_for_snapshots(const std::string& dir, int depth, std::vector<Found>& out) {
  gc_detail::FindSnapshots how;
  how.in_progress = true;
  how.context = nullptr;
  // Below the root, a directory of any name that holds a `_metadata` is a snapshot too: a
  // savepoint copied or renamed by hand, a directory of savepoints named after their jobs. It
  // is listed under its parent's name and not searched further (what is below it is its own).
  how.self = depth > 0;
  CKPT_ASSIGN_OR_RETURN(std::vector<gc_detail::SnapshotDir> here, gc_detail::find_snapshots(dir, how));
  if (!here.empty() && here.front().name == ".") {
    out.push_back({normal_dir(dir).parent_path().filename().string(),
                   gc_detail::SnapshotDir{name_of(dir), dir, here.front().metadata_path}});
    return Status::OK();
  }
  const std::string job = name_of(dir);
  for (gc_detail::SnapshotDir& d : here) out.push_back({job, std::move(d)});
  if (depth >= kSearchDepth) return Status::OK();
  CKPT_ASSIGN_OR_RETURN(std::vector<std::string> subdirs, job_subdirs(dir));
  std::sort(subdirs.begin(), subdirs.end());
  for (const std::string& sub : subdirs) CKPT_RETURN_IF_ERROR(search_for_snapshots(sub, depth + 1, out));
  return Status::OK();
}

ListedSnapshot describe(const Found& f, const ListOptions& options) {
  ListedSnapshot s;
  s.job = f.job;
  s.name = f.dir.name;
  s.path = f.dir.directory;
  // The name says the kind where Flink chose it; a directory named by hand says nothing, and a
  // `_metadata` of version 1 to 3 without a savepoint handle neither: then the kind is unknown.
  if (s.name.starts_with("savepoint-")) s.kind = "savepoint";
  else if (gc_detail::checkpoint_id(s.name)) s.kind = "checkpoint";
  s.id = gc_detail::checkpoint_id(s.name);
  s.complete = !f.dir.metadata_path.empty();
  s.time = modified(s.complete ? f.dir.metadata_path : f.dir.directory);
  if (!s.complete) {
    const std::optional<time_t> at = modified_at(f.dir.directory);
    const int64_t age = at ? static_cast<int64_t>(std::time(nullptr) - *at) : 0;
    s.gc = gc_detail::gc_fate_name(gc_detail::gc_fate(f.dir, false, age, GcOptions{}.older_than_seconds));
    return s;
  }
  InspectOptions io;
  io.remap = options.remap;
  io.states = false;
  Result<InspectReport> r = inspect_snapshot(f.dir.metadata_path, io);
  s.gc = gc_detail::gc_fate_name(gc_detail::gc_fate(f.dir, r.ok(), 0, GcOptions{}.older_than_seconds));
  if (!r.ok()) {
    s.problem = r.error().to_string();
    return s;
  }
  s.id = r->checkpoint_id;
  if (r->kind == SnapshotKind::kCheckpoint) s.kind = "checkpoint";
  if (r->kind == SnapshotKind::kSavepointCanonical || r->kind == SnapshotKind::kSavepointNative) s.kind = "savepoint";
  s.format = snapshot_kind_name(r->kind);
  s.backend = backend_of_kinds(r->operators, s.format);
  if (s.backend.empty())
    for (const OperatorSummary& op : r->operators)
      if (std::find(op.kinds.begin(), op.kinds.end(), "keyed-changelog") != op.kinds.end()) s.backend = "changelog";
  s.metadata_version = r->metadata_version;
  s.state_size = r->state_size;
  s.operator_count = r->operators.size();
  s.file_count = r->files.size();
  return s;
}

}  // namespace

Result<std::vector<ListedSnapshot>> list_snapshots(const std::string& path, const ListOptions& options) {
  std::error_code ec;
  bool snapshot = false;  // a snapshot itself (its directory or its `_metadata`), not a root of jobs
  if (is_object_store_uri(path)) {
    CKPT_ASSIGN_OR_RETURN(std::shared_ptr<FileSystem> files, file_system_for(path));
    Result<FileInfo> info = files->stat(path);
    if (!info.ok()) return Error(ErrorCode::kNotFound, "no such file or directory").with_file(path);
    snapshot = !info->directory || files->stat(normal_dir(path).string() + "/_metadata").ok();
  } else {
    if (!fs::exists(path, ec)) return Error(ErrorCode::kNotFound, "no such file or directory").with_file(path);
    snapshot = !fs::is_directory(path, ec) || fs::exists(fs::path(path) / "_metadata", ec);
  }
  std::vector<Found> found;
  if (snapshot) {
    // A snapshot itself (its directory or its `_metadata`).
    CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(path));
    found.push_back({normal_dir(where.directory).parent_path().filename().string(),
                     gc_detail::SnapshotDir{name_of(where.directory), where.directory, where.metadata_path}});
  } else {
    CKPT_RETURN_IF_ERROR(search_for_snapshots(path, 0, found));
  }
  if (found.empty())
    return Error(ErrorCode::kNotFound,
                 "no snapshot here: a snapshot directory, a job directory holding chk-*/ or savepoint-*/, or a "
                 "directory of jobs or snapshots (three levels at most) was expected")
        .with_file(path);
  std::vector<ListedSnapshot> out;
  out.reserve(found.size());
  for (const Found& f : found) out.push_back(describe(f, options));
  return out;
}

}  // namespace ckpt
