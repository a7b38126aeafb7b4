// Plain HTTP/1.1 over a socket, through Boost.Beast (headers only: nothing loaded at run time).
// Each thread keeps one connection to the last origin it spoke to, as libcurl's handle does.
// Every socket step runs on the thread's own io_context under a deadline, so that a connect
// that hangs, or a transfer that stalls, ends in an Error instead of a wait without end.
#include <fmt/format.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <vector>

#include "s3/http_transport.h"

namespace ckpt::s3 {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

// What a curl URL names that a socket needs: http://authority/target.
struct PlainUrl {
  std::string authority;  // host[:port], as the Host header (and the signature) spell it
  std::string host;       // without brackets for an IPv6 literal
  std::string port = "80";
  std::string target = "/";
};

constexpr std::string_view kScheme = "http://";

bool parse(std::string_view url, PlainUrl& out) {
  if (url.substr(0, kScheme.size()) != kScheme) return false;
  url.remove_prefix(kScheme.size());
  const size_t slash = url.find_first_of("/?");
  out.authority = std::string(url.substr(0, slash));
  if (slash != std::string_view::npos) {
    out.target = std::string(url.substr(slash));
    if (out.target.front() == '?') out.target.insert(out.target.begin(), '/');
  }
  std::string_view a = out.authority;
  if (a.empty() || a.find('@') != std::string_view::npos) return false;  // user:password@ is curl's
  size_t colon = a.rfind(':');
  if (!a.empty() && a.front() == '[') {
    const size_t close = a.find(']');
    if (close == std::string_view::npos) return false;
    out.host = std::string(a.substr(1, close - 1));
    colon = close + 1 < a.size() && a[close + 1] == ':' ? close + 1 : std::string_view::npos;
  } else {
    out.host = std::string(a.substr(0, colon));
  }
  if (colon != std::string_view::npos) {
    out.port = std::string(a.substr(colon + 1));
    if (out.port.empty() || out.port.find_first_not_of("0123456789") != std::string::npos) return false;
  }
  return !out.host.empty();
}

bool set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

constexpr size_t kReadRoom = size_t{64} << 10;

// The thread's connection, kept open while the server keeps it alive.
struct Connection {
  asio::io_context ioc{1};
  beast::tcp_stream stream{ioc};
  // Beast reads into it as much as its free room (at least 512 bytes): room for a large read
  // keeps a download's reads large (the parser moves the body out of it into `chunk`).
  beast::flat_buffer buffer;
  std::string origin;  // host:port it is open to; empty when closed
  std::vector<char> chunk = std::vector<char>(kReadRoom);

