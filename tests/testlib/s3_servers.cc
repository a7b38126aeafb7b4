#include "testlib/s3_servers.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "s3/http.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;

namespace ckpt::test {

namespace {

std::string make_dir() {
  std::string tmpl = fs::temp_directory_path().string() + "/ckpt-s3-XXXXXX";
  char* d = ::mkdtemp(tmpl.data());
  return d ? std::string(d) : std::string();
}

std::string between(const std::string& s, const std::string& open, const std::string& close) {
  size_t a = s.find(open);
  if (a == std::string::npos) return {};
  a += open.size();
  size_t b = s.find(close, a);
  return b == std::string::npos ? std::string() : s.substr(a, b - a);
}

}  // namespace

bool on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (!dir.empty() && ::access((dir + "/" + name).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

std::string moto_missing() {
  if (on_path("moto_server")) return {};
  return "moto_server is not on PATH: Debian does not package moto; pip install 'moto[server]' (in a virtual "
         "environment, or pipx) provides it";
}

ServerProcess::ServerProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                             const std::string& log) {
  pid_ = ::fork();
  if (pid_ == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null = ::open("/dev/null", O_RDONLY);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    if (null >= 0) ::dup2(null, 0);
    for (const std::string& e : env) ::putenv(::strdup(e.c_str()));
    std::vector<char*> raw;
    for (const std::string& a : argv) raw.push_back(::strdup(a.c_str()));
    raw.push_back(nullptr);
    ::execvp(raw[0], raw.data());
    ::_exit(127);
  }
}

ServerProcess::~ServerProcess() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    int status;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid_, SIGKILL);
  int status;
  ::waitpid(pid_, &status, 0);
}

bool ServerProcess::running() const {
  if (pid_ <= 0) return false;
  int status;
  return ::waitpid(pid_, &status, WNOHANG) == 0;
}

int free_loopback_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(s);
  return port;
}

int port_in_log(const std::string& log, const std::string& before, double seconds, const ServerProcess& server) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until && server.running()) {
    std::error_code ec;
    if (fs::exists(log, ec)) {
      const std::string text = read_file(log);
      if (size_t at = text.find(before); at != std::string::npos) {
        int port = std::atoi(text.c_str() + at + before.size());
        if (port > 0 && port < 65536) return port;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return 0;
}

bool wait_for_port(int port, double seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(s);
    if (ok) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::unique_ptr<MotoServer> MotoServer::start(std::string* why, bool check_signatures) {
  if (std::string missing = moto_missing(); !missing.empty()) {
    *why = missing;
    return nullptr;
  }
  std::unique_ptr<MotoServer> m(new MotoServer);
  m->dir_ = make_dir();
  // Port 0: the server binds a port of its own and names it in its log. A port found free here
  // and handed to it could be taken meanwhile by a server of a test running beside this one,
  // which this test would then talk to.
  const std::string log = m->dir_ + "/moto.log";
  m->process_ = std::make_unique<ServerProcess>(
      std::vector<std::string>{"moto_server", "-H", "127.0.0.1", "-p", "0"},
      check_signatures ? std::vector<std::string>{"INITIAL_NO_AUTH_ACTION_COUNT=3"} : std::vector<std::string>{},
      log);
  const int port = port_in_log(log, "Running on http://127.0.0.1:", 60, *m->process_);
  if (port <= 0 || !wait_for_port(port, 60) || !m->process_->running()) {
    *why = "moto_server did not start on 127.0.0.1: " + read_file(log);
    return nullptr;
  }
  m->endpoint_ = "http://127.0.0.1:" + std::to_string(port);
  if (!check_signatures) {
    m->credentials_ = s3::Credentials{"AKIAUNCHECKED", "unchecked", "", "moto"};
    return m;
  }
  // moto routes a request by the service named in its Authorization header: these three are
  // taken unsigned, so the header only has to name IAM.
  auto iam = [&](const std::string& form) -> std::string {
    s3::HttpRequest r;
    r.method = "POST";
    r.url = m->endpoint_ + "/";
    r.body = form;
    r.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                 {"Authorization",
                  "AWS4-HMAC-SHA256 Credential=setup/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, "
                  "Signature=00"}};
    auto resp = s3::http_send(r);
    return resp && resp.value().status == 200 ? resp.value().body : std::string();
  };
  std::string user = iam("Action=CreateUser&UserName=ckpt&Version=2010-05-08");
  std::string key = iam("Action=CreateAccessKey&UserName=ckpt&Version=2010-05-08");
  std::string policy =
      iam("Action=PutUserPolicy&UserName=ckpt&PolicyName=all&Version=2010-05-08&PolicyDocument=" +
          s3::uri_encode(R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]})",
                         false));
  m->credentials_.access_key = between(key, "<AccessKeyId>", "</AccessKeyId>");
  m->credentials_.secret_key = between(key, "<SecretAccessKey>", "</SecretAccessKey>");
  m->credentials_.source = "moto";
  if (user.empty() || policy.empty() || m->credentials_.access_key.empty() || m->credentials_.secret_key.empty()) {
    *why = "moto_server at " + m->endpoint_ + " did not create the test user: " + key;
    return nullptr;
  }
  return m;
}

