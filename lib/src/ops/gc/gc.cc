// ckpt gc: orphans under a job's checkpoint directory (ckpt/gc.h).
#include "ckpt/gc.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "ckpt/file_system.h"
#include "ckpt/object_store.h"
#include "ckpt/resolve.h"
#include "ckpt/walk.h"
#include "ops/engine/gc_snapshots.h"
#include "ops/gc/gc_store.h"
#include "ops/gc/gc_tree.h"

namespace fs = std::filesystem;

namespace ckpt {

namespace {

using gc_detail::RootTree;
using gc_detail::SnapshotDir;
using gc_detail::TreeFile;

constexpr const char* kScannedDirs[] = {"shared", "taskowned"};

// The path part of a URI: "s3://bucket/a/b" -> "/a/b", "file:/a" -> "/a", "/a" -> "/a".
std::string uri_path(const std::string& uri) {
  if (auto local = local_path_of_uri(uri)) return *local;
  size_t scheme = uri.find("://");
  if (scheme == std::string::npos) {
    size_t colon = uri.find(':');
    return colon == std::string::npos ? uri : uri.substr(colon + 1);
  }
  size_t slash = uri.find('/', scheme + 3);
  return slash == std::string::npos ? std::string() : uri.substr(slash);
}

// An existing directory without symlinks or dots, so that relative handles under ROOT and
// under other roots are placed against ROOT alike.
fs::path real_dir(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::canonical(dir, ec);
  if (!ec) return p;
  return fs::absolute(dir, ec).lexically_normal();
}

struct Candidate {
  TreeFile file;
  bool referenced = false;
};

class Scan {
 public:
  Scan(std::string root, RootTree tree) : root_(std::move(root)), real_root_(real_dir(root_)), tree_(std::move(tree)) {}

  Status list_files(GcReport& r) {
    std::vector<TreeFile> files;
    for (const char* dir : kScannedDirs) CKPT_RETURN_IF_ERROR(tree_.list(dir, files, r.skipped_symlinks));
    for (TreeFile& f : files) {
      ++r.files_scanned;
      r.bytes_scanned += f.size;
      std::string rel = f.rel;
      candidates_[rel] = Candidate{std::move(f)};
    }
    std::sort(r.skipped_symlinks.begin(), r.skipped_symlinks.end());
    return Status::OK();
  }

  // Reads every snapshot of ROOT and of the referencing directories not read yet and marks
  // what it references; `first` also checks each referencing directory holds one.
  Status read_snapshots(GcReport& r, const GcOptions& options, bool first) {
    std::vector<std::string> all;
    CKPT_ASSIGN_OR_RETURN(std::vector<std::string> names, read_new(root_, false, all));
    for (std::string& name : names) (name.starts_with("chk-") ? r.retained : r.savepoints).push_back(std::move(name));
    r.referenced_by.resize(options.referenced_by.size());
    for (size_t i = 0; i < options.referenced_by.size(); ++i) {
      const std::string& dir = options.referenced_by[i];
      std::error_code ec;
      if (first && !fs::is_directory(dir, ec))
        return Error(ErrorCode::kNotFound, "a referencing directory was expected, found none").with_file(dir);
      std::vector<std::string> found;
      CKPT_ASSIGN_OR_RETURN(std::vector<std::string> read, read_new(dir, true, found));
      // A mistyped directory would otherwise protect nothing, silently.
      if (first && found.empty()) return gc_detail::no_snapshot_in(dir);
      r.referenced_by[i].dir = dir;
      // Listed even if another directory named it first (read once all the same).
      for (std::string& name : first ? found : read) r.referenced_by[i].snapshots.push_back(std::move(name));
    }
    return Status::OK();
  }

  void finish(GcReport& r, const GcOptions& options) {
    int64_t now = static_cast<int64_t>(std::time(nullptr));
    for (const auto& [path, c] : candidates_) {
      if (c.referenced) {
        ++r.referenced;
        continue;
      }
      GcFile f;
      f.path = path;
      f.size = c.file.size;
      f.age_seconds = std::max<int64_t>(0, now - c.file.mtime_sec);
      f.young = f.age_seconds < options.older_than_seconds;
      r.orphans.push_back(std::move(f));
    }
    std::sort(r.orphans.begin(), r.orphans.end(), [](const GcFile& a, const GcFile& b) { return a.path < b.path; });
    for (const GcFile& f : r.orphans) {
      r.orphan_bytes += f.size;
      if (f.young) r.young_bytes += f.size;
    }
  }

  bool referenced(const std::string& rel) const {
    auto it = candidates_.find(rel);
    return it != candidates_.end() && it->second.referenced;
  }

  Status remove(const std::string& rel) const { return tree_.remove(candidates_.at(rel).file); }

