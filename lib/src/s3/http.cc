#include "s3/http.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "s3/http_transport.h"

namespace ckpt::s3 {

std::string HttpResponse::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (k == name) return v;
  return {};
}

Result<HttpResponse> http_send(const HttpRequest& request) {
  return plain_http_can_send(request.url) ? plain_http_send(request) : curl_http_send(request);
}

namespace {

// The body's room at once, as its Content-Length announces it (at most what is collected): a
// body grown by doubling holds the old and the new buffer at once, 1.5 times its size.
void reserve_announced(const HttpResponse& response, std::string* body) {
  for (const auto& [name, value] : response.headers) {
    if (name != "content-length") continue;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(value.c_str(), &end, 10);
    if (end != value.c_str() && *end == '\0') body->reserve(std::min<unsigned long long>(n, kMaxCollectedBody));
    return;
  }
}

}  // namespace

AnswerBody::AnswerBody(const HttpRequest& request, HttpResponse& response) : request_(request), response_(response) {
  if (request_.body_into) request_.body_into->clear();
}

bool AnswerBody::add(std::string_view chunk) {
  const long status = response_.status;
  const bool success = status >= 200 && status < 300;
  if (request_.sink && success) {
    if (!headers_reported_ && request_.on_headers) request_.on_headers(response_.headers);
    headers_reported_ = true;
    if (!request_.sink(chunk)) sink_stopped_ = true;
    return !sink_stopped_;
  }
  std::string* body = request_.body_into && success ? request_.body_into : &response_.body;
  if (body->size() + chunk.size() > kMaxCollectedBody) {
    too_large_ = true;
    return false;
  }
  if (body->empty()) reserve_announced(response_, body);
  body->append(chunk);
  return true;
}

Result<HttpResponse> AnswerBody::finish(Status transport) {
  if (sink_stopped_)
    return Error(ErrorCode::kIOError, "download stopped: the local copy could not be written").with_file(request_.url);
  if (too_large_)
    return Error(ErrorCode::kIOError, fmt::format("answer larger than {} bytes", kMaxCollectedBody))
        .with_file(request_.url);
  if (!transport.ok()) return std::move(transport).error();
  return std::move(response_);
}

}  // namespace ckpt::s3
