// check_output: an output compared, canonically, with everything its operation reads.
#include "ops/output_guard.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "ckpt/object_store.h"
#include "s3/output_directory.h"

namespace ckpt {
namespace fs = std::filesystem;

namespace {

// Absolute, `..` and symlinks of the existing part resolved, no trailing slash.
std::string canonical_form(const std::string& path) {
  if (is_object_store_uri(path)) {
    std::string uri = canonical_object_uri(path);
    while (uri.size() > 1 && uri.back() == '/') uri.pop_back();
    return uri;
  }
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  fs::path c = fs::weakly_canonical(abs, ec);
  std::string s = (ec ? abs.lexically_normal() : c).string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// `inner` is `outer` or below it.
bool inside_dir(const std::string& inner, const std::string& outer) {
  if (outer == "/") return true;
  return inner.starts_with(outer) && (inner.size() == outer.size() || inner[outer.size()] == '/');
}

// A file or directory by device and inode: what a bind mount, a second mount of the same file
// system or a hard-linked directory shows under another name that no path comparison sees.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId&) const = default;
};

std::optional<FileId> id_of(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

// The ids of `path` (if it exists) and of each of its existing ancestors, nearest first.
std::vector<FileId> ids_up(const std::string& path) {
  std::vector<FileId> out;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec).lexically_normal();
  while (!p.empty()) {
    if (std::string s = p.string(); s.size() > 1 && s.back() == '/') p = fs::path(s.substr(0, s.size() - 1));
    if (auto id = id_of(p.string())) out.push_back(*id);
    if (!p.has_relative_path()) break;
    p = p.parent_path();
  }
  return out;
}

bool holds(const std::vector<FileId>& ids, const std::optional<FileId>& id) {
  return id && std::find(ids.begin(), ids.end(), *id) != ids.end();
}

// The output, by identity: itself if it exists, its existing ancestors, its directory's id.
struct OutputIdentity {
  std::optional<FileId> self;
  std::vector<FileId> up;           // self first when it exists
  std::optional<FileId> directory;  // the directory the output is (or would be) an entry of
  std::string name;
};

OutputIdentity output_identity(const std::string& output) {
  OutputIdentity o;
  if (is_object_store_uri(output)) return o;  // an object has no identity on the disk
  std::error_code ec;
  fs::path p = fs::absolute(output, ec).lexically_normal();
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  p = s;
  o.self = id_of(s);
  o.up = ids_up(s);
  o.directory = id_of(p.has_parent_path() ? p.parent_path().string() : ".");
  o.name = p.filename().string();
  return o;
}

Error refuse(const std::string& output, std::string message) {
  Error e(ErrorCode::kInvalidArgument, std::move(message));
  e.file = output;
  return e;
}

// Canonical forms and identities of files by way of their directories: a snapshot of a million
// files lives in a handful of directories, and resolving each file's own path would cost a
// readlink walk each.
class Canonicalizer {
 public:
  struct DirectoryIds {
    std::optional<FileId> self;  // the file's directory, if it exists
    std::vector<FileId> up;      // it (if it exists) and its existing ancestors
  };
  const DirectoryIds& directory_ids(const std::string& path) {
    fs::path p(path);
    std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
    auto it = ids_.find(dir);
    if (it == ids_.end()) it = ids_.emplace(dir, DirectoryIds{id_of(dir), ids_up(dir)}).first;
    return it->second;
  }

  std::string file(const std::string& path) {
    fs::path p(path);
    std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
    auto it = dirs_.find(dir);
    if (it == dirs_.end()) it = dirs_.emplace(dir, canonical_form(dir)).first;
    return it->second == "/" ? "/" + p.filename().string() : it->second + "/" + p.filename().string();
  }

