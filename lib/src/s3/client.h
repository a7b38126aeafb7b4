// s3/client.h - the S3 operations ckpt needs, over s3/http with our SigV4 signer: GET (ranged,
// resumable into a file), HEAD, PUT (multipart above a threshold), ListObjectsV2 (every page),
// DeleteObjects (batches of at most 1000). Throttling, 5xx answers, timeouts and dropped
// connections are retried with exponential backoff and jitter. Errors name the URI, the HTTP
// status and the store's error code.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "s3/http.h"
#include "s3/responses.h"
#include "s3/sigv4.h"

namespace ckpt::s3 {

// "s3://bucket/key"; s3a:// and s3p:// (Hadoop's and Presto's spellings) are the same.
struct ObjectUri {
  std::string bucket;
  std::string key;  // may be empty (the bucket) or a prefix
  std::string to_string() const { return "s3://" + bucket + (key.empty() ? "" : "/" + key); }
};
bool is_object_uri(std::string_view path);
Result<ObjectUri> parse_object_uri(std::string_view path);

enum class Addressing { kAuto, kPath, kVirtual };

// What the user configures; blanks are taken from the environment and the profile.
struct Settings {
  std::string endpoint;  // --endpoint, else AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL / profile endpoint_url
  std::string region;    // else AWS_REGION / AWS_DEFAULT_REGION / profile region / us-east-1
  std::string profile;   // --profile, else AWS_PROFILE
  Addressing addressing = Addressing::kAuto;  // kAuto: path style for a custom endpoint with an IP or localhost host
  bool no_sign = false;
  int max_attempts = 0;  // 0: AWS_MAX_ATTEMPTS, else the profile's max_attempts, else 6
  long backoff_base_ms = 100;
  long backoff_max_ms = 10000;
  long connect_timeout_ms = 10000;
  long stall_timeout_ms = 30000;
  uint64_t multipart_threshold = uint64_t{64} << 20;
  uint64_t part_size = uint64_t{16} << 20;
  int list_page_size = 0;      // max-keys of a listing page; 0: the store's (1000)
  size_t delete_batch = 1000;  // keys a DeleteObjects request; S3 takes at most 1000
};

struct RequestCounts {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> bytes_down{0};
  std::atomic<uint64_t> bytes_up{0};
};

class Client {
 public:
  // Settings completed from the environment, credentials resolved (unless no_sign).
  static Result<std::shared_ptr<Client>> create(Settings settings);
  // With given credentials (tests).
  static Result<std::shared_ptr<Client>> create(Settings settings, Credentials credentials);

  const Settings& settings() const { return settings_; }
  const RequestCounts& counts() const { return counts_; }

  // `length` bytes from `offset` (to the end with length == UINT64_MAX), checked as
  // s3/integrity.h says: a whole object by its length, ETag MD5 and checksums, a range by its
  // Content-Range. A mismatch is kCorruption naming the object.
  Result<std::string> get(const ObjectUri& uri, uint64_t offset = 0, uint64_t length = UINT64_MAX);
  // Bytes [offset, offset + length) of an object of `object_size` bytes (as listed) into `out`
  // (its buffer reused), checked by the answer's Content-Range, whose total must be
  // `object_size`: an object replaced since it was listed is kCorruption, not other bytes.
  Status get_range(const ObjectUri& uri, uint64_t offset, uint64_t length, uint64_t object_size, std::string* out);
  // The whole object into `local_path` (created or truncated); a connection that drops resumes
  // from the bytes already written, the object pinned by its ETag; checked as get() checks a
  // whole object, resumed answers included.
  Status download(const ObjectUri& uri, const std::string& local_path);
  // The same for an object of `size` bytes (as listed), as ranged GETs of `part_size` bytes
  // on up to `jobs` threads (as the AWS CLI fetches large objects), each written at its offset;
  // a part cut short resumes, every part pinned to the ETag of the first answer; then all of it
  // checked against the ETag where that is its MD5.
  Status download_parts(const ObjectUri& uri, const std::string& local_path, uint64_t size, int jobs);
  Result<ObjectInfo> head(const ObjectUri& uri);
  Status put(const ObjectUri& uri, std::string_view bytes);
  // A local file, as one PUT or (above multipart_threshold) a multipart upload, aborted on failure.
  Status upload_file(const ObjectUri& uri, const std::string& local_path);
  // Every object under the prefix `uri.key` (all pages); with `delimiter` "/", the keys one level down.
  Result<ListPage> list(const ObjectUri& prefix, const std::string& delimiter = "");
  // The keys deleted in batches of at most 1000, each batch reported to `log` before it is sent.
  // The keys S3 refused are returned.
  Result<std::vector<DeleteFailure>> delete_objects(const std::string& bucket, const std::vector<std::string>& keys,
                                                    const std::function<void(size_t first, size_t count)>& log = {});

  // The URL and signed path of an object (tests check addressing).
  struct Target {
    std::string url_base;  // scheme://host[:port]
    std::string host;      // Host header
    std::string path;      // decoded, "/bucket/key" or "/key"
  };
  Target target(const ObjectUri& uri) const;

 private:
  Client(Settings s, Credentials c, bool sign) : settings_(std::move(s)), credentials_(std::move(c)), sign_(sign) {}
  // One signed request, no retry.
  Result<HttpResponse> once(const ObjectUri& uri, const std::string& method, const Pairs& query, const Pairs& headers,
                            std::string_view body, const std::function<bool(std::string_view)>& sink = {},
                            const std::function<void(const Pairs&)>& on_headers = {}, std::string* body_into = nullptr);
  // once() until it succeeds, fails for good or max_attempts are spent; a 2xx answer's body in
  // `body_into` if given (HttpRequest::body_into), else in the response.
  Result<HttpResponse> send(const ObjectUri& uri, const std::string& method, const Pairs& query,
                            const Pairs& headers = {}, std::string_view body = {}, std::string* body_into = nullptr);
  void backoff(int attempt);
  // Bytes [offset, offset + length) into `fd` at the same offsets, resumed on drops; `etag`
  // pins the object (set from the answer when empty). Each answer's Content-Range must name
  // the bytes asked for; `first_headers` (if given and empty) gets the first answer's headers.
  Status fetch_range(const ObjectUri& uri, int fd, uint64_t offset, uint64_t length, std::string* etag,
                     Pairs* first_headers);

  Settings settings_;
  Credentials credentials_;
  bool sign_;
  RequestCounts counts_;
};

// Endpoint, region and addressing completed from the environment and the profile.
Result<Settings> complete_settings(Settings s);

}  // namespace ckpt::s3
