// ckpt/staging.h: a local tree of placeholders whose bytes come on
// demand (support/remote_files.h), `_metadata` files fetched, outputs uploaded.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "ckpt/io.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "ckpt/staging.h"
#include "ckpt/walk.h"
#include "s3/store_files.h"
#include "support/remote_files.h"
#include "support/worker_threads.h"

namespace ckpt {
namespace fs = std::filesystem;

namespace {

// The key of an s3:// URI without its scheme: "bucket/key", for the mirror paths.
std::string bucket_and_key(const std::string& uri) { return uri.substr(uri.find("://") + 3); }
std::string staging_bucket_of(const std::string& uri) {
  const std::string bk = bucket_and_key(uri);
  return bk.substr(0, bk.find('/'));
}

std::string trim_trailing_slashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

void replace_all(std::string* text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size()))
    text->replace(at, from.size(), to);
}

// A sparse file of the object's listed size, with its LastModified (gc's age margin reads it).
Status placeholder(const std::string& path, uint64_t size, int64_t last_modified) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    if (fd >= 0) ::close(fd);
    return Error(ErrorCode::kIOError, "cannot create the staging placeholder").with_file(path);
  }
  ::close(fd);
  timespec ts[2] = {{last_modified, 0}, {last_modified, 0}};
  ::utimensat(AT_FDCWD, path.c_str(), ts, 0);
  return {};
}

}  // namespace

struct ObjectStoreStaging::Impl {
  std::shared_ptr<ObjectStore> store;
  Options options;
  StoreScratch scratch;  // root: the staging tree
  std::string root;
  std::shared_ptr<RemoteFiles> files;
  std::vector<std::pair<std::string, std::string>> names;    // local path, URI
  std::vector<std::pair<std::string, std::string>> outputs;  // local path, URI
  std::vector<std::string> staged_parts;  // objects of finished parts, deleted after the upload
  std::vector<std::string> staged_metadata;  // local `_metadata` copies not yet read for references
  std::vector<std::string> staged_prefixes;  // s3://bucket/prefix/ staged whole
  std::set<std::string> mirrored_buckets;
  std::set<std::pair<std::string, std::string>> remapped;  // scheme and bucket as references spell them
  std::map<std::string, std::string> path_of;  // s3:// URI of a staged placeholder, its path
  std::set<std::string> queued;  // placeholders handed to the downloads ahead
  std::set<std::string> referenced_dirs;  // of staged_prefixes, those listed for references only

  // Whether `uri` lies in a directory listed only for the references found in it (its other
  // objects are not staged).
  bool referenced_dir(const std::string& uri) const {
    return std::any_of(referenced_dirs.begin(), referenced_dirs.end(),
                       [&](const std::string& d) { return uri.rfind(d, 0) == 0; });
  }

  bool staged(const std::string& uri) const {
    return std::any_of(staged_prefixes.begin(), staged_prefixes.end(),
                       [&](const std::string& p) { return uri.rfind(p, 0) == 0; });
  }

