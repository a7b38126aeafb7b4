// libcurl's side of http_send (s3/http_transport.h): TLS endpoints and proxies.
#include <algorithm>
#include <cstring>

#include "s3/curl_library.h"
#include "s3/http_transport.h"

namespace ckpt::s3 {

namespace {

struct Exchange {
  HttpResponse* response;
  const HttpRequest* request;
  AnswerBody* body;
  size_t sent = 0;
};

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* x = static_cast<Exchange*>(user);
  std::string_view line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    x->response->headers.clear();  // a 100 Continue's headers come first
    return size * n;
  }
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    for (char& c : name)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
      value.remove_suffix(1);
    x->response->headers.emplace_back(std::move(name), std::string(value));
  }
  return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* x = static_cast<Exchange*>(user);
  return x->body->add(std::string_view(data, size * n)) ? size * n : 0;
}

size_t on_read(char* buffer, size_t size, size_t n, void* user) {
  auto* x = static_cast<Exchange*>(user);
  std::string_view body = x->request->body;
  size_t take = std::min(size * n, body.size() - x->sent);
  std::memcpy(buffer, body.data() + x->sent, take);
  x->sent += take;
  return take;
}

// One handle per thread: its connection cache keeps the endpoint's connection open.
struct CurlHandle {
  Result<const CurlLibrary*> lib = curl_library();
  CURL* curl = lib.ok() ? (*lib)->easy_init() : nullptr;
  ~CurlHandle() {
    if (curl) (*lib)->easy_cleanup(curl);
  }
};

}  // namespace

Result<HttpResponse> curl_http_send(const HttpRequest& request) {
  CurlHandle& handle = kept_for_this_process<CurlHandle>();
  if (!handle.lib.ok()) return Error(handle.lib.error()).with_file(request.url);
  const CurlLibrary& c = **handle.lib;
  CURL* curl = handle.curl;
  if (!curl) return Error(ErrorCode::kIOError, "cannot initialise libcurl").with_file(request.url);
  c.easy_reset(curl);
  HttpResponse response;
  AnswerBody body(request, response);
  Exchange x{&response, &request, &body};

  c.easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  c.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  c.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  c.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  c.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, request.connect_timeout_ms);
  c.easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  c.easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, std::max(1L, request.stall_timeout_ms / 1000));
  c.easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  c.easy_setopt(curl, CURLOPT_HEADERDATA, &x);
  c.easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  c.easy_setopt(curl, CURLOPT_WRITEDATA, &x);

  if (request.method == "HEAD") {
    c.easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method == "PUT" || request.method == "POST") {
    c.easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    c.easy_setopt(curl, CURLOPT_READFUNCTION, on_read);
    c.easy_setopt(curl, CURLOPT_READDATA, &x);
    c.easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    if (request.method == "POST") c.easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "POST");
  } else if (request.method != "GET") {
    c.easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }

  curl_slist* headers = nullptr;
  for (const auto& [k, v] : request.headers) headers = c.slist_append(headers, (k + ": " + v).c_str());
  // curl would otherwise add "Expect: 100-continue" to uploads (unsigned, and a round trip).
  headers = c.slist_append(headers, "Expect:");
  if (request.method == "PUT" || request.method == "POST") headers = c.slist_append(headers, "Transfer-Encoding:");
  c.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);

  // The status is known before the first body byte: on_body needs it to route the bytes.
  c.easy_setopt(
      curl, CURLOPT_HEADERFUNCTION, +[](char* d, size_t s, size_t n, void* u) -> size_t {
        auto* ex = static_cast<Exchange*>(u);
        std::string_view line(d, s * n);
        if (line.rfind("HTTP/", 0) == 0) {
          size_t sp = line.find(' ');
          long status = 0;
          for (size_t i = sp + 1; sp != std::string_view::npos && i < line.size() && line[i] >= '0' && line[i] <= '9';
               ++i)
            status = status * 10 + (line[i] - '0');
          ex->response->status = status;
        }
        return on_header(d, s, n, u);
      });

  CURLcode rc = c.easy_perform(curl);
  c.slist_free_all(headers);
  if (rc != CURLE_OK) return body.finish(Error(ErrorCode::kIOError, c.easy_strerror(rc)).with_file(request.url));
  long status = 0;
  c.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  response.status = status;
  return body.finish(Status::OK());
}

}  // namespace ckpt::s3
