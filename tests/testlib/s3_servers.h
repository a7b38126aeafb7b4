// tests/testlib/s3_servers.h - S3 servers on loopback for the tests: moto's server mode with
// signatures checked, and tests/s3/stand_in.py (instance metadata, container credentials, STS,
// and an object that fails as a test asks). Each listens on 127.0.0.1 on a free port, is
// started by the test that needs it and stopped (its process killed by pid) at scope exit.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "s3/client.h"
#include "testlib/test_support.h"

namespace ckpt::test {

// A server process started in the background, its output in `log`.
class ServerProcess {
 public:
  ServerProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& log);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  bool running() const;
  int pid() const { return pid_; }

 private:
  int pid_ = -1;
};

// A free TCP port on 127.0.0.1 (bound and released: the server binds it right after).
int free_loopback_port();
// True once something accepts connections on 127.0.0.1:port (polling up to `seconds`).
bool wait_for_port(int port, double seconds);
// The port a server started with port 0 names in its log after `before` ("Running on
// http://127.0.0.1:"), polling up to `seconds` while it runs; 0 if it never does.
int port_in_log(const std::string& log, const std::string& before, double seconds, const ServerProcess& server);

class MotoServer {
 public:
  // Started, an IAM user with an access key and an allow-all policy created (the only requests
  // moto takes unsigned: INITIAL_NO_AUTH_ACTION_COUNT=3), then every request's signature is
  // checked. Null and `why` on failure.
  //
  // Without `check_signatures` moto checks none. moto 5.2.1 verifies a signature against the
  // URL as werkzeug rebuilds it, with '=', '+', '%', '*', '~' and non-ASCII bytes of the key
  // and '/' of a query value (a listing's prefix "job/") decoded again, so it refuses correct
  // signatures of such requests (boto3's as well as ours: AWS
  // itself signs the key as sent, get-utf8 and get-vanilla-query-order-encoded of the SigV4
  // suite). Tests of such keys' round trip use an unchecking server; their signatures are
  // checked by the suite's vectors (tests/unit/s3_sigv4_test.cc).
  static std::unique_ptr<MotoServer> start(std::string* why, bool check_signatures = true);
  ~MotoServer();
  const std::string& endpoint() const { return endpoint_; }
  const s3::Credentials& credentials() const { return credentials_; }
  // A client of this server with its credentials (or `other` ones).
  std::shared_ptr<s3::Client> client() const;
  std::shared_ptr<s3::Client> client(const s3::Credentials& other) const;
  // The environment a ckpt child process needs to reach it (endpoint, keys, no IMDS).
  std::vector<std::string> environment() const;
  // Uploads every regular file under `dir` to s3://bucket/prefix/<relative path>.
  bool upload_tree(const std::string& dir, const std::string& bucket, const std::string& prefix) const;
  bool create_bucket(const std::string& bucket) const;

 private:
  MotoServer() = default;
  std::unique_ptr<ServerProcess> process_;
  std::string dir_;
  std::string endpoint_;
  s3::Credentials credentials_;
};

class StandIn {
 public:
  // With `upstream` (a MotoServer's endpoint), what it does not answer itself is forwarded
  // there, and a PUT of a "/_metadata" key fails (tests/s3/stand_in.py).
  static std::unique_ptr<StandIn> start(std::string* why, const std::string& upstream = "");
  ~StandIn();
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The requests it answered, one JSON object a line.
  std::string requests() const;

 private:
  StandIn() = default;
  std::unique_ptr<ServerProcess> process_;
  std::string dir_;
  int port_ = 0;
};

// `name` on PATH.
bool on_path(const std::string& name);

// Why moto_server cannot run here, with how to get it; "" when it is on PATH.
std::string moto_missing();

}  // namespace ckpt::test

// A test that needs moto_server: where it is not installed (Debian does not package moto) the
// test is skipped with the reason and the way to get it; under CI=true it fails instead.
#define CKPT_REQUIRE_MOTO()                                                                             \
  do {                                                                                                  \
    const std::string moto_why_ = ckpt::test::moto_missing();                                           \
    if (!moto_why_.empty()) {                                                                           \
      if (ckpt::test::under_ci()) FAIL(moto_why_ << " (CI=true: a test that cannot start moto fails)"); \
      CKPT_SKIP(moto_why_);                                                                             \
    }                                                                                                   \
  } while (0)
