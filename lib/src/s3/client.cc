#include "s3/client.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

#include "ckpt/io.h"
#include "s3/credentials.h"
#include "s3/crypto.h"
#include "s3/integrity.h"
#include "support/worker_threads.h"

namespace ckpt::s3 {

namespace {

const char* const kEmptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

bool retryable_code(const std::string& code) {
  return code == "SlowDown" || code == "RequestTimeout" || code == "InternalError" || code == "ServiceUnavailable" ||
         code == "Throttling" || code == "ThrottlingException" || code == "RequestLimitExceeded";
}

bool retryable(const HttpResponse& r, const ErrorBody& e) {
  return r.status == 429 || r.status == 500 || r.status == 502 || r.status == 503 || r.status == 504 ||
         retryable_code(e.code);
}

Error status_error(const std::string& uri, const HttpResponse& r) {
  ErrorBody e = parse_error_body(r.body);
  if (e.code.empty()) e.code = r.status == 404 ? "NotFound" : r.status == 403 ? "Forbidden" : "";
  std::string msg = fmt::format("HTTP {}", r.status);
  if (!e.code.empty()) msg += " " + e.code;
  if (!e.message.empty()) msg += ": " + e.message;
  return Error(r.status == 404 ? ErrorCode::kNotFound : ErrorCode::kIOError, msg).with_file(uri);
}

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// `chunk` written at `at`; 0 or the errno of the failure (kept in errno for the caller too).
int write_fully(int fd, std::string_view chunk, uint64_t at) {
  while (!chunk.empty()) {
    ssize_t w = ::pwrite(fd, chunk.data(), chunk.size(), static_cast<off_t>(at));
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    chunk.remove_prefix(static_cast<size_t>(w));
    at += static_cast<uint64_t>(w);
  }
  return 0;
}

// scheme://host[:port] and a base path ("" or "/base") of an endpoint URL.
struct Endpoint {
  std::string scheme, authority, base;
};
Result<Endpoint> parse_endpoint(const std::string& url) {
  size_t sep = url.find("://");
  if (sep == std::string::npos)
    return Error(ErrorCode::kInvalidArgument, fmt::format("endpoint '{}' is not an http:// or https:// URL", url));
  Endpoint e;
  e.scheme = url.substr(0, sep);
  if (e.scheme != "http" && e.scheme != "https")
    return Error(ErrorCode::kInvalidArgument, fmt::format("endpoint '{}' is not an http:// or https:// URL", url));
  std::string rest = url.substr(sep + 3);
  size_t slash = rest.find('/');
  e.authority = rest.substr(0, slash);
  if (slash != std::string::npos) e.base = rest.substr(slash);
  while (!e.base.empty() && e.base.back() == '/') e.base.pop_back();
  if (e.authority.empty()) return Error(ErrorCode::kInvalidArgument, fmt::format("endpoint '{}' names no host", url));
  return e;
}

// An IPv4 or bracketed IPv6 literal, or localhost: no bucket subdomain can exist there.
bool ip_or_localhost(const std::string& authority) {
  if (!authority.empty() && authority[0] == '[') return true;
  std::string host =
      authority.substr(0, authority.rfind(':') == std::string::npos ? authority.size() : authority.rfind(':'));
  if (host == "localhost") return true;
  for (char c : host)
    if (!(c == '.' || (c >= '0' && c <= '9'))) return false;
  return !host.empty();
}

}  // namespace

bool is_object_uri(std::string_view p) {
  return p.rfind("s3://", 0) == 0 || p.rfind("s3a://", 0) == 0 || p.rfind("s3p://", 0) == 0;
}

Result<ObjectUri> parse_object_uri(std::string_view p) {
  if (!is_object_uri(p)) return Error(ErrorCode::kInvalidArgument, fmt::format("'{}' is not an s3:// URI", p));
  std::string_view rest = p.substr(p.find("://") + 3);
  size_t slash = rest.find('/');
  ObjectUri u;
  u.bucket = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) u.key = std::string(rest.substr(slash + 1));
  if (u.bucket.empty()) return Error(ErrorCode::kInvalidArgument, fmt::format("'{}' names no bucket", p));
  for (char c : u.bucket)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
          (c >= 'A' && c <= 'Z')))
      return Error(ErrorCode::kInvalidArgument, fmt::format("'{}': '{}' is not a bucket name", p, u.bucket));
  return u;
}