MotoServer::~MotoServer() {
  process_.reset();
  if (!dir_.empty()) fs::remove_all(dir_);
}

std::shared_ptr<s3::Client> MotoServer::client() const { return client(credentials_); }

std::shared_ptr<s3::Client> MotoServer::client(const s3::Credentials& other) const {
  s3::Settings s;
  s.endpoint = endpoint_;
  s.region = "us-east-1";
  s.backoff_base_ms = 10;
  auto c = s3::Client::create(s, other);
  return c ? c.value() : nullptr;
}

std::vector<std::string> MotoServer::environment() const {
  return {"AWS_ENDPOINT_URL=" + endpoint_, "AWS_ACCESS_KEY_ID=" + credentials_.access_key,
          "AWS_SECRET_ACCESS_KEY=" + credentials_.secret_key, "AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true"};
}

bool MotoServer::create_bucket(const std::string& bucket) const {
  auto c = client();
  return c && c->put(s3::ObjectUri{bucket, ""}, "").ok();
}

bool MotoServer::upload_tree(const std::string& dir, const std::string& bucket, const std::string& prefix) const {
  auto c = client();
  if (!c) return false;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), dir).generic_string();
    if (!c->upload_file(s3::ObjectUri{bucket, prefix.empty() ? rel : prefix + "/" + rel}, e.path().string()).ok())
      return false;
  }
  return true;
}

std::unique_ptr<StandIn> StandIn::start(std::string* why, const std::string& upstream) {
  std::unique_ptr<StandIn> s(new StandIn);
  s->dir_ = make_dir();
  const std::string port_file = s->dir_ + "/port";
  std::vector<std::string> argv{"python3", source_dir() + "/tests/s3/stand_in.py", port_file, s->dir_ + "/requests"};
  if (!upstream.empty()) argv.push_back(upstream);
  s->process_ = std::make_unique<ServerProcess>(argv, std::vector<std::string>{}, s->dir_ + "/log");
  for (int i = 0; i < 200 && !fs::exists(port_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (!fs::exists(port_file)) {
    *why = "tests/s3/stand_in.py did not start: " + read_file(s->dir_ + "/log");
    return nullptr;
  }
  s->port_ = std::atoi(read_file(port_file).c_str());
  return s;
}

StandIn::~StandIn() {
  process_.reset();
  if (!dir_.empty()) fs::remove_all(dir_);
}

std::string StandIn::requests() const {
  std::error_code ec;
  return fs::exists(dir_ + "/requests", ec) ? read_file(dir_ + "/requests") : std::string();
}

}  // namespace ckpt::test
