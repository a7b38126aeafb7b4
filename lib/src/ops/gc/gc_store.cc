// `ckpt gc` on a job directory in an object store (ops/gc/gc_store.h).
#include "ops/gc/gc_store.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>

#include "ckpt/metadata.h"
#include "ckpt/object_store.h"
#include "ckpt/walk.h"
#include "ops/engine/gc_snapshots.h"
#include "support/worker_threads.h"

namespace fs = std::filesystem;

namespace ckpt::gc_detail {

namespace {

constexpr size_t kDeleteBatch = 1000;  // DeleteObjects takes at most 1000 keys

std::string trim_slashes(std::string s) {
  while (!s.empty() && s.back() == '/' && s.find("://") + 3 < s.size()) s.pop_back();
  return s;
}

// "s3://b/k" -> "b/k": where the scheme ends does not matter for comparisons below.
size_t key_start(const std::string& uri) {
  size_t scheme = uri.find("://");
  size_t slash = uri.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  return slash == std::string::npos ? uri.size() : slash + 1;
}

std::string bucket_of(const std::string& uri) {
  size_t from = uri.find("://") + 3;
  return uri.substr(from, key_start(uri) - 1 - from);
}

// `uri` with its key normalized ("a/./b/../c" -> "a/c"); nullopt if it climbs above the bucket.
std::optional<std::string> normalized(const std::string& uri) {
  size_t k = key_start(uri);
  fs::path key = fs::path(uri.substr(k)).lexically_normal();
  std::string s = key.generic_string();
  if (s.starts_with("..")) return std::nullopt;
  if (s == ".") s.clear();
  return uri.substr(0, k) + s;
}

std::string last_segment(const std::string& uri) {
  size_t slash = uri.rfind('/');
  return slash == std::string::npos ? uri : uri.substr(slash + 1);
}

bool alphanumeric(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) != 0; });
}

struct StoreCandidate {
  StoredObject object;
  std::string rel;      // "shared/..." relative to its data root
  std::string display;  // GcFile::path
  bool referenced = false;
};

struct StoreSnapshot {
  std::string name;      // "chk-7", "savepoint-..", "."
  std::string dir;       // its directory's URI, where relative handles point
  std::string metadata;  // its `_metadata` URI
};

class StoreScan {
 public:
  StoreScan(std::string root, const GcOptions& o) : root_(std::move(root)), options_(o), store_(*o.store) {}

  Status list_files(GcReport& r) {
    std::vector<std::string> roots{meta_root_};
    if (!options_.entropy_key.empty()) {
      CKPT_ASSIGN_OR_RETURN(EntropyPath ep, split_entropy_path(root_, options_.entropy_key));
      CKPT_ASSIGN_OR_RETURN(std::vector<std::string> segments, store_.list_prefixes(ep.before));
      for (const std::string& s : segments) {
        std::string x = s.substr(ep.before.size(), s.size() - ep.before.size() - 1);
        if (x.size() < ep.segment_rest.size() || !x.ends_with(ep.segment_rest)) continue;
        std::string entropy = x.substr(0, x.size() - ep.segment_rest.size());
        // Flink's entropy is alphanumeric (FlinkS3FileSystem#generateEntropy): other names
        // at that level are not this job's data.
        if (!alphanumeric(entropy)) continue;
        std::string data_root = trim_slashes(ep.before + entropy + ep.after);
        if (data_root != meta_root_) roots.push_back(data_root);
      }
    }
    data_roots_ = roots;
    std::vector<std::string> prefixes;
    for (const std::string& d : roots)
      for (const char* top : {"/shared/", "/taskowned/"}) prefixes.push_back(d + top);
    std::vector<std::vector<StoredObject>> listed(prefixes.size());
    CKPT_RETURN_IF_ERROR(run_parallel(prefixes.size(), std::max(1, options_.jobs), [&](size_t i) -> Status {
      CKPT_ASSIGN_OR_RETURN(listed[i], store_.list(prefixes[i]));
      return Status::OK();
    }));
    for (size_t i = 0; i < prefixes.size(); ++i) {
      const std::string& data_root = roots[i / 2];
      for (StoredObject& o : listed[i]) {
        if (o.uri.back() == '/') continue;  // a "directory" marker
        StoreCandidate c;
        c.rel = o.uri.substr(data_root.size() + 1);
        c.display = data_root == meta_root_ ? c.rel : o.uri;
        ++r.files_scanned;
        r.bytes_scanned += o.size;
        by_rel_[c.rel].push_back(o.uri);
        c.object = std::move(o);
        candidates_.emplace(c.object.uri, std::move(c));
      }
    }
    return Status::OK();
  }