Result<Settings> complete_settings(Settings s) {
  auto profile = profile_settings(profile_name(s.profile));
  if (!profile) return std::move(profile).error();
  auto get = [&](const char* k) {
    auto it = profile.value().find(k);
    return it == profile.value().end() ? std::string() : it->second;
  };
  if (s.endpoint.empty()) s.endpoint = env("AWS_ENDPOINT_URL_S3");
  if (s.endpoint.empty()) s.endpoint = env("AWS_ENDPOINT_URL");
  if (s.endpoint.empty()) s.endpoint = get("s3.endpoint_url");
  if (s.endpoint.empty()) s.endpoint = get("endpoint_url");
  if (s.region.empty()) s.region = env("AWS_REGION");
  if (s.region.empty()) s.region = env("AWS_DEFAULT_REGION");
  if (s.region.empty()) s.region = get("region");
  if (s.region.empty()) s.region = "us-east-1";
  if (s.addressing == Addressing::kAuto) {
    std::string style = get("s3.addressing_style");
    if (style == "path")
      s.addressing = Addressing::kPath;
    else if (style == "virtual")
      s.addressing = Addressing::kVirtual;
  }
  if (s.endpoint.empty()) s.endpoint = "https://s3." + s.region + ".amazonaws.com";
  if (s.max_attempts <= 0) {
    // As the AWS CLI and SDKs read it (their "retry behavior" setting): a count of attempts, the
    // first included.
    std::string given = env("AWS_MAX_ATTEMPTS");
    const char* from = "AWS_MAX_ATTEMPTS";
    if (given.empty()) given = get("max_attempts"), from = "the profile's max_attempts";
    s.max_attempts = 6;
    if (!given.empty()) {
      int n = 0;
      auto [end, ec] = std::from_chars(given.data(), given.data() + given.size(), n);
      if (ec != std::errc() || end != given.data() + given.size() || n < 1 || n > 100)
        return Error(ErrorCode::kInvalidArgument,
                     fmt::format("{} is '{}': expected a number of attempts from 1 to 100", from, given));
      s.max_attempts = n;
    }
  }
  auto e = parse_endpoint(s.endpoint);
  if (!e) return std::move(e).error();
  if (s.addressing == Addressing::kAuto)
    s.addressing = ip_or_localhost(e.value().authority) ? Addressing::kPath : Addressing::kVirtual;
  return s;
}

Result<std::shared_ptr<Client>> Client::create(Settings settings) {
  auto s = complete_settings(std::move(settings));
  if (!s) return std::move(s).error();
  if (s.value().no_sign) return std::shared_ptr<Client>(new Client(std::move(s).value(), {}, false));
  auto c = resolve_credentials(s.value().profile, s.value().region);
  if (!c) return std::move(c).error();
  return std::shared_ptr<Client>(new Client(std::move(s).value(), std::move(c).value(), true));
}

Result<std::shared_ptr<Client>> Client::create(Settings settings, Credentials credentials) {
  auto s = complete_settings(std::move(settings));
  if (!s) return std::move(s).error();
  bool sign = !s.value().no_sign;
  return std::shared_ptr<Client>(new Client(std::move(s).value(), std::move(credentials), sign));
}

