// OutputDirectory: a local output published by a rename on disk, by uploads in a store.
#include "s3/output_directory.h"

#include <filesystem>
#include <mutex>
#include <vector>

#include "ckpt/file_system.h"
#include "ckpt/object_store.h"
#include "support/worker_threads.h"

namespace ckpt {
namespace fs = std::filesystem;

namespace {

std::string without_trailing_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

Status check_no_objects_at(const std::string& uri) {
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<FileSystem> files, file_system_for(uri));
  Result<FileInfo> there = files->stat(without_trailing_slash(uri));
  if (there.ok())
    return Error(ErrorCode::kInvalidArgument, "output exists (an object or objects under this prefix)").with_file(uri);
  if (there.error().code != ErrorCode::kNotFound) return std::move(there).error();
  return Status::OK();
}

Status copy_to_local(const std::string& path, const std::string& local_path) {
  if (!is_object_store_uri(path)) return copy_file_contents(path, local_path);
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store, object_store_for(path));
  return store->download(path, local_path);
}

Result<std::unique_ptr<OutputDirectory>> OutputDirectory::create(const std::string& final_path) {
  std::unique_ptr<OutputDirectory> out(new OutputDirectory());
  out->final_ = without_trailing_slash(final_path);
  if (!is_object_store_uri(final_path)) {
    CKPT_ASSIGN_OR_RETURN(TempDir t, TempDir::create_beside(final_path));
    out->local_.emplace(std::move(t));
    out->path_ = out->local_->path();
    return out;
  }
  CKPT_RETURN_IF_ERROR(check_no_objects_at(out->final_));
  CKPT_ASSIGN_OR_RETURN(out->scratch_, create_store_scratch());
  out->path_ = out->scratch_.root + "/output";
  std::error_code ec;
  fs::create_directory(out->path_, ec);
  if (ec)
    return Error(ErrorCode::kIOError, "cannot create the output's directory: " + ec.message()).with_file(out->path_);
  return out;
}

OutputDirectory::~OutputDirectory() { remove_store_scratch(scratch_); }

Status OutputDirectory::commit(bool replace) {
  if (local_) return local_->commit(replace);
  if (replace) CKPT_RETURN_IF_ERROR(check_no_objects_at(final_));  // --force replaces nothing in a store
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<FileSystem> files, file_system_for(final_));
  std::vector<std::pair<std::string, std::string>> data, metadata;  // local path, final path
  std::error_code ec;
  for (fs::recursive_directory_iterator it(path_, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const std::string rel = fs::relative(it->path(), path_).generic_string();
    (it->path().filename() == "_metadata" ? metadata : data).emplace_back(it->path().string(), final_ + "/" + rel);
  }
  if (ec) return Error(ErrorCode::kIOError, "cannot list the output: " + ec.message()).with_file(path_);
  std::vector<std::string> uploaded;
  std::mutex mu;
  auto put = [&](const std::vector<std::pair<std::string, std::string>>& batch) {
    return run_parallel(batch.size(), store_connections(), [&](size_t i) {
      Status s = files->write_from_local(batch[i].second, batch[i].first);
      std::lock_guard<std::mutex> lock(mu);
      if (s.ok()) uploaded.push_back(batch[i].second);
      return s;
    });
  };
  Status s = put(data);
  if (s.ok()) s = put(metadata);
  if (!s.ok()) {
    for (const std::string& uri : uploaded) (void)files->remove(uri);
    return s;
  }
  remove_store_scratch(scratch_);
  return Status::OK();
}

Result<std::unique_ptr<FetchedParts>> FetchedParts::fetch(const std::string& uri) {
  std::unique_ptr<FetchedParts> out(new FetchedParts());
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store, object_store_for(uri));
  const std::string prefix = canonical_object_uri(without_trailing_slash(uri)) + ".part-";
  CKPT_ASSIGN_OR_RETURN(std::vector<StoredObject> objects, store->list(prefix));
  CKPT_ASSIGN_OR_RETURN(out->scratch_, create_store_scratch());
  out->output_ = out->scratch_.root + "/output";
  std::vector<std::pair<std::string, std::string>> fetch;  // URI, local path
  for (const StoredObject& o : objects) {
    const std::string rel = o.uri.substr(prefix.size());  // "K-of-N/file"
    if (rel.find('/') == std::string::npos || rel.back() == '/') continue;
    const std::string path = out->output_ + ".part-" + rel;
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec) return Error(ErrorCode::kIOError, "cannot create a directory: " + ec.message()).with_file(path);
    fetch.emplace_back(o.uri, path);
    out->objects_.push_back(o.uri);
  }
  CKPT_RETURN_IF_ERROR(run_parallel(fetch.size(), store_connections(),
                                    [&](size_t i) { return store->download(fetch[i].first, fetch[i].second); }));
  return out;
}

FetchedParts::~FetchedParts() { remove_store_scratch(scratch_); }

Status FetchedParts::remove() {
  if (objects_.empty()) return Status::OK();
  CKPT_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store, object_store_for(objects_.front()));
  return store->remove(objects_, {});
}

}  // namespace ckpt