  Status read_snapshots(GcReport& r, bool first) {
    CKPT_ASSIGN_OR_RETURN(std::vector<StoreSnapshot> own, find(meta_root_, false));
    for (const StoreSnapshot& s : own) {
      CKPT_ASSIGN_OR_RETURN(bool fresh, read(s));
      if (fresh) (s.name.starts_with("chk-") ? r.retained : r.savepoints).push_back(s.name);
    }
    r.referenced_by.resize(options_.referenced_by.size());
    for (size_t i = 0; i < options_.referenced_by.size(); ++i) {
      const std::string& dir = options_.referenced_by[i];
      std::vector<std::string> names;
      if (is_object_store_uri(dir)) {
        CKPT_ASSIGN_OR_RETURN(std::vector<StoreSnapshot> found, find(trim_slashes(canonical_object_uri(dir)), true));
        for (const StoreSnapshot& s : found) {
          CKPT_ASSIGN_OR_RETURN(bool fresh, read(s));
          if (first || fresh) names.push_back(s.name);
        }
      } else {
        std::error_code ec;
        if (first && !fs::is_directory(dir, ec))
          return Error(ErrorCode::kNotFound, "a referencing directory was expected, found none").with_file(dir);
        CKPT_ASSIGN_OR_RETURN(std::vector<SnapshotDir> found, find_snapshots(dir, true));
        for (const SnapshotDir& s : found) {
          bool fresh = read_.insert(s.metadata_path).second;
          if (fresh) {
            CKPT_ASSIGN_OR_RETURN(Metadata m, read_snapshot(s));
            CKPT_RETURN_IF_ERROR(mark(m, ""));
          }
          if (first || fresh) names.push_back(s.name);
        }
      }
      if (first && names.empty()) return no_snapshot_in(dir);
      r.referenced_by[i].dir = dir;
      for (std::string& n : names) r.referenced_by[i].snapshots.push_back(std::move(n));
    }
    return Status::OK();
  }

  void finish(GcReport& r) {
    const int64_t now = static_cast<int64_t>(std::time(nullptr));
    for (const auto& [uri, c] : candidates_) {
      if (c.referenced) {
        ++r.referenced;
        continue;
      }
      GcFile f;
      f.path = c.display;
      f.size = c.object.size;
      f.age_seconds = std::max<int64_t>(0, now - c.object.last_modified);
      f.young = f.age_seconds < options_.older_than_seconds;
      r.orphan_bytes += f.size;
      if (f.young) r.young_bytes += f.size;
      orphan_uris_[f.path] = uri;
      r.orphans.push_back(std::move(f));
    }
    std::sort(r.orphans.begin(), r.orphans.end(), [](const GcFile& a, const GcFile& b) { return a.path < b.path; });
  }

  void remove(GcReport& r) {
    std::vector<GcFile*> due;
    for (GcFile& f : r.orphans)
      if (!f.young && !candidates_.at(orphan_uris_.at(f.path)).referenced) due.push_back(&f);
    for (size_t first = 0; first < due.size(); first += kDeleteBatch) {
      const size_t n = std::min(kDeleteBatch, due.size() - first);
      std::vector<const GcFile*> batch(due.begin() + static_cast<long>(first),
                                       due.begin() + static_cast<long>(first + n));
      std::vector<std::string> uris;
      for (const GcFile* f : batch) uris.push_back(orphan_uris_.at(f->path));
      if (options_.on_batch) options_.on_batch(batch);
      auto refused = store_.remove_each(uris, {});
      std::map<std::string, std::string> why;
      if (refused.ok()) {
        for (const auto& x : refused.value()) why[x.uri] = x.code + (x.message.empty() ? "" : ": " + x.message);
      }
      for (size_t i = 0; i < n; ++i) {
        GcFile& f = *due[first + i];
        if (!refused.ok()) {
          f.error = refused.error().to_string();
        } else if (auto it = why.find(uris[i]); it != why.end()) {
          f.error = it->second;
        } else {
          f.deleted = true;
          ++r.deleted;
          r.deleted_bytes += f.size;
        }
        if (!f.deleted) ++r.failed;
        if (options_.on_delete) options_.on_delete(f);
      }
    }
  }

