// ckpt/object_store.h - S3 and S3-compatible object stores, for programs that stage snapshots
// kept there (the ckpt tool's s3:// arguments). URIs: s3://bucket/key; s3a:// and s3p:// are
// the same. Credentials, region and endpoint come as the AWS CLI finds them (formats/object-stores.md §2, §3).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"

namespace ckpt {

struct CKPT_API ObjectStoreOptions {
  std::string endpoint;     // empty: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's, else AWS's
  std::string region;       // empty: AWS_REGION, AWS_DEFAULT_REGION, the profile's, else us-east-1
  std::string profile;      // empty: AWS_PROFILE, else "default"
  bool path_style = false;  // else automatic: path style for an IP or localhost endpoint
  bool no_sign = false;     // anonymous requests (public buckets)
};

CKPT_API bool is_object_store_uri(std::string_view path);

// The URI in the one spelling listings use: s3a:// and s3p:// become s3://.
CKPT_API std::string canonical_object_uri(std::string_view uri);

struct CKPT_API StoredObject {
  std::string uri;  // s3://bucket/key
  uint64_t size = 0;
  int64_t last_modified = 0;  // seconds since the epoch
};

class CKPT_API ObjectStore {
 public:
  static Result<std::shared_ptr<ObjectStore>> open(const ObjectStoreOptions& options);
  ~ObjectStore();
  // Every object whose URI starts with `prefix_uri`, all pages of ListObjectsV2.
  Result<std::vector<StoredObject>> list(const std::string& prefix_uri);
  // The URIs one level below `prefix_uri` ending in '/' (ListObjectsV2 with delimiter "/").
  Result<std::vector<std::string>> list_prefixes(const std::string& prefix_uri);
  // The objects and the prefixes ending in '/' one level below `prefix_uri` (a listing with
  // delimiter "/"): a directory's files and subdirectories.
  Result<std::vector<StoredObject>> list_level(const std::string& prefix_uri, std::vector<std::string>* prefixes);
  // The object's size and time (HEAD); kNotFound when there is none.
  Result<StoredObject> stat(const std::string& uri);
  // `bytes` as the object (one PUT: readers see the old object or the new one).
  Status write(const std::string& uri, std::string_view bytes);
  // The whole object's bytes (small objects: `_metadata`).
  Result<std::string> read(const std::string& uri);
  // Bytes [offset, offset + length) of the object (fewer at its end), one ranged GET.
  Result<std::string> read_range(const std::string& uri, uint64_t offset, uint64_t length);
  // The same into `out` (its buffer reused) for an object listed with `object_size` bytes: an
  // answer for an object of another size (replaced since) is kCorruption.
  Status read_range(const std::string& uri, uint64_t offset, uint64_t length, uint64_t object_size, std::string* out);
  // The object into `local_path` (resumed on dropped connections; removed on failure).
  Status download(const std::string& uri, const std::string& local_path);
  // The same for an object of `size` bytes (as listed): above kPartedDownload bytes, as ranged
  // GETs of 16 MiB on up to `jobs` connections at once, as the AWS CLI fetches large objects.
  static constexpr uint64_t kPartedDownload = uint64_t{32} << 20;
  Status download(const std::string& uri, const std::string& local_path, uint64_t size, int jobs);
  // A local file as an object (multipart when large; nothing left behind on failure).
  Status upload(const std::string& local_path, const std::string& uri);
  // Deletes the objects (one bucket), in batches of at most 1000; `log` hears each batch before
  // it is sent. Keys the store refused are the error.
  Status remove(const std::vector<std::string>& uris, const std::function<void(size_t first, size_t count)>& log);
  struct Refusal {
    std::string uri, code, message;
  };
  // The same, the objects the store refused to delete returned one by one; an error is a batch
  // that could not be sent at all (the objects of the batches before it were sent).
  Result<std::vector<Refusal>> remove_each(const std::vector<std::string>& uris,
                                           const std::function<void(size_t first, size_t count)>& log);
  uint64_t requests() const;
  uint64_t retries() const;

  struct Impl;

 private:
  explicit ObjectStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ckpt
