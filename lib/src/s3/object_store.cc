// ckpt/object_store.h over s3::Client.
#include "ckpt/object_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "s3/client.h"

namespace ckpt {

struct ObjectStore::Impl {
  std::shared_ptr<s3::Client> client;
};

ObjectStore::ObjectStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ObjectStore::~ObjectStore() = default;

bool is_object_store_uri(std::string_view path) { return s3::is_object_uri(path); }

std::string canonical_object_uri(std::string_view uri) {
  if (!s3::is_object_uri(uri)) return std::string(uri);
  return "s3://" + std::string(uri.substr(uri.find("://") + 3));
}

Result<std::shared_ptr<ObjectStore>> ObjectStore::open(const ObjectStoreOptions& o) {
  s3::Settings s;
  s.endpoint = o.endpoint;
  s.region = o.region;
  s.profile = o.profile;
  s.no_sign = o.no_sign;
  if (o.path_style) s.addressing = s3::Addressing::kPath;
  auto c = s3::Client::create(s);
  if (!c) return std::move(c).error();
  auto impl = std::make_unique<Impl>();
  impl->client = std::move(c).value();
  return std::shared_ptr<ObjectStore>(new ObjectStore(std::move(impl)));
}

Result<std::vector<StoredObject>> ObjectStore::list(const std::string& prefix_uri) {
  auto u = s3::parse_object_uri(prefix_uri);
  if (!u) return std::move(u).error();
  auto page = impl_->client->list(u.value());
  if (!page) return std::move(page).error();
  std::vector<StoredObject> out;
  for (const auto& o : page.value().objects)
    out.push_back({s3::ObjectUri{u.value().bucket, o.key}.to_string(), o.size, o.last_modified});
  return out;
}

Result<std::vector<std::string>> ObjectStore::list_prefixes(const std::string& prefix_uri) {
  auto u = s3::parse_object_uri(prefix_uri);
  if (!u) return std::move(u).error();
  auto page = impl_->client->list(u.value(), "/");
  if (!page) return std::move(page).error();
  std::vector<std::string> out;
  for (const auto& p : page.value().common_prefixes) out.push_back(s3::ObjectUri{u.value().bucket, p}.to_string());
  return out;
}

Result<std::vector<StoredObject>> ObjectStore::list_level(const std::string& prefix_uri,
                                                          std::vector<std::string>* prefixes) {
  auto u = s3::parse_object_uri(prefix_uri);
  if (!u) return std::move(u).error();
  auto page = impl_->client->list(u.value(), "/");
  if (!page) return std::move(page).error();
  std::vector<StoredObject> out;
  for (const auto& o : page.value().objects)
    out.push_back({s3::ObjectUri{u.value().bucket, o.key}.to_string(), o.size, o.last_modified});
  if (prefixes)
    for (const auto& p : page.value().common_prefixes)
      prefixes->push_back(s3::ObjectUri{u.value().bucket, p}.to_string());
  return out;
}

Result<StoredObject> ObjectStore::stat(const std::string& uri) {
  auto u = s3::parse_object_uri(uri);
  if (!u) return std::move(u).error();
  auto info = impl_->client->head(u.value());
  if (!info) return std::move(info).error();
  return StoredObject{u.value().to_string(), info.value().size, info.value().last_modified};
}

Status ObjectStore::write(const std::string& uri, std::string_view bytes) {
  auto u = s3::parse_object_uri(uri);
  if (!u) return std::move(u).error();
  return impl_->client->put(u.value(), bytes);
}

Result<std::string> ObjectStore::read(const std::string& uri) {
  auto u = s3::parse_object_uri(uri);
  if (!u) return std::move(u).error();
  return impl_->client->get(u.value());
}

Result<std::string> ObjectStore::read_range(const std::string& uri, uint64_t offset, uint64_t length) {
  auto u = s3::parse_object_uri(uri);
  if (!u) return std::move(u).error();
  if (length == 0) return std::string();
  return impl_->client->get(u.value(), offset, length);
}

Status ObjectStore::read_range(const std::string& uri, uint64_t offset, uint64_t length, uint64_t object_size,
                               std::string* out) {
  auto u = s3::parse_object_uri(uri);
  if (!u) return std::move(u).error();
  return impl_->client->get_range(u.value(), offset, length, object_size, out);
}

Status ObjectStore::download(const std::string& uri, const std::string& local_path) {
  auto u = s3::parse_object_uri(uri);
  if (!u) return std::move(u).error();
  return impl_->client->download(u.value(), local_path);
}

Status ObjectStore::download(const std::string& uri, const std::string& local_path, uint64_t size, int jobs) {
  auto u = s3::parse_object_uri(uri);
  if (!u) return std::move(u).error();
  Status got = size < kPartedDownload || jobs < 2 ? impl_->client->download(u.value(), local_path)
                                                  : impl_->client->download_parts(u.value(), local_path, size, jobs);
  if (!got.ok()) return got;
  // The object the listing named, not another version written since (or a short answer).
  struct stat st {};
  if (::stat(local_path.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_size) == size) return {};
  ::unlink(local_path.c_str());
  return Error(ErrorCode::kCorruption, fmt::format("downloaded {} bytes, the listing says the object has {}",
                                                   static_cast<uint64_t>(st.st_size), size))
      .with_file(uri);
}

Status ObjectStore::upload(const std::string& local_path, const std::string& uri) {
  auto u = s3::parse_object_uri(uri);
  if (!u) return std::move(u).error();
  return impl_->client->upload_file(u.value(), local_path);
}

Result<std::vector<ObjectStore::Refusal>> ObjectStore::remove_each(const std::vector<std::string>& uris,
                                                                   const std::function<void(size_t, size_t)>& log) {
  std::vector<Refusal> out;
  if (uris.empty()) return out;
  std::string bucket;
  std::vector<std::string> keys;
  for (const std::string& uri : uris) {
    auto u = s3::parse_object_uri(uri);
    if (!u) return std::move(u).error();
    if (!bucket.empty() && u.value().bucket != bucket)
      return Error(ErrorCode::kInvalidArgument, "objects of more than one bucket in one deletion").with_file(uri);
    bucket = u.value().bucket;
    keys.push_back(u.value().key);
  }
  auto failed = impl_->client->delete_objects(bucket, keys, log);
  if (!failed) return std::move(failed).error();
  for (auto& f : failed.value())
    out.push_back({s3::ObjectUri{bucket, f.key}.to_string(), std::move(f.code), std::move(f.message)});
  return out;
}

Status ObjectStore::remove(const std::vector<std::string>& uris, const std::function<void(size_t, size_t)>& log) {
  auto failed = remove_each(uris, log);
  if (!failed) return std::move(failed).error();
  if (!failed.value().empty()) {
    const Refusal& f = failed.value().front();
    return Error(ErrorCode::kIOError, fmt::format("{} of {} objects not deleted: {} {}", failed.value().size(),
                                                  uris.size(), f.code, f.message))
        .with_file(f.uri);
  }
  return {};
}

uint64_t ObjectStore::requests() const { return impl_->client->counts().requests; }
uint64_t ObjectStore::retries() const { return impl_->client->counts().retries; }

}  // namespace ckpt
