// s3/http.h - one HTTP exchange through libcurl, nothing S3-specific. Each thread keeps its
// own connection (curl easy handle) so that a run of requests to one endpoint reuses it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ckpt/error.h"
#include "s3/sigv4.h"

namespace ckpt::s3 {

struct HttpRequest {
  std::string method = "GET";
  std::string url;  // already percent-encoded
  Pairs headers;
  std::string_view body;  // sent as is (PUT, POST)
  // Receives a 2xx answer's body as it arrives (downloads); false stops the transfer. Without
  // it the body is collected into HttpResponse::body, up to kMaxCollectedBody.
  std::function<bool(std::string_view)> sink;
  // Called with a 2xx answer's headers before its first body byte reaches `sink`: a transfer
  // cut short is an Error, and the headers (an ETag to resume against) would be lost with it.
  std::function<void(const Pairs& headers)> on_headers;
  // Without a sink, where a 2xx answer's body is collected instead of HttpResponse::body: the
  // caller's buffer, reused (cleared first), so that reading ranges allocates nothing per read.
  std::string* body_into = nullptr;
  long connect_timeout_ms = 10000;
  // A transfer slower than one byte a second for this long is given up (a stalled connection).
  long stall_timeout_ms = 30000;
};

struct HttpResponse {
  long status = 0;
  Pairs headers;     // names lower-cased
  std::string body;  // error bodies always land here, whatever the sink
  std::string header(std::string_view name) const;
};

inline constexpr size_t kMaxCollectedBody = size_t{256} << 20;

// kIOError for a transport failure (refused, reset, timed out, cut short): the caller decides
// whether to retry. An HTTP error status is a response, not an Error.
Result<HttpResponse> http_send(const HttpRequest& request);

}  // namespace ckpt::s3