Client::Target Client::target(const ObjectUri& uri) const {
  auto e = parse_endpoint(settings_.endpoint).value();
  Target t;
  // A bucket with dots cannot be a TLS host name's one label: path style for it.
  bool path =
      settings_.addressing == Addressing::kPath || (e.scheme == "https" && uri.bucket.find('.') != std::string::npos);
  if (path) {
    t.host = e.authority;
    t.path = e.base + "/" + uri.bucket + (uri.key.empty() ? "" : "/" + uri.key);
  } else {
    t.host = uri.bucket + "." + e.authority;
    t.path = e.base + "/" + uri.key;
  }
  t.url_base = e.scheme + "://" + t.host;
  return t;
}

Result<HttpResponse> Client::once(const ObjectUri& uri, const std::string& method, const Pairs& query,
                                  const Pairs& headers, std::string_view body,
                                  const std::function<bool(std::string_view)>& sink,
                                  const std::function<void(const Pairs&)>& on_headers, std::string* body_into) {
  Target t = target(uri);
  HttpRequest req;
  req.method = method;
  req.url = t.url_base + uri_encode(t.path, true);
  std::string q = canonical_query(query);
  if (!q.empty()) req.url += "?" + q;
  req.headers = headers;
  req.body = body;
  req.sink = sink;
  req.on_headers = on_headers;
  req.body_into = body_into;
  req.connect_timeout_ms = settings_.connect_timeout_ms;
  req.stall_timeout_ms = settings_.stall_timeout_ms;
  if (sign_) {
    SignRequest sr;
    sr.method = method;
    sr.host = t.host;
    sr.path = t.path;
    sr.query = query;
    sr.headers = headers;
    sr.payload_hash = body.empty() ? kEmptySha256 : sha256_hex(body);
    sr.amz_date = amz_date(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    sr.region = settings_.region;
    Signed s = sign_v4(sr, credentials_);
    for (auto& h : s.headers) req.headers.push_back(std::move(h));
  }
  counts_.requests++;
  counts_.bytes_up += body.size();
  return http_send(req);
}

void Client::backoff(int attempt) {
  thread_local std::mt19937 rng{std::random_device{}()};
  long cap = settings_.backoff_base_ms << std::min(attempt, 20);
  cap = std::min(cap, settings_.backoff_max_ms);
  // "Full jitter": clients that failed together do not retry together.
  long ms = std::uniform_int_distribution<long>(cap / 2, std::max(cap / 2, cap))(rng);
  counts_.retries++;
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

Result<HttpResponse> Client::send(const ObjectUri& uri, const std::string& method, const Pairs& query,
                                  const Pairs& headers, std::string_view body, std::string* body_into) {
  const std::string name = uri.to_string();
  for (int attempt = 1;; ++attempt) {
    auto r = once(uri, method, query, headers, body, {}, {}, body_into);
    bool last = attempt >= settings_.max_attempts;
    if (!r) {
      if (last)
        return Error(ErrorCode::kIOError, fmt::format("{} (gave up after {} attempts)", r.error().message, attempt))
            .with_file(name);
      backoff(attempt);
      continue;
    }
    HttpResponse& resp = r.value();
    if (resp.status >= 200 && resp.status < 300) {
      counts_.bytes_down += body_into ? body_into->size() : resp.body.size();
      return r;
    }
    ErrorBody e = parse_error_body(resp.body);
    if (retryable(resp, e) && !last) {
      backoff(attempt);
      continue;
    }
    Error err = status_error(name, resp);
    if (retryable(resp, e)) err.message += fmt::format(" (gave up after {} attempts)", attempt);
    return err;
  }
}

Result<std::string> Client::get(const ObjectUri& uri, uint64_t offset, uint64_t length) {
  Pairs headers;
  if (offset != 0 || length != UINT64_MAX) {
    if (length == 0) return std::string();
    std::string range = fmt::format("bytes={}-", offset);
    if (length != UINT64_MAX) range += std::to_string(offset + length - 1);
    headers.emplace_back("Range", range);
  }
  const bool whole = headers.empty();
  if (whole) headers.emplace_back(kChecksumModeHeader, "ENABLED");
  auto r = send(uri, "GET", {}, headers);
  if (!r) return std::move(r).error();
  if (whole) {
    BodyDigests digests = BodyDigests::of_whole_answer(r.value().headers);
    digests.add(r.value().body);
    CKPT_RETURN_IF_ERROR(digests.check(uri.to_string()));
  } else {
    CKPT_RETURN_IF_ERROR(
        check_range_answer(r.value().header("content-range"), offset, length, r.value().body.size(), uri.to_string()));
  }
  return std::move(r.value().body);
}

Status Client::get_range(const ObjectUri& uri, uint64_t offset, uint64_t length, uint64_t object_size,
                         std::string* out) {
  out->clear();
  if (length == 0) return Status::OK();
  const Pairs headers = {{"Range", fmt::format("bytes={}-{}", offset, offset + length - 1)}};
  auto r = send(uri, "GET", {}, headers, {}, out);
  if (!r) return std::move(r).error();
  return check_range_answer(r.value().header("content-range"), offset, length, out->size(), uri.to_string(),
                            object_size);
}

Status Client::download(const ObjectUri& uri, const std::string& local_path) {
  const std::string name = uri.to_string();
  int fd = ::open(local_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Error(ErrorCode::kIOError, fmt::format("cannot create: {}", std::strerror(errno))).with_file(local_path);
  uint64_t written = 0;
  bool write_failed = false;
  std::string etag;
  // Of the first answer (the whole object): what its bytes must be, resumed answers included.
  std::optional<BodyDigests> digests;
  Status range_error;  // a resumed answer that is not the rest of the object
  auto sink = [&](std::string_view chunk) {
    if (write_fully(fd, chunk, written) != 0) {
      write_failed = true;
      return false;
    }
    written += chunk.size();
    counts_.bytes_down += chunk.size();
    if (digests) digests->add(chunk);
    return true;
  };
  int failures = 0;
  Status result;
  for (;;) {
    Pairs headers;
    if (written > 0) {
      headers.emplace_back("Range", fmt::format("bytes={}-", written));
      if (!etag.empty()) headers.emplace_back("If-Match", etag);
    } else {
      headers.emplace_back(kChecksumModeHeader, "ENABLED");
    }
    uint64_t before = written;
    auto on_headers = [&](const Pairs& h) {
      for (const auto& [k, v] : h)
        if (k == "etag" && etag.empty()) etag = v;
      if (before == 0) {
        digests = BodyDigests::of_whole_answer(h);
        return;
      }
      // A resumed answer goes on where the bytes stopped, to the object's end.
      std::optional<ContentRange> range;
      for (const auto& [k, v] : h)
        if (k == "content-range") range = parse_content_range(v);
      if (!range || range->first != before || !range->total || range->last + 1 != *range->total)
        range_error = Error(ErrorCode::kCorruption, fmt::format("a download resumed at byte {} was answered with "
                                                                "other bytes (Content-Range)",
                                                                before))
                          .with_file(name);
    };
    auto r = once(
        uri, "GET", {}, headers, {}, [&](std::string_view chunk) { return range_error.ok() && sink(chunk); },
        on_headers);
    if (write_failed) {
      result = Error(ErrorCode::kIOError, fmt::format("write failed: {}", std::strerror(errno))).with_file(local_path);
      break;
    }
    if (!range_error.ok()) {
      result = std::move(range_error);
      break;
    }
    if (r && r.value().status >= 200 && r.value().status < 300) {
      if (etag.empty()) etag = r.value().header("etag");
      // A 200 to a resumed request is the whole object again: start over.
      if (before > 0 && r.value().status == 200) {
        result = Error(ErrorCode::kIOError, "the store ignored the resume range").with_file(name);
        break;
      }
      if (before == 0 && !digests) digests = BodyDigests::of_whole_answer(r.value().headers);  // an empty body
      std::string length = r.value().header("content-length");
      if (!length.empty() && written - before != std::strtoull(length.c_str(), nullptr, 10)) {
        // Cut short without a transport error: resume as for a dropped connection.
        r = Error(ErrorCode::kIOError, "connection closed before the whole body arrived");
      } else {
        if (digests) result = digests->check(name);
        break;
      }
    }
    // Progress resets the count: a long download through a flaky link still finishes.
    if (written > before) failures = 0;
    ++failures;
    bool again;
    Error err;
    if (!r) {
      again = true;
      err = std::move(r).error();
    } else {
      ErrorBody e = parse_error_body(r.value().body);
      again = retryable(r.value(), e);
      err = status_error(name, r.value());
      if (etag.empty()) etag = r.value().header("etag");
    }
    if (!again || failures >= settings_.max_attempts) {
      if (again) err.message += fmt::format(" (gave up after {} attempts)", failures);
      result = std::move(err).with_file(name);
      break;
    }
    backoff(failures);
  }
  if (::close(fd) != 0 && result.ok())
    result = Error(ErrorCode::kIOError, fmt::format("close failed: {}", std::strerror(errno))).with_file(local_path);
  if (!result.ok()) ::unlink(local_path.c_str());
  return result;
}

Status Client::fetch_range(const ObjectUri& uri, int fd, uint64_t offset, uint64_t length, std::string* etag,
                           Pairs* first_headers) {
  const std::string name = uri.to_string();
  uint64_t written = 0;
  int write_errno = 0;
  auto sink = [&](std::string_view chunk) {
    if (written + chunk.size() > length) return false;  // more than asked for
    if ((write_errno = write_fully(fd, chunk, offset + written)) != 0) return false;
    written += chunk.size();
    counts_.bytes_down += chunk.size();
    return true;
  };
  for (int failures = 0;;) {
    if (written == length) return {};
    Pairs headers = {{"Range", fmt::format("bytes={}-{}", offset + written, offset + length - 1)}};
    if (!etag->empty()) headers.emplace_back("If-Match", *etag);
    const uint64_t before = written;
    Status range_error;
    auto r = once(
        uri, "GET", {}, headers, {}, [&](std::string_view chunk) { return range_error.ok() && sink(chunk); },
        [&](const Pairs& h) {
          for (const auto& [k, v] : h)
            if (k == "etag" && etag->empty()) *etag = v;
          if (first_headers && first_headers->empty()) *first_headers = h;
          // The rest of the part asked for, no other bytes of the object.
          std::string range;
          for (const auto& [k, v] : h)
            if (k == "content-range") range = v;
          std::optional<ContentRange> cr = parse_content_range(range);
          if (!cr || cr->first != offset + before || cr->last != offset + length - 1)
            range_error =
                Error(ErrorCode::kCorruption, fmt::format("bytes {}-{} asked for, the answer's Content-Range is '{}'",
                                                          offset + before, offset + length - 1, range))
                    .with_file(name);
        });
    if (write_errno != 0)
      return Error(ErrorCode::kIOError, fmt::format("write failed: {}", std::strerror(write_errno)));
    if (!range_error.ok()) return range_error;
    if (r && r.value().status == 206 && written == length) return {};
    if (r && r.value().status == 200)
      return Error(ErrorCode::kIOError, "the store ignored the range of a ranged GET").with_file(name);
    if (written > before) failures = 0;
    ++failures;
    bool again = true;
    Error err;
    if (!r) {
      err = std::move(r).error();
    } else if (r.value().status == 206) {
      err = Error(ErrorCode::kIOError, "connection closed before the whole part arrived");
    } else {
      again = retryable(r.value(), parse_error_body(r.value().body));
      err = status_error(name, r.value());
    }
    if (!again || failures >= settings_.max_attempts) {
      if (again) err.message += fmt::format(" (gave up after {} attempts)", failures);
      return std::move(err).with_file(name);
    }
    backoff(failures);
  }
}

Status Client::download_parts(const ObjectUri& uri, const std::string& local_path, uint64_t size, int jobs) {
  int fd = ::open(local_path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Error(ErrorCode::kIOError, fmt::format("cannot create: {}", std::strerror(errno))).with_file(local_path);
  const uint64_t part = std::max<uint64_t>(settings_.part_size, 1);
  const uint64_t parts = size == 0 ? 0 : (size + part - 1) / part;
  std::string etag;
  Status result;
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0)
    result = Error(ErrorCode::kIOError, fmt::format("cannot size: {}", std::strerror(errno))).with_file(local_path);
  // The first part alone: its answer's ETag pins every other part to the same object version.
  Pairs first_headers;
  if (result.ok() && parts > 0) result = fetch_range(uri, fd, 0, std::min(part, size), &etag, &first_headers);
  if (result.ok() && parts > 1)
    result = run_parallel(parts - 1, std::max(1, jobs), [&](size_t i) {
      std::string pinned = etag;
      const uint64_t off = (i + 1) * part;
      return fetch_range(uri, fd, off, std::min(part, size - off), &pinned, nullptr);
    });
  // All of it against the ETag, where that is its MD5: read back from the file.
  if (result.ok()) {
    BodyDigests digests = BodyDigests::of_parts(first_headers, size);
    std::string buffer(size_t{1} << 20, '\0');
    for (uint64_t at = 0; result.ok() && at < size;) {
      ssize_t n = ::pread(fd, buffer.data(), std::min<uint64_t>(buffer.size(), size - at), static_cast<off_t>(at));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        result = Error(ErrorCode::kIOError, n < 0 ? std::strerror(errno) : "file shrank while read", at)
                     .with_file(local_path);
        break;
      }
      digests.add(std::string_view(buffer.data(), static_cast<size_t>(n)));
      at += static_cast<uint64_t>(n);
    }
    if (result.ok()) result = digests.check(uri.to_string());
  }
  if (::close(fd) != 0 && result.ok())
    result = Error(ErrorCode::kIOError, fmt::format("close failed: {}", std::strerror(errno))).with_file(local_path);
  if (!result.ok()) ::unlink(local_path.c_str());
  return result;
}

Result<ObjectInfo> Client::head(const ObjectUri& uri) {
  auto r = send(uri, "HEAD", {});
  if (!r) return std::move(r).error();
  ObjectInfo o;
  o.key = uri.key;
  o.size = std::strtoull(r.value().header("content-length").c_str(), nullptr, 10);
  return o;
}

Status Client::put(const ObjectUri& uri, std::string_view bytes) {
  auto r = send(uri, "PUT", {}, {{"Content-Type", "application/octet-stream"}}, bytes);
  if (!r) return std::move(r).error();
  return {};
}

Status Client::upload_file(const ObjectUri& uri, const std::string& local_path) {
  auto in = open_regular_input(local_path);
  if (!in) return std::move(in).error();
  const int fd = in.value().fd;
  const uint64_t size = in.value().size;
  auto read_at = [&](uint64_t offset, size_t n, std::string* out) -> Status {
    out->resize(n);
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd, out->data() + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0)
        return Error(ErrorCode::kIOError, r < 0 ? std::strerror(errno) : "file shrank while read", offset + done)
            .with_file(local_path);
      done += static_cast<size_t>(r);
    }
    return {};
  };
  Status result;
  std::string buffer;
  if (size <= settings_.multipart_threshold) {
    result = read_at(0, size, &buffer);
    if (result.ok()) result = put(uri, buffer);
    ::close(fd);
    return result;
  }
  const std::string name = uri.to_string();
  auto init = send(uri, "POST", {{"uploads", ""}});
  if (!init) {
    ::close(fd);
    return std::move(init).error();
  }
  auto id = parse_upload_id(init.value().body, name);
  if (!id) {
    ::close(fd);
    return std::move(id).error();
  }
  std::string complete = "<CompleteMultipartUpload>";
  const uint64_t part = std::max<uint64_t>(settings_.part_size, uint64_t{5} << 20);
  for (uint64_t off = 0, number = 1; off < size && result.ok(); off += part, ++number) {
    result = read_at(off, static_cast<size_t>(std::min(part, size - off)), &buffer);
    if (!result.ok()) break;
    auto r = send(uri, "PUT", {{"partNumber", std::to_string(number)}, {"uploadId", id.value()}}, {}, buffer);
    if (!r) {
      result = std::move(r).error().with_context(fmt::format("part {}", number));
      break;
    }
    complete += fmt::format("<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>", number,
                            xml_escape(r.value().header("etag")));
  }
  ::close(fd);
  complete += "</CompleteMultipartUpload>";
  if (result.ok()) {
    auto r = send(uri, "POST", {{"uploadId", id.value()}}, {{"Content-Type", "application/xml"}}, complete);
    if (!r) result = std::move(r).error();
    // CompleteMultipartUpload can fail after its 200: the error is then in the body.
    else if (!parse_error_body(r.value().body).code.empty())
      result = status_error(name, r.value());
  }
  if (!result.ok()) (void)send(uri, "DELETE", {{"uploadId", id.value()}});  // nothing partial left behind
  return result;
}

