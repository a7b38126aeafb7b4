// check_output: an output compared, canonically, with everything its operation reads.
#include "ops/output_guard.h"

#include <filesystem>
#include <unordered_map>

#include <fmt/format.h>

namespace ckpt {
namespace fs = std::filesystem;

namespace {

// Absolute, `..` and symlinks of the existing part resolved, no trailing slash.
std::string canonical_form(const std::string& path) {
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

Error refuse(const std::string& output, std::string message) {
  Error e(ErrorCode::kInvalidArgument, std::move(message));
  e.file = output;
  return e;
}

// Canonical forms of files by way of their directories: a snapshot of a million files lives in
// a handful of directories, and resolving each file's own path would cost a readlink walk each.
class Canonicalizer {
 public:
  std::string file(const std::string& path) {
    fs::path p(path);
    std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
    auto it = dirs_.find(dir);
    if (it == dirs_.end()) it = dirs_.emplace(dir, canonical_form(dir)).first;
    return it->second == "/" ? "/" + p.filename().string() : it->second + "/" + p.filename().string();
  }

 private:
  std::unordered_map<std::string, std::string> dirs_;
};

Status check_apart(const std::string& output, const std::string& out, OutputKind kind, const GuardedInput& in) {
  if (!in.where) {
    if (in.snapshot.empty()) return Status::OK();
    CKPT_ASSIGN_OR_RETURN(SnapshotLocation where, locate_snapshot(in.snapshot));
    CKPT_ASSIGN_OR_RETURN(Metadata m, read_metadata_file(where.metadata_path));
    return check_apart(output, out, kind, GuardedInput{&where, &m, in.remap, {}});
  }
  const SnapshotLocation& where = *in.where;
  const std::string dir = canonical_form(where.directory);
  // A file output that is a directory is refused as such (check_output): no file is written there.
  if (kind == OutputKind::kDirectory) {
    if (out == dir) return refuse(output, fmt::format("output is the snapshot directory '{}'", where.directory));
    if (inside_dir(dir, out)) return refuse(output, fmt::format("output contains the snapshot directory '{}'", where.directory));
    if (inside_dir(out, dir))
      return refuse(output, fmt::format("output lies inside the snapshot directory '{}'", where.directory));
  }
  if (out == canonical_form(where.metadata_path))
    return refuse(output, fmt::format("output is the input _metadata '{}'", where.metadata_path));
  if (!in.metadata) return Status::OK();

  const std::vector<PrefixRule> no_rules;
  const std::vector<PrefixRule>& remap = in.remap ? *in.remap : no_rules;
  FileResolver resolver(where.directory, remap);
  Canonicalizer canon;
  auto meets = [&](const std::string& path) -> Status {
    std::string file = canon.file(path);
    if (out == file) return refuse(output, fmt::format("output is '{}', a file the snapshot references", path));
    if (kind == OutputKind::kDirectory && inside_dir(file, out))
      return refuse(output, fmt::format("output contains '{}', a file the snapshot references", path));
    return Status::OK();
  };
  for (const ReferencedFile& f : resolve_files(*in.metadata, where, remap)) {
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
  for (const GuardedInput& in : inputs) CKPT_RETURN_IF_ERROR(check_apart(output, out, kind, in));

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