  Connection() { buffer.reserve(kReadRoom); }
  void close() {
    beast::error_code ignored;
    stream.socket().close(ignored);
    buffer.clear();
    origin.clear();
  }
};

// Runs one asynchronous socket step to its end, giving up (and closing the socket) after
// `timeout_ms` without completion.
template <typename Start>
beast::error_code step(Connection& c, long timeout_ms, Start start) {
  beast::error_code result = asio::error::would_block;
  c.stream.expires_after(std::chrono::milliseconds(std::max(1L, timeout_ms)));
  start([&result](beast::error_code ec, auto&&...) { result = ec; });
  c.ioc.restart();
  c.ioc.run();
  return result;
}

std::string describe(const beast::error_code& ec, long timeout_ms, const char* doing) {
  if (ec == beast::error::timeout) return fmt::format("{}: nothing for {} ms", doing, timeout_ms);
  return fmt::format("{}: {}", doing, ec.message());
}

Status connect(Connection& c, const PlainUrl& url, long timeout_ms) {
  c.close();
  tcp::resolver resolver(c.ioc);
  beast::error_code ec;
  auto endpoints = resolver.resolve(url.host, url.port, ec);
  if (ec) return Error(ErrorCode::kIOError, fmt::format("cannot resolve {}: {}", url.host, ec.message()));
  ec = step(c, timeout_ms, [&](auto done) { c.stream.async_connect(endpoints, done); });
  if (ec) {
    c.close();
    return Error(ErrorCode::kIOError, describe(ec, timeout_ms, "cannot connect"));
  }
  // A request's head and body go out as written: no wait for an acknowledgement (Nagle).
  c.stream.socket().set_option(tcp::no_delay(true), ec);
  c.origin = url.authority;
  return Status::OK();
}

using Request = bhttp::request<bhttp::span_body<const char>>;

Request make_request(const HttpRequest& request, const PlainUrl& url) {
  Request req;
  req.version(11);
  const bhttp::verb verb = bhttp::string_to_verb(request.method);
  if (verb == bhttp::verb::unknown)
    req.method_string(request.method);
  else
    req.method(verb);
  req.target(url.target);
  // The authority as the URL spells it, which is what the request's signature covers.
  req.set(bhttp::field::host, url.authority);
  for (const auto& [name, value] : request.headers) req.insert(name, value);
  if (request.method == "PUT" || request.method == "POST" || !request.body.empty()) {
    req.body() = beast::span<const char>(request.body.data(), request.body.size());
    req.content_length(request.body.size());
  }
  return req;
}

// The request written, step by step (each step under the stall deadline: a large upload takes
// as long as it takes while bytes move).
Status write_request(Connection& c, Request& req, long stall_ms) {
  bhttp::request_serializer<bhttp::span_body<const char>> sr{req};
  while (!sr.is_done()) {
    auto ec = step(c, stall_ms, [&](auto done) { bhttp::async_write_some(c.stream, sr, done); });
    if (ec) return Error(ErrorCode::kIOError, describe(ec, stall_ms, "cannot send the request"));
  }
  return Status::OK();
}

struct Outcome {
  Status status;
  bool answered = false;  // a byte of the answer arrived: the request cannot be sent again
};

Outcome exchange(Connection& c, const HttpRequest& request, Request& req, HttpResponse& response, AnswerBody& body) {
  if (auto w = write_request(c, req, request.stall_timeout_ms); !w.ok()) return {std::move(w)};
  bhttp::response_parser<bhttp::buffer_body> parser;
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());  // AnswerBody bounds what is kept
  if (request.method == "HEAD") parser.skip(true);
  auto ec = step(c, request.stall_timeout_ms,
                 [&](auto done) { bhttp::async_read_header(c.stream, c.buffer, parser, done); });
  if (ec) return {Error(ErrorCode::kIOError, describe(ec, request.stall_timeout_ms, "no answer")), false};
  response.status = parser.get().result_int();
  for (const auto& field : parser.get()) {
    std::string name(field.name_string());
    for (char& ch : name)
      if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    response.headers.emplace_back(std::move(name), std::string(field.value()));
  }
  while (!parser.is_done()) {
    parser.get().body().data = c.chunk.data();
    parser.get().body().size = c.chunk.size();
    ec = step(c, request.stall_timeout_ms,
              [&](auto done) { bhttp::async_read_some(c.stream, c.buffer, parser, done); });
    if (ec == bhttp::error::need_buffer) ec = {};
    const size_t got = c.chunk.size() - parser.get().body().size;
    if (got > 0 && !body.add(std::string_view(c.chunk.data(), got))) {
      c.close();  // the rest of the body is not wanted: the connection cannot be reused
      return {Status::OK(), true};
    }
    if (ec) return {Error(ErrorCode::kIOError, describe(ec, request.stall_timeout_ms, "answer cut short")), true};
  }
  if (!parser.get().keep_alive()) c.close();
  return {Status::OK(), true};
}

}  // namespace

bool plain_http_can_send(std::string_view url) {
  PlainUrl parsed;
  // A proxy is libcurl's to honour (with no_proxy's exceptions), as before.
  return parse(url, parsed) && !set("http_proxy") && !set("HTTP_PROXY") && !set("all_proxy") && !set("ALL_PROXY");
}

Result<HttpResponse> plain_http_send(const HttpRequest& request) {
  Connection& c = kept_for_this_process<Connection>();
  PlainUrl url;
  if (!parse(request.url, url))
    return Error(ErrorCode::kInvalidArgument, "not a plain http:// URL").with_file(request.url);
  Request req = make_request(request, url);
  // A kept connection the server has since closed fails before any answer: that one failure
  // is the connection's, not the request's, and a new connection is tried at once.
  for (int attempt = 0;; ++attempt) {
    const bool reused = c.origin == url.authority && c.stream.socket().is_open();
    if (!reused) {
      if (auto s = connect(c, url, request.connect_timeout_ms); !s.ok())
        return Error(std::move(s).error()).with_file(request.url);
    }
    HttpResponse response;
    AnswerBody body(request, response);
    Outcome o = exchange(c, request, req, response, body);
    if (!o.status.ok()) c.close();
    if (!o.status.ok() && reused && !o.answered && attempt == 0) continue;
    return body.finish(o.status.ok() ? Status::OK() : Status(std::move(o.status).error().with_file(request.url)));
  }
}

}  // namespace ckpt::s3