Result<ListPage> Client::list(const ObjectUri& prefix, const std::string& delimiter) {
  ListPage all;
  std::string token;
  const ObjectUri bucket{prefix.bucket, ""};
  for (;;) {
    Pairs q = {{"list-type", "2"}, {"prefix", prefix.key}};
    if (settings_.list_page_size > 0) q.emplace_back("max-keys", std::to_string(settings_.list_page_size));
    if (!delimiter.empty()) q.emplace_back("delimiter", delimiter);
    if (!token.empty()) q.emplace_back("continuation-token", token);
    auto r = send(bucket, "GET", q);
    if (!r) {
      Error e = std::move(r).error();
      e.file = prefix.to_string();  // the listing asked for, not the bucket it was sent to
      return e;
    }
    auto page = parse_list_objects_v2(r.value().body, prefix.to_string());
    if (!page) return std::move(page).error();
    for (auto& o : page.value().objects) all.objects.push_back(std::move(o));
    for (auto& p : page.value().common_prefixes) all.common_prefixes.push_back(std::move(p));
    if (!page.value().truncated) break;
    if (page.value().next_token == token)
      return Error(ErrorCode::kCorruption, "listing repeats its continuation token").with_file(prefix.to_string());
    token = page.value().next_token;
  }
  return all;
}

Result<std::vector<DeleteFailure>> Client::delete_objects(const std::string& bucket,
                                                          const std::vector<std::string>& keys,
                                                          const std::function<void(size_t, size_t)>& log) {
  std::vector<DeleteFailure> failures;
  const ObjectUri b{bucket, ""};
  const size_t batch = std::clamp<size_t>(settings_.delete_batch, 1, 1000);
  for (size_t first = 0; first < keys.size(); first += batch) {
    size_t n = std::min(batch, keys.size() - first);
    std::string body = "<Delete><Quiet>true</Quiet>";
    for (size_t i = first; i < first + n; ++i) body += "<Object><Key>" + xml_escape(keys[i]) + "</Key></Object>";
    body += "</Delete>";
    if (log) log(first, n);
    auto r = send(b, "POST", {{"delete", ""}}, {{"Content-MD5", md5_base64(body)}, {"Content-Type", "application/xml"}},
                  body);
    if (!r) return std::move(r).error();
    auto f = parse_delete_result(r.value().body, b.to_string());
    if (!f) return std::move(f).error();
    for (auto& x : f.value()) failures.push_back(std::move(x));
  }
  return failures;
}

}  // namespace ckpt::s3