  // The object at `path`: `_metadata` fetched now, anything else a placeholder fetched on read.
  Status stage(const StoredObject& o, const std::string& path, std::vector<std::pair<std::string, std::string>>* fetch) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (fs::path(path).filename() == "_metadata") {
      staged_metadata.push_back(path);
      fetch->emplace_back(o.uri, path);
    } else {
      files->add(path, o.uri, o.size);
      path_of[o.uri] = path;
    }
    return placeholder(path, o.size, o.last_modified);
  }

  // The `_metadata` objects, keeping their placeholders' times.
  // The placeholders `metadata_path` (of the snapshot at `dir_uri`) references, in the order of
  // its handles: the order in which a command reading every byte asks for them, roughly.
  std::vector<std::string> read_order(const std::string& metadata_path, const std::string& dir_uri) {
    std::vector<std::string> order;
    auto m = read_metadata_file(metadata_path);
    if (!m) return order;
    for_each_stream(m.value(), [&](const StreamHandle& h, const StreamSite&) {
      std::string uri;
      if (h.type == handle_type::kRelativeFile)
        uri = dir_uri + "/" + h.path;
      else if ((h.type == handle_type::kFile || h.type == handle_type::kSegmentFile) && is_object_store_uri(h.path))
        uri = canonical_object_uri(h.path);
      auto it = path_of.find(uri);
      if (it != path_of.end() && queued.insert(it->second).second) order.push_back(it->second);
    });
    return order;
  }

  Status fetch_all(const std::vector<std::pair<std::string, std::string>>& fetch) {
    return run_parallel(fetch.size(), options.connections, [&](size_t i) -> Status {
      struct stat st;
      const bool timed = ::stat(fetch[i].second.c_str(), &st) == 0;
      CKPT_RETURN_IF_ERROR(store->download(fetch[i].first, fetch[i].second));
      if (timed) {
        timespec ts[2] = {st.st_mtim, st.st_mtim};
        ::utimensat(AT_FDCWD, fetch[i].second.c_str(), ts, 0);
      }
      return {};
    });
  }

  // A `_metadata` written here names the files its writer put beside it by local paths (a
  // chain's SSTs: "file:<root>/out/<bucket>/<job>/shared/<name>", as Flink's FileStateHandle
  // names a file by its absolute URI). Uploaded, they are at the output's URI, and that is what
  // the `_metadata` in the store names, as Flink writes "s3://<bucket>/<job>/shared/<name>".
  Status name_outputs_by_uri(const std::string& metadata_path) {
    CKPT_ASSIGN_OR_RETURN(Metadata md, read_metadata_file(metadata_path));
    bool changed = false;
    auto name_by_uri = [&](std::string& path) {
      std::optional<std::string> local = local_path_of_uri(path);
      if (!local) return;
      const std::string p = fs::path(*local).lexically_normal().string();
      for (const auto& [dir, uri] : outputs)
        if (p.rfind(dir, 0) == 0 && (p.size() == dir.size() || p[dir.size()] == '/')) {
          path = uri + p.substr(dir.size());
          changed = true;
          return;
        }
    };
    for_each_stream(md, [&](StreamHandle& h, const StreamSite&) {
      if (h.type == handle_type::kFile || h.type == handle_type::kSegmentFile) name_by_uri(h.path);
    });
    for (OperatorState& op : md.operators)
      for (SubtaskState& st : op.subtasks)
        for (auto* list : {&st.managed_operator, &st.raw_operator})
          for (OperatorHandle& h : *list) {
            if (h.type != handle_type::kFileMergingOperator) continue;
            name_by_uri(h.taskowned_dir);
            name_by_uri(h.shared_dir);
          }
    if (!changed) return {};
    Result<std::string> bytes = encode_metadata(md);
    if (!bytes.ok()) return std::move(bytes).error().with_file(metadata_path);
    return write_file_atomic(metadata_path, bytes.value());
  }

  // Files a staged `_metadata` names by an s3:// URI outside the staged prefixes: one LIST per
  // distinct directory, then each referenced object staged at its mirror path root/in/bucket/key.
  Status stage_references() {
    std::set<std::string> wanted;
    for (const std::string& path : staged_metadata) {
      auto m = read_metadata_file(path);
      if (!m) continue;  // the command itself reports an unreadable _metadata
      for_each_stream(m.value(), [&](const StreamHandle& h, const StreamSite&) {
        if (h.type != handle_type::kFile && h.type != handle_type::kSegmentFile) return;
        if (!is_object_store_uri(h.path)) return;
        std::string uri = canonical_object_uri(h.path);
        // Staged already: an object of a listed prefix or a reference of an earlier input. A
        // directory listed for an earlier input's references may hold this one's too (the
        // chain's next checkpoint in the same shared/): only its objects count, not the prefix.
        const bool here = path_of.count(uri) != 0 || (staged(uri) && !referenced_dir(uri));
        if (!here && uri.find("/../") == std::string::npos && uri.find("/./") == std::string::npos) {
          wanted.insert(uri);
          remapped.emplace(h.path.substr(0, h.path.find("://")), staging_bucket_of(uri));
        }
      });
    }
    staged_metadata.clear();
    std::set<std::string> dirs;
    for (const std::string& uri : wanted) dirs.insert(uri.substr(0, uri.rfind('/') + 1));
    std::vector<std::string> dir_list(dirs.begin(), dirs.end());
    std::vector<std::vector<StoredObject>> listed(dir_list.size());
    CKPT_RETURN_IF_ERROR(run_parallel(dir_list.size(), options.connections, [&](size_t i) -> Status {
      auto l = store->list(dir_list[i]);
      if (!l) return std::move(l).error();
      listed[i] = std::move(l).value();
      return {};
    }));
    std::vector<std::pair<std::string, std::string>> fetch;
    for (const auto& objects : listed)
      for (const StoredObject& o : objects) {
        if (!wanted.count(o.uri)) continue;  // only what is referenced, not the whole shared/
        mirrored_buckets.insert(staging_bucket_of(o.uri));
        CKPT_RETURN_IF_ERROR(stage(o, root + "/in/" + bucket_and_key(o.uri), &fetch));
      }
    for (const std::string& d : dir_list) {
      staged_prefixes.push_back(d);
      referenced_dirs.insert(d);
    }
    for (const std::string& b : mirrored_buckets) names.emplace_back(root + "/in/" + b, "s3://" + b);
    return fetch_all(fetch);
  }
};