 private:
  std::unordered_map<std::string, std::string> dirs_;
  std::unordered_map<std::string, DirectoryIds> ids_;
};

Status check_apart(const std::string& output, const std::string& out, const OutputIdentity& ids, OutputKind kind,
                   const GuardedInput& in) {
  if (!in.where) {
    if (in.snapshot.empty()) return Status::OK();
    CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(in.snapshot));
    CKPT_ASSIGN_OR_RETURN(Metadata m, read_metadata_file(where.metadata_path));
    return check_apart(output, out, ids, kind, GuardedInput{&where, &m, in.remap, {}});
  }
  const SnapshotLocation& where = *in.where;
  const std::string dir = canonical_form(where.directory);
  const std::optional<FileId> dir_id = id_of(where.directory);
  // A file output that is a directory is refused as such (check_output): no file is written there.
  if (kind == OutputKind::kDirectory) {
    if (out == dir || (ids.self && ids.self == dir_id))
      return refuse(output, fmt::format("output is the snapshot directory '{}'", where.directory));
    if (inside_dir(dir, out) || holds(ids_up(where.directory), ids.self))
      return refuse(output, fmt::format("output contains the snapshot directory '{}'", where.directory));
    if (inside_dir(out, dir) || holds(ids.up, dir_id))
      return refuse(output, fmt::format("output lies inside the snapshot directory '{}'", where.directory));
  }
  // The same entry of the same directory, or the same file: a rename onto it replaces it.
  auto same_entry = [&](const std::string& path) {
    fs::path p(path);
    if (ids.name == p.filename().string() && ids.directory &&
        ids.directory == id_of(p.has_parent_path() ? p.parent_path().string() : "."))
      return true;
    return ids.self && ids.self == id_of(path);
  };
  if (out == canonical_form(where.metadata_path) || same_entry(where.metadata_path))
    return refuse(output, fmt::format("output is the input _metadata '{}'", where.metadata_path));
  if (!in.metadata) return Status::OK();

  const std::vector<PrefixRule> no_rules;
  const std::vector<PrefixRule>& remap = in.remap ? *in.remap : no_rules;
  FileResolver resolver(where.directory, remap);
  Canonicalizer canon;
  auto meets = [&](const std::string& path) -> Status {
    std::string file = canon.file(path);
    const Canonicalizer::DirectoryIds& dir = canon.directory_ids(path);
    // By identity: the output is the entry of this name in the file's directory.
    const bool same = dir.self && ids.directory == dir.self && ids.name == fs::path(path).filename().string();
    if (out == file || same) return refuse(output, fmt::format("output is '{}', a file the snapshot references", path));
    if (kind == OutputKind::kDirectory && (inside_dir(file, out) || holds(dir.up, ids.self)))
      return refuse(output, fmt::format("output contains '{}', a file the snapshot references", path));
    return Status::OK();
  };
  CKPT_ASSIGN_OR_RETURN(std::vector<ReferencedFile> referenced, resolve_files(*in.metadata, where, remap));
  for (const ReferencedFile& f : referenced) {
    if (f.path) CKPT_RETURN_IF_ERROR(meets(*f.path));
    // Where the snapshot would look for it too, found there or not.
    std::optional<std::string> expected = f.handle_type == handle_type::kRelativeFile
                                              ? std::optional<std::string>(where.directory + "/" + f.uri)
                                              : resolver.candidate(f.uri);
    if (expected && expected != f.path) CKPT_RETURN_IF_ERROR(meets(*expected));
  }
  return Status::OK();
}

}  // namespace

Status check_output(const std::string& output, OutputKind kind, bool force, const std::vector<GuardedInput>& inputs) {
  if (output.empty()) return refuse(output, "no output given");
  const std::string out = canonical_form(output);
  const OutputIdentity ids = output_identity(output);
  for (const GuardedInput& in : inputs) CKPT_RETURN_IF_ERROR(check_apart(output, out, ids, kind, in));
  if (is_object_store_uri(output)) return check_no_objects_at(output);

  std::error_code ec;
  fs::file_status st = fs::status(output, ec);
  if (!fs::exists(st)) return Status::OK();
  if (kind == OutputKind::kFile) {
    if (fs::is_directory(st)) return refuse(output, "output is a directory; name the new file");
    if (!force) return refuse(output, "output exists (--force replaces it)");
    return Status::OK();
  }
  if (!fs::is_directory(st)) return refuse(output, "output exists and is not a directory");
  if (!force && !fs::is_empty(output, ec)) return refuse(output, "output directory is not empty (--force replaces it)");
  return Status::OK();
}

}  // namespace ckpt
