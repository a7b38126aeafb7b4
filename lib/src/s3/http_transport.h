// s3/http_transport.h - the two ways http_send (s3/http.h) carries an exchange, and what both
// do with an answer's body. Plain `http://` without a proxy goes through Boost.Beast over a
// socket (s3/plain_http.cc): nothing is loaded for it. Everything else (TLS, proxies) goes
// through libcurl (s3/curl_http.cc), loaded on first use: 25 ms and ~4.5 MiB of libraries that a
// loopback or in-cluster store over plain HTTP does not need.
#pragma once

#include <memory>
#include <string_view>

#include "ckpt/error.h"
#include "s3/http.h"
#include "support/fork_generation.h"

namespace ckpt::s3 {

// Where an answer's body goes, as HttpRequest promises: a 2xx answer's to the sink (after
// on_headers) or the caller's buffer, anything else to HttpResponse::body, never more than
// kMaxCollectedBody collected. The transport sets response.status and .headers (names
// lower-cased) before the first add().
class AnswerBody {
 public:
  AnswerBody(const HttpRequest& request, HttpResponse& response);
  // False stops the transfer: the sink refused the bytes or the collected body is too large.
  bool add(std::string_view chunk);
  // The exchange's outcome: `transport` is the transport's own failure, if any (a refused or
  // too-large body is reported first: the transport only saw the transfer stopped).
  Result<HttpResponse> finish(Status transport);

 private:
  const HttpRequest& request_;
  HttpResponse& response_;
  bool too_large_ = false;
  bool sink_stopped_ = false;
  bool headers_reported_ = false;
};

// The calling thread's `T` (a kept connection), made again in a child forked after it was made:
// the parent's is shared with the child (one socket, one event queue, one connection cache), and
// requests of both would cross on it. The child's copy of the parent's is left as it is (closing
// it would also take the parent's socket out of their shared event queue).
template <class T>
T& kept_for_this_process() {
  thread_local std::unique_ptr<T> kept;
  thread_local unsigned kept_in = 0;
  if (!kept || kept_in != fork_generation()) {
    (void)kept.release();  // the parent's, if any
    kept = std::make_unique<T>();
    kept_in = fork_generation();
  }
  return *kept;
}

// True when `url` is plain http:// and no proxy variable applies: plain_http_send can carry it.
bool plain_http_can_send(std::string_view url);
Result<HttpResponse> plain_http_send(const HttpRequest& request);
Result<HttpResponse> curl_http_send(const HttpRequest& request);

}  // namespace ckpt::s3