  void set_meta_root(std::string m) { meta_root_ = std::move(m); }

 private:
  // The snapshots directly under `dir` (and, with `self`, `dir` itself), by one listing of each
  // of `dir/_metadata`, `dir/chk-` and `dir/savepoint-`, never of the whole directory.
  Result<std::vector<StoreSnapshot>> find(const std::string& dir, bool self) {
    std::vector<StoreSnapshot> out;
    if (self) {
      CKPT_ASSIGN_OR_RETURN(std::vector<StoredObject> m, store_.list(dir + "/_metadata"));
      for (const StoredObject& o : m)
        if (o.uri == dir + "/_metadata") out.push_back({".", dir, o.uri});
    }
    std::vector<std::pair<int64_t, StoreSnapshot>> checkpoints;
    std::vector<StoreSnapshot> savepoints;
    for (const char* kind : {"/chk-", "/savepoint-"}) {
      CKPT_ASSIGN_OR_RETURN(std::vector<StoredObject> listed, store_.list(dir + kind));
      for (const StoredObject& o : listed) {
        std::string rel = o.uri.substr(dir.size() + 1);
        size_t slash = rel.find('/');
        if (slash == std::string::npos || rel.substr(slash + 1) != "_metadata") continue;
        std::string name = rel.substr(0, slash);
        StoreSnapshot s{name, dir + "/" + name, o.uri};
        if (auto id = checkpoint_id(name))
          checkpoints.emplace_back(*id, std::move(s));
        else if (name.starts_with("savepoint-") && name.size() > 10)
          savepoints.push_back(std::move(s));
      }
    }
    std::sort(checkpoints.begin(), checkpoints.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::sort(savepoints.begin(), savepoints.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (auto& c : checkpoints) out.push_back(std::move(c.second));
    for (auto& s : savepoints) out.push_back(std::move(s));
    return out;
  }

  // Reads and marks `s` unless read before; whether it was read now.
  Result<bool> read(const StoreSnapshot& s) {
    if (!read_.insert(s.metadata).second) return false;
    auto bytes = store_.read(s.metadata);
    if (!bytes) return std::move(bytes).error().with_file(s.metadata).with_context(kRefusal);
    auto m = decode_metadata(bytes.value(), s.metadata);
    if (!m) return std::move(m).error().with_file(s.metadata).with_context(kRefusal);
    CKPT_RETURN_IF_ERROR(mark(m.value(), s.dir));
    return true;
  }

  void mark_uri(const std::string& uri) {
    if (auto it = candidates_.find(uri); it != candidates_.end()) it->second.referenced = true;
  }

  Status mark(const Metadata& m, const std::string& snapshot_dir) {
    auto is_candidate = [this](const std::string& rel) { return by_rel_.count(rel) > 0; };
    Status refused;
    for_each_stream(m, [&](const StreamHandle& s, const StreamSite&) {
      if (s.type == handle_type::kRelativeFile) {
        if (snapshot_dir.empty()) return;
        if (auto u = normalized(snapshot_dir + "/" + s.path)) mark_uri(*u);
        return;
      }
      if (s.type != handle_type::kFile && s.type != handle_type::kSegmentFile) return;
      if (is_object_store_uri(s.path)) {
        if (auto u = normalized(canonical_object_uri(s.path))) {
          mark_uri(*u);
          if (refused.ok()) refused = check_outside(*u);
        }
      }
      for (const std::string& rel : suffix_matches(s.path, is_candidate))
        for (const std::string& uri : by_rel_[rel]) mark_uri(uri);
    });
    return refused;
  }

  // A reference to a shared/ or taskowned/ file of a job directory named as ROOT is, in ROOT's
  // bucket but not under ROOT: entropy injection put it there, and the listing under ROOT would
  // not hold this job's files.
  Status check_outside(const std::string& uri) const {
    if (!options_.entropy_key.empty() || bucket_of(uri) != bucket_of(meta_root_)) return Status::OK();
    for (const std::string& d : data_roots_)
      if (uri.starts_with(d + "/")) return Status::OK();
    for (const char* top : {"/shared/", "/taskowned/"}) {
      size_t at = uri.find(top);
      if (at == std::string::npos) continue;
      std::string job_dir = uri.substr(0, at);
      if (last_segment(job_dir) == last_segment(meta_root_) && job_dir != meta_root_)
        return Error(ErrorCode::kInvalidArgument,
                     "a retained snapshot references " + uri + ", a file of this job outside " + meta_root_ +
                         "/: the job writes with Flink's entropy injection (s3.entropy.key), so its data files are "
                         "under other prefixes; name the key with --entropy-key and ROOT as state.checkpoints.dir "
                         "spells it (with the key)")
            .with_file(meta_root_);
    }
    return Status::OK();
  }

  std::string root_;
  std::string meta_root_;
  const GcOptions& options_;
  ObjectStore& store_;
  std::vector<std::string> data_roots_;
  std::unordered_map<std::string, StoreCandidate> candidates_;  // by URI
  std::unordered_map<std::string, std::vector<std::string>> by_rel_;
  std::unordered_map<std::string, std::string> orphan_uris_;  // GcFile::path -> URI
  std::set<std::string> read_;
};

}  // namespace

Result<EntropyPath> split_entropy_path(const std::string& root, const std::string& key) {
  const size_t k = key_start(root);
  const size_t at = root.find(key, k);
  if (key.empty() || at == std::string::npos)
    return Error(ErrorCode::kInvalidArgument,
                 "the entropy key '" + key +
                     "' is not in ROOT: name the checkpoint directory as state.checkpoints.dir spells it, with the key")
        .with_file(root);
  EntropyPath p;
  p.before = root.substr(0, at);
  p.after = root.substr(at + key.size());
  p.segment_rest = p.after.substr(0, p.after.find('/'));
  std::string removed = p.before + p.after;
  // Flink's Path collapses the '//' that removing a whole segment leaves.
  std::string key_part = removed.substr(k);
  for (size_t d; (d = key_part.find("//")) != std::string::npos;) key_part.erase(d, 1);
  if (!key_part.empty() && key_part.front() == '/') key_part.erase(0, 1);
  p.metadata_root = trim_slashes(removed.substr(0, k) + key_part);
  return p;
}

Result<GcReport> collect_store_garbage(const std::string& given_root, const GcOptions& options) {
  if (!options.store)
    return Error(ErrorCode::kInvalidArgument, "no object store to collect garbage in").with_file(given_root);
  const std::string root = trim_slashes(canonical_object_uri(given_root));
  GcReport r;
  r.root = given_root;
  StoreScan scan(root, options);
  std::string meta_root = root;
  if (!options.entropy_key.empty()) {
    CKPT_ASSIGN_OR_RETURN(EntropyPath ep, split_entropy_path(root, options.entropy_key));
    meta_root = ep.metadata_root;
  }
  scan.set_meta_root(meta_root);
  CKPT_RETURN_IF_ERROR(scan.list_files(r));
  CKPT_RETURN_IF_ERROR(scan.read_snapshots(r, true));
  if (r.retained.empty() && r.savepoints.empty() && r.referenced_by.empty() && !options.allow_empty)
    return nothing_retained(meta_root);
  scan.finish(r);
  if (!options.apply) return r;
  // A snapshot may have completed since the scan: read any new one before deleting anything.
  CKPT_RETURN_IF_ERROR(scan.read_snapshots(r, false));
  scan.remove(r);
  return r;
}

}  // namespace ckpt::gc_detail
