// Finding the snapshots of a job directory, for gc, report and query discovery (ops/engine/gc_snapshots.h).
#include "ops/engine/gc_snapshots.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "ckpt/file_system.h"

namespace fs = std::filesystem;

namespace ckpt::gc_detail {

const char* const kRefusal = "refusing to collect garbage: a snapshot that cannot be read may need any file";

std::optional<int64_t> checkpoint_id(std::string_view name) {
  if (!name.starts_with("chk-") || name.size() == 4) return std::nullopt;
  int64_t v = 0;
  for (char c : name.substr(4)) {
    if (c < '0' || c > '9' || v > INT64_MAX / 10 - 9) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

namespace {

bool is_savepoint_name(const std::string& name) {
  return name.starts_with("savepoint-") && name.size() > 10;
}

Error unreadable(const std::string& path, const std::string& why, const char* context) {
  Error e = Error(ErrorCode::kCorruption, why).with_file(path);
  return context ? std::move(e).with_context(context) : e;
}

// The `_metadata` of directory `dir`: nullopt when there is none at all; an error when there
// is one that is not (a symlink to) a regular file.
Result<std::optional<std::string>> metadata_in(const std::string& dir, const char* context) {
  std::string path = (fs::path(dir) / "_metadata").string();
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return unreadable(path, std::string("cannot stat: ") + std::strerror(errno), context);
  }
  if (S_ISLNK(st.st_mode) && ::stat(path.c_str(), &st) != 0)
    return unreadable(path,
                      errno == ENOENT ? "a symbolic link to nowhere"
                                      : std::string("a symbolic link that cannot be followed: ") + std::strerror(errno),
                      context);
  if (!S_ISREG(st.st_mode)) return unreadable(path, "not a regular file", context);
  return std::optional<std::string>(path);
}

// The `_metadata` of directory `dir` in a store: nullopt when there is none.
Result<std::optional<std::string>> stored_metadata_in(FileSystem& files, const std::string& dir, const char* context) {
  const std::string path = (dir.ends_with('/') ? dir : dir + "/") + "_metadata";
  Result<FileInfo> f = files.stat(path);
  if (!f.ok()) {
    if (f.error().code == ErrorCode::kNotFound) return std::optional<std::string>();
    return std::move(f).error();
  }
  if (f->directory) return unreadable(path, "not a regular file", context);
  return std::optional<std::string>(path);
}

// The names in `dir` of snapshot directories (chk-N, savepoint-*): one listing of a store.
Result<std::vector<std::string>> stored_snapshot_names(FileSystem& files, const std::string& dir) {
  CKPT_ASSIGN_OR_RETURN(std::vector<FileInfo> listed, files.list(dir));
  std::vector<std::string> names;
  for (const FileInfo& f : listed)
    if (f.directory) names.push_back(f.path.substr(f.path.rfind('/') + 1));
  return names;
}

}  // namespace

Result<std::vector<SnapshotDir>> find_snapshots(const std::string& dir, const FindSnapshots& how) {
  std::shared_ptr<FileSystem> store;
  if (is_object_store_uri(dir)) {
    CKPT_ASSIGN_OR_RETURN(store, file_system_for(dir));
  }
  auto metadata = [&](const std::string& d) {
    return store ? stored_metadata_in(*store, d, how.context) : metadata_in(d, how.context);
  };
  std::vector<SnapshotDir> out;
  if (how.self) {
    CKPT_ASSIGN_OR_RETURN(std::optional<std::string> m, metadata(dir));
    if (m) out.push_back(SnapshotDir{".", dir, *m});
  }
  std::vector<std::pair<int64_t, std::string>> checkpoints;
  std::vector<std::string> savepoints;
  auto add = [&](const std::string& name) {
    if (std::optional<int64_t> id = checkpoint_id(name))
      checkpoints.emplace_back(*id, name);
    else if (is_savepoint_name(name))
      savepoints.push_back(name);
  };
  if (store) {
    CKPT_ASSIGN_OR_RETURN(std::vector<std::string> names, stored_snapshot_names(*store, dir));
    for (const std::string& name : names) add(name);
  } else {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (!checkpoint_id(name) && !is_savepoint_name(name)) continue;
      struct stat st;
      std::string path = it->path().string();
      if (::stat(path.c_str(), &st) != 0) {
        // A snapshot directory that is a symlink to nowhere: what it held cannot be known.
        if (errno == ENOENT) return unreadable(path, "a symbolic link to nowhere", how.context);
        return unreadable(path, std::string("cannot stat: ") + std::strerror(errno), how.context);
      }
      if (!S_ISDIR(st.st_mode)) continue;  // a stray file named like a snapshot holds nothing
      add(name);
    }
    if (ec) return Error(ErrorCode::kIOError, "cannot list '" + dir + "': " + ec.message());
  }
  std::sort(checkpoints.begin(), checkpoints.end());
  std::sort(savepoints.begin(), savepoints.end());
  std::vector<std::string> names;
  for (auto& [id, name] : checkpoints) names.push_back(std::move(name));
  names.insert(names.end(), savepoints.begin(), savepoints.end());
  for (const std::string& name : names) {
    std::string sub = store ? (dir.ends_with('/') ? dir : dir + "/") + name : (fs::path(dir) / name).string();
    CKPT_ASSIGN_OR_RETURN(std::optional<std::string> m, metadata(sub));
    if (m || how.in_progress) out.push_back(SnapshotDir{name, sub, m.value_or("")});
  }
  return out;
}

GcFate gc_fate(const SnapshotDir& s, bool readable, int64_t age_seconds, int64_t margin_seconds) {
  // As collect_garbage: find_snapshots() without in_progress, read_snapshot() or refuse, and
  // the margin for the files no retained snapshot references.
  if (!s.metadata_path.empty()) return readable ? GcFate::kRetained : GcFate::kRefused;
  return age_seconds < margin_seconds ? GcFate::kYoung : GcFate::kOrphaned;
}

const char* gc_fate_name(GcFate fate) {
  switch (fate) {
    case GcFate::kRetained: return "retained";
    case GcFate::kRefused: return "refused";
    case GcFate::kYoung: return "young";
    case GcFate::kOrphaned: return "orphaned";
  }
  return "";
}

Error no_snapshot_in(const std::string& dir) {
  return Error(ErrorCode::kNotFound,
               "a referencing directory holds no snapshot: no _metadata, chk-*/_metadata or "
               "savepoint-*/_metadata (a job's checkpoint directory, a savepoint directory or a "
               "snapshot was expected)")
      .with_file(dir);
}

Error nothing_retained(const std::string& root) {
  return Error(ErrorCode::kInvalidArgument,
               "nothing is retained: no chk-*/_metadata or savepoint-*/_metadata here and no snapshot "
               "referencing it, so every file under shared/ and taskowned/ would be an orphan, although "
               "a job restored from these checkpoints (CLAIM or legacy mode) may still reference them; "
               "name its checkpoint directory with --referenced-by, or pass --allow-empty")
      .with_file(root);
}

Result<Metadata> read_snapshot(const SnapshotDir& s) {
  Result<Metadata> m = read_metadata_file(s.metadata_path);
  if (!m.ok()) return std::move(m).error().with_file(s.metadata_path).with_context(kRefusal);
  return m;
}

}  // namespace ckpt::gc_detail