 private:
  // The names of the snapshots of `dir` read now; `all` gets those read before too.
  Result<std::vector<std::string>> read_new(const std::string& dir, bool self, std::vector<std::string>& all) {
    CKPT_ASSIGN_OR_RETURN(std::vector<SnapshotDir> found, gc_detail::find_snapshots(dir, self));
    std::vector<std::string> names;
    for (const SnapshotDir& s : found) {
      all.push_back(s.name);
      if (read_.count(s.metadata_path)) continue;
      CKPT_ASSIGN_OR_RETURN(Metadata m, gc_detail::read_snapshot(s));
      mark(m, real_dir(s.directory));
      read_.insert(s.metadata_path);
      names.push_back(s.name);
    }
    return names;
  }

  void mark(const Metadata& m, const fs::path& snapshot_dir) {
    auto is_candidate = [this](const std::string& rel) { return candidates_.count(rel) > 0; };
    for_each_stream(m, [&](const StreamHandle& s, const StreamSite&) {
      if (s.type == handle_type::kRelativeFile) {
        mark_relative(snapshot_dir, s.path);
        return;
      }
      if (s.type != handle_type::kFile && s.type != handle_type::kSegmentFile) return;
      for (const std::string& rel : suffix_matches(s.path, is_candidate)) candidates_[rel].referenced = true;
    });
  }

  // A relative handle names the file at its path from the snapshot's directory, wherever that
  // leads ("../../<root>/shared/f" included); only a file under ROOT can be a candidate.
  void mark_relative(const fs::path& snapshot_dir, const std::string& path) {
    fs::path rel = (snapshot_dir / path).lexically_normal().lexically_relative(real_root_);
    if (rel.empty() || *rel.begin() == "..") return;
    if (auto it = candidates_.find(rel.generic_string()); it != candidates_.end()) it->second.referenced = true;
  }

  std::string root_;
  fs::path real_root_;
  RootTree tree_;
  std::unordered_map<std::string, Candidate> candidates_;
  std::set<std::string> read_;  // `_metadata` paths already read
};

}  // namespace

std::vector<std::string> suffix_matches(const std::string& uri,
                                        const std::function<bool(const std::string&)>& is_candidate) {
  std::vector<std::string> parts;
  for (const auto& p : fs::path(uri_path(uri)).lexically_normal()) {
    std::string s = p.string();
    if (!s.empty() && s != "/") parts.push_back(s);
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] != "shared" && parts[i] != "taskowned") continue;
    std::string rel = parts[i];
    for (size_t j = i + 1; j < parts.size(); ++j) rel += "/" + parts[j];
    if (is_candidate(rel)) out.push_back(std::move(rel));
  }
  return out;
}

Result<int64_t> parse_duration(const std::string& text) {
  auto bad = [&] {
    return Error(ErrorCode::kInvalidArgument,
                 "expected a duration such as 90s, 15m, 1h or 2d, found '" + text + "'");
  };
  if (text.empty()) return bad();
  int64_t total = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return bad();
    int64_t n = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (n > (INT64_MAX / 10 - 9) / 86400) return bad();
      n = n * 10 + (text[i++] - '0');
    }
    int64_t unit = 1;
    if (i < text.size()) {
      switch (text[i++]) {
        case 's': unit = 1; break;
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        case 'd': unit = 86400; break;
        default: return bad();
      }
    } else if (total != 0) {
      return bad();  // "1h30" is ambiguous
    }
    total += n * unit;
    if (total > INT64_MAX / 2) return bad();
  }
  return total;
}

Result<GcReport> collect_garbage(const std::string& root, const GcOptions& options) {
  if (is_object_store_uri(root)) {
    if (options.store) return gc_detail::collect_store_garbage(root, options);
    GcOptions in_store = options;
    CKPT_ASSIGN_OR_RETURN(in_store.store, object_store_for(root));
    return gc_detail::collect_store_garbage(root, in_store);
  }
  if (!options.entropy_key.empty())
    return Error(ErrorCode::kInvalidArgument, "an entropy key applies to a ROOT in an object store (s3://)")
        .with_file(root);
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return Error(ErrorCode::kNotFound, "'" + root + "' is not a directory");
  CKPT_ASSIGN_OR_RETURN(RootTree tree, RootTree::open(root));
  GcReport r;
  r.root = root;
  Scan scan(root, std::move(tree));
  CKPT_RETURN_IF_ERROR(scan.list_files(r));
  CKPT_RETURN_IF_ERROR(scan.read_snapshots(r, options, true));
  if (r.retained.empty() && r.savepoints.empty() && r.referenced_by.empty() && !options.allow_empty)
    return gc_detail::nothing_retained(root);
  scan.finish(r, options);
  if (!options.apply) return r;

  // A snapshot may have completed since the scan: read any new one before deleting anything.
  CKPT_RETURN_IF_ERROR(scan.read_snapshots(r, options, false));
  for (GcFile& f : r.orphans) {
    if (f.young || scan.referenced(f.path)) continue;
    Status removed = scan.remove(f.path);
    if (removed.ok()) {
      f.deleted = true;
      ++r.deleted;
      r.deleted_bytes += f.size;
    } else {
      f.error = removed.error().message;
      ++r.failed;
    }
    if (options.on_delete) options.on_delete(f);
  }
  return r;
}

}  // namespace ckpt
