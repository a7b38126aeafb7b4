// The plain-HTTP transport of the object-store client (s3/plain_http.cc) against a scripted
// server on loopback: kept connections, one the server closed in between, chunked bodies, error
// bodies beside a sink, a server that never answers, and a port nobody listens on.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "s3/http.h"
#include "s3/http_transport.h"

using namespace ckpt;
using namespace ckpt::s3;

namespace {

// Listens on 127.0.0.1; each accepted connection is given to `serve` with its number (from 0)
// on the server's thread, one connection at a time, `connections` in all.
class ScriptedServer {
 public:
  ScriptedServer(int connections, std::function<void(int fd, int n)> serve) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd_, 8) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this, connections, serve] {
      for (int n = 0; n < connections; ++n) {
        int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        accepted_++;
        serve(c, n);
        ::close(c);
      }
    });
  }
  ~ScriptedServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  int accepted() const { return accepted_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

// One request's head, read up to its blank line ("" when the peer closed first).
std::string read_head(int fd) {
  std::string head;
  char c;
  while (head.find("\r\n\r\n") == std::string::npos && ::read(fd, &c, 1) == 1) head += c;
  return head;
}

void write_all(int fd, const std::string& s) {
  size_t at = 0;
  while (at < s.size()) {
    ssize_t n = ::write(fd, s.data() + at, s.size() - at);
    if (n <= 0) return;
    at += static_cast<size_t>(n);
  }
}

HttpRequest get(const std::string& url) {
  HttpRequest r;
  r.url = url;
  r.connect_timeout_ms = 2000;
  r.stall_timeout_ms = 5000;
  return r;
}

}  // namespace

TEST_CASE("plain http keeps a connection and sends again on a new one when the server closed it",
          "[s3][http]") {
  std::string heads[2];
  ScriptedServer server(2, [&](int fd, int n) {
    if (n == 0) {
      heads[0] = read_head(fd);
      write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Amz-Request-Id: A1\r\n\r\nhello");
      heads[1] = read_head(fd);
      write_all(fd, "HTTP/1.1 206 Partial Content\r\nContent-Length: 3\r\n\r\nabc");
      return;  // closed: the next request's kept connection is dead
    }
    read_head(fd);
    write_all(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                  "4\r\nwiki\r\n5\r\npedia\r\n0\r\n\r\n");
  });
  REQUIRE(plain_http_can_send(server.url("/b/k")));
  HttpRequest first = get(server.url("/b/k?x=1"));
  first.headers = {{"x-amz-date", "20261205T000000Z"}};
  auto a = http_send(first);
  REQUIRE(a.ok());
  CHECK(a.value().status == 200);
  CHECK(a.value().body == "hello");
  CHECK(a.value().header("x-amz-request-id") == "A1");  // names lower-cased
  CHECK(heads[0].rfind("GET /b/k?x=1 HTTP/1.1\r\n", 0) == 0);
  CHECK(heads[0].find("Host: 127.0.0.1:") != std::string::npos);
  CHECK(heads[0].find("x-amz-date: 20261205T000000Z\r\n") != std::string::npos);

  std::string into = "stale";
  HttpRequest second = get(server.url("/b/k"));
  second.body_into = &into;
  auto b = http_send(second);
  REQUIRE(b.ok());
  CHECK(b.value().status == 206);
  CHECK(into == "abc");
  CHECK(b.value().body.empty());
  CHECK(server.accepted() == 1);  // the same connection

  std::string sunk;
  HttpRequest third = get(server.url("/b/k"));
  third.sink = [&](std::string_view chunk) {
    sunk.append(chunk);
    return true;
  };
  auto c = http_send(third);
  REQUIRE(c.ok());
  CHECK(c.value().status == 200);
  CHECK(sunk == "wikipedia");
  CHECK(server.accepted() == 2);
}

TEST_CASE("plain http gives an error body to the response beside a sink and stops at a refusing sink",
          "[s3][http]") {
  ScriptedServer server(2, [&](int fd, int n) {
    read_head(fd);
    if (n == 0)
      write_all(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 15\r\nConnection: close\r\n\r\n<Error></Error>");
    else
      write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + std::string(100000, 'x'));
  });
  bool sink_called = false;
  HttpRequest missing = get(server.url("/b/none"));
  missing.sink = [&](std::string_view) { return sink_called = true; };
  auto r = http_send(missing);
  REQUIRE(r.ok());
  CHECK(r.value().status == 404);
  CHECK(r.value().body == "<Error></Error>");
  CHECK_FALSE(sink_called);

  HttpRequest refused = get(server.url("/b/big"));
  refused.sink = [](std::string_view) { return false; };
  auto s = http_send(refused);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("download stopped") != std::string::npos);
}

TEST_CASE("plain http gives up on a server that never answers and on a port nobody listens on", "[s3][http]") {
  ScriptedServer silent(1, [](int fd, int) {
    read_head(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  });
  HttpRequest r = get(silent.url("/b/k"));
  r.stall_timeout_ms = 300;
  const auto start = std::chrono::steady_clock::now();
  auto a = http_send(r);
  const auto took = std::chrono::steady_clock::now() - start;
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().code == ErrorCode::kIOError);
  CHECK(a.error().message.find("nothing for 300 ms") != std::string::npos);
  CHECK(took < std::chrono::milliseconds(1400));

  int port = 0;
  {
    ScriptedServer gone(0, [](int, int) {});
    port = std::stoi(gone.url("").substr(std::string("http://127.0.0.1:").size()));
  }
  auto b = http_send(get("http://127.0.0.1:" + std::to_string(port) + "/b/k"));
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().message.find("cannot connect") != std::string::npos);
  CHECK(b.error().file == "http://127.0.0.1:" + std::to_string(port) + "/b/k");
}
