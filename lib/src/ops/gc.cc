// ckpt gc: orphans under a job's checkpoint directory (ckpt/gc.h).
#include "ckpt/gc.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "ckpt/resolve.h"
#include "ckpt/walk.h"

namespace fs = std::filesystem;

namespace ckpt {

namespace {

constexpr const char* kScannedDirs[] = {"shared", "taskowned"};

bool is_checkpoint_dir(const std::string& name, int64_t* id) {
  if (name.rfind("chk-", 0) != 0 || name.size() == 4) return false;
  int64_t v = 0;
  for (size_t i = 4; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i])) || v > INT64_MAX / 10 - 9) return false;
    v = v * 10 + (name[i] - '0');
  }
  *id = v;
  return true;
}

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

struct Candidate {
  uint64_t size = 0;
  int64_t mtime = 0;
  bool referenced = false;
};

class Scan {
 public:
  explicit Scan(std::string root) : root_(std::move(root)) {}

  Status list_files(GcReport& r) {
    for (const char* dir : kScannedDirs) {
      fs::path base = fs::path(root_) / dir;
      std::error_code ec;
      if (!fs::is_directory(base, ec)) continue;
      fs::recursive_directory_iterator it(base, fs::directory_options::none, ec), end;
      if (ec) return Error(ErrorCode::kIOError, "cannot list '" + base.string() + "': " + ec.message());
      for (; it != end; it.increment(ec)) {
        if (ec) return Error(ErrorCode::kIOError, "cannot list '" + base.string() + "': " + ec.message());
        if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
        struct stat st;
        if (::lstat(it->path().c_str(), &st) != 0) continue;
        std::string rel = fs::path(it->path()).lexically_relative(root_).generic_string();
        candidates_[rel] = Candidate{static_cast<uint64_t>(st.st_size), static_cast<int64_t>(st.st_mtime)};
        ++r.files_scanned;
        r.bytes_scanned += static_cast<uint64_t>(st.st_size);
      }
    }
    return Status::OK();
  }

  // Reads every complete checkpoint not read yet and marks what it references.
  Status read_checkpoints(GcReport& r) {
    std::error_code ec;
    std::vector<std::pair<int64_t, std::string>> found;
    for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
      int64_t id = 0;
      std::string name = it->path().filename().string();
      if (!is_checkpoint_dir(name, &id) || !it->is_directory(ec)) continue;
      if (read_.count(name) || !fs::exists(it->path() / "_metadata", ec)) continue;
      found.emplace_back(id, name);
    }
    if (ec) return Error(ErrorCode::kIOError, "cannot list '" + root_ + "': " + ec.message());
    std::sort(found.begin(), found.end());
    for (const auto& [id, name] : found) {
      std::string metadata_path = (fs::path(root_) / name / "_metadata").string();
      Result<Metadata> m = read_metadata_file(metadata_path);
      if (!m.ok())
        return std::move(m).error().with_file(metadata_path).with_context(
            "refusing to collect garbage: a checkpoint that cannot be read may need any file");
      mark(*m, name);
      read_.insert(name);
      r.retained.push_back(name);
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
      f.size = c.size;
      f.age_seconds = std::max<int64_t>(0, now - c.mtime);
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

 private:
  void mark(const Metadata& m, const std::string& checkpoint) {
    auto is_candidate = [this](const std::string& rel) { return candidates_.count(rel) > 0; };
    for_each_stream(m, [&](const StreamHandle& s, const StreamSite&) {
      if (s.type == handle_type::kRelativeFile) {
        std::string rel = (fs::path(checkpoint) / s.path).lexically_normal().generic_string();
        if (auto it = candidates_.find(rel); it != candidates_.end()) it->second.referenced = true;
        return;
      }
      if (s.type != handle_type::kFile && s.type != handle_type::kSegmentFile) return;
      for (const std::string& rel : suffix_matches(s.path, is_candidate)) candidates_[rel].referenced = true;
    });
  }

  std::string root_;
  std::unordered_map<std::string, Candidate> candidates_;
  std::set<std::string> read_;
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
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return Error(ErrorCode::kNotFound, "'" + root + "' is not a directory");
  GcReport r;
  r.root = root;
  Scan scan(root);
  CKPT_RETURN_IF_ERROR(scan.list_files(r));
  CKPT_RETURN_IF_ERROR(scan.read_checkpoints(r));
  scan.finish(r, options);
  if (!options.apply) return r;

  // A checkpoint may have completed since the scan: read any new one before deleting anything.
  GcReport again;
  CKPT_RETURN_IF_ERROR(scan.read_checkpoints(again));
  for (std::string& name : again.retained) r.retained.push_back(std::move(name));
  for (GcFile& f : r.orphans) {
    if (f.young || scan.referenced(f.path)) continue;
    fs::path p = fs::path(root) / f.path;
    if (::unlink(p.c_str()) == 0) {
      f.deleted = true;
      ++r.deleted;
      r.deleted_bytes += f.size;
    } else {
      f.error = std::string("cannot delete: ") + std::strerror(errno);
      ++r.failed;
    }
    if (options.on_delete) options.on_delete(f);
  }
  return r;
}

}  // namespace ckpt