ObjectStoreStaging::ObjectStoreStaging(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ObjectStoreStaging::~ObjectStoreStaging() {
  if (RemoteFiles::installed() == impl_->files) RemoteFiles::install(nullptr);
  impl_->files.reset();
  remove_store_scratch(impl_->scratch);
}

Result<std::unique_ptr<ObjectStoreStaging>> ObjectStoreStaging::create(std::shared_ptr<ObjectStore> store,
                                                                       const Options& options) {
  if (RemoteFiles::installed())
    return Error(ErrorCode::kInvalidArgument, "another object-store staging is in use in this process");
  auto impl = std::make_unique<Impl>();
  CKPT_ASSIGN_OR_RETURN(impl->scratch, create_store_scratch());
  impl->root = impl->scratch.root;
  impl->options = options;
  impl->files = std::make_shared<RemoteFiles>(std::make_shared<StoreSource>(store, options.connections),
                                              options.cache_bytes);
  impl->files->set_prefer_whole(options.whole_files);
  impl->store = std::move(store);
  RemoteFiles::install(impl->files);
  return std::unique_ptr<ObjectStoreStaging>(new ObjectStoreStaging(std::move(impl)));
}

Result<std::string> ObjectStoreStaging::input(const std::string& given) {
  Impl& m = *impl_;
  const std::string spelled = trim_trailing_slashes(given);
  // Listings name objects s3://; s3a:// and s3p:// are the same objects.
  const std::string uri = "s3://" + bucket_and_key(spelled);
  std::string dir_uri = uri;
  const bool metadata_file = uri.size() > 10 && uri.compare(uri.size() - 10, 10, "/_metadata") == 0;
  if (metadata_file) dir_uri = uri.substr(0, uri.size() - 10);
  auto objects = m.store->list(dir_uri + "/");
  if (!objects) return std::move(objects).error();
  if (objects.value().empty())
    return Error(ErrorCode::kNotFound, "no objects under this prefix").with_file(dir_uri + "/");
  const std::string local_dir = m.root + "/in/" + bucket_and_key(dir_uri);
  std::vector<std::pair<std::string, std::string>> fetch;
  for (const StoredObject& o : objects.value()) {
    std::string rel = o.uri.substr(dir_uri.size() + 1);
    if (rel.empty() || rel.back() == '/') continue;  // a "directory" marker
    CKPT_RETURN_IF_ERROR(m.stage(o, local_dir + "/" + rel, &fetch));
  }
  CKPT_RETURN_IF_ERROR(m.fetch_all(fetch));
  m.staged_prefixes.push_back(dir_uri + "/");
  CKPT_RETURN_IF_ERROR(m.stage_references());
  m.names.emplace_back(local_dir, metadata_file ? spelled.substr(0, spelled.size() - 10) : spelled);
  // A command that reads every byte gets them downloaded ahead, as many at once as
  // --connections, in the order it reads them.
  std::error_code ec;
  if (m.options.whole_files && fs::is_regular_file(local_dir + "/_metadata", ec))
    m.files->prefetch(m.read_order(local_dir + "/_metadata", dir_uri), m.options.connections);
  return metadata_file ? local_dir + "/_metadata" : local_dir;
}

std::vector<std::string> ObjectStoreStaging::remap_specs() const {
  std::vector<std::string> out;
  for (const auto& [scheme, bucket] : impl_->remapped)
    if (impl_->mirrored_buckets.count(bucket))
      out.push_back(scheme + "://" + bucket + "=" + impl_->root + "/in/" + bucket);
  return out;
}

Result<std::string> ObjectStoreStaging::output(const std::string& given) {
  Impl& m = *impl_;
  std::string uri = trim_trailing_slashes(given);
  // The local rule (OUTPUTS in ckpt(1)) compares local paths; staged copies are never the
  // store's objects, so the URIs are compared here: never into or over an input.
  const std::string canonical = "s3://" + bucket_and_key(uri);
  for (const std::string& in : m.staged_prefixes)
    if ((canonical + "/").rfind(in, 0) == 0 || in.rfind(canonical + "/", 0) == 0)
      return Error(ErrorCode::kInvalidArgument,
                   "the output is an input, holds one or lies inside one: " + in.substr(0, in.size() - 1))
          .with_file(uri);
  auto existing = m.store->list(uri);
  if (!existing) return std::move(existing).error();
  for (const StoredObject& o : existing.value())
    if (o.uri == canonical || o.uri.rfind(canonical + "/", 0) == 0)
      return Error(ErrorCode::kInvalidArgument, "output exists (an object or objects under this prefix)")
          .with_file(uri);
  std::string local = m.root + "/out/" + bucket_and_key(uri);
  std::error_code ec;
  fs::create_directories(fs::path(local).parent_path(), ec);
  m.outputs.emplace_back(local, uri);
  m.names.emplace_back(local, uri);
  return local;
}

namespace {
// "<uri>.part-" for a trimmed output URI.
std::string part_prefix(const std::string& uri) { return uri + ".part-"; }
}  // namespace

Status ObjectStoreStaging::stage_output_parts(const std::string& given) {
  Impl& m = *impl_;
  const std::string uri = trim_trailing_slashes(given);
  std::string local;
  for (const auto& [l, u] : m.outputs)
    if (u == uri) local = l;
  if (local.empty()) return Error(ErrorCode::kInvalidArgument, "not an output of this staging").with_file(uri);
  auto objects = m.store->list(part_prefix("s3://" + bucket_and_key(uri)));
  if (!objects) return std::move(objects).error();
  const std::string listed_prefix = part_prefix("s3://" + bucket_and_key(uri));
  std::vector<std::pair<std::string, std::string>> fetch;
  for (const StoredObject& o : objects.value()) {
    const std::string rel = o.uri.substr(listed_prefix.size());  // "K-of-N/file"
    if (rel.find('/') == std::string::npos || rel.back() == '/') continue;
    const std::string path = part_prefix(local) + rel;
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    fetch.emplace_back(o.uri, path);
    m.staged_parts.push_back(o.uri);
  }
  return run_parallel(fetch.size(), m.options.connections,
                      [&](size_t i) { return m.store->download(fetch[i].first, fetch[i].second); });
}

Status ObjectStoreStaging::upload_outputs() {
  Impl& m = *impl_;
  std::vector<std::pair<std::string, std::string>> outputs = m.outputs;
  // Parts written beside an output by a --shard run: each its own output in the store.
  for (const auto& [local, uri] : m.outputs) {
    std::error_code ec;
    const fs::path parent = fs::path(local).parent_path();
    const std::string stem = fs::path(local).filename().string() + ".part-";
    for (const auto& e : fs::directory_iterator(parent, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(stem, 0) != 0 || name.find(".ckpt-tmp-") != std::string::npos || !e.is_directory()) continue;
      const std::string part_uri = part_prefix(uri) + name.substr(stem.size());
      auto existing = m.store->list(part_uri + "/");
      if (!existing) return std::move(existing).error();
      if (!existing.value().empty())
        return Error(ErrorCode::kInvalidArgument, "output exists (an object or objects under this prefix)")
            .with_file(part_uri);
      outputs.emplace_back(e.path().string(), part_uri);
    }
  }
  for (const auto& [local, uri] : outputs) {
    std::error_code ec;
    if (!fs::exists(local, ec)) continue;
    if (fs::is_directory(local, ec))
      for (const auto& e : fs::recursive_directory_iterator(local))
        if (e.is_regular_file() && e.path().filename() == "_metadata")
          CKPT_RETURN_IF_ERROR(m.name_outputs_by_uri(e.path().string()));
  }
  for (const auto& [local, uri] : outputs) {
    std::error_code ec;
    if (!fs::exists(local, ec)) continue;
    std::vector<std::pair<std::string, std::string>> data, metadata;
    if (fs::is_regular_file(local, ec)) {
      metadata.emplace_back(local, uri);
    } else {
      for (const auto& e : fs::recursive_directory_iterator(local)) {
        if (!e.is_regular_file()) continue;
        std::string rel = fs::relative(e.path(), local).generic_string();
        (e.path().filename() == "_metadata" ? metadata : data).emplace_back(e.path().string(), uri + "/" + rel);
      }
    }
    std::vector<std::string> uploaded;
    std::mutex mu;
    auto put = [&](const std::vector<std::pair<std::string, std::string>>& files) {
      return run_parallel(files.size(), m.options.connections, [&](size_t i) {
        Status s = m.store->upload(files[i].first, files[i].second);
        std::lock_guard<std::mutex> lock(mu);
        if (s.ok()) uploaded.push_back(files[i].second);
        return s;
      });
    };
    Status s = put(data);
    if (s.ok()) s = put(metadata);
    if (!s.ok()) {
      (void)m.store->remove(uploaded, {});
      return s;
    }
  }
  // The parts a finished output was assembled from, as the disk's --finish removes them.
  if (!m.staged_parts.empty()) CKPT_RETURN_IF_ERROR(m.store->remove(m.staged_parts, {}));
  return {};
}

void ObjectStoreStaging::rename_paths(std::string* text) const {
  auto sorted = impl_->names;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [local, uri] : sorted) {
    replace_all(text, "file:" + local, uri);  // a handle's URI as a writer spelled it
    replace_all(text, local, uri);
  }
}

ObjectStoreStaging::Stats ObjectStoreStaging::stats() const {
  return store_stats(impl_->store->requests(), impl_->files->stats());
}

}  // namespace ckpt
