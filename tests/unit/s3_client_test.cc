// The S3 client against a real S3 server on loopback (moto, signatures checked) and against
// tests/s3/stand_in.py's faulty objects. Nothing here reaches an address other than 127.0.0.1.
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <regex>

#include <fmt/format.h>

#include "s3/client.h"
#include "testlib/cli_process.h"
#include "testlib/s3_servers.h"
#include "testlib/scoped_settings.h"
#include "testlib/test_support.h"

using namespace ckpt;
using namespace ckpt::s3;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<test::MotoServer> moto(bool check_signatures = true) {
  std::string why;
  auto m = test::MotoServer::start(&why, check_signatures);
  INFO(why);
  REQUIRE(m);  // not on PATH was a skip before (CKPT_REQUIRE_MOTO): this is moto failing to start
  return m;
}

std::shared_ptr<Client> client_at(const std::string& endpoint, const Credentials& c, Settings s = {}) {
  s.endpoint = endpoint;
  s.region = "us-east-1";
  s.backoff_base_ms = 5;
  s.backoff_max_ms = 20;
  auto r = Client::create(s, c);
  REQUIRE(r);
  return r.value();
}

}  // namespace

TEST_CASE("s3 client round-trips keys with equals plus spaces and non-ASCII through moto", "[s3][client]") {
  // Signatures unchecked: moto's checker mis-decodes such keys (testlib/s3_servers.h).
  CKPT_REQUIRE_MOTO();
  auto m = moto(false);
  Settings s;
  s.list_page_size = 3;  // several pages from few keys
  auto c = client_at(m->endpoint(), m->credentials(), s);
  REQUIRE(c->put(ObjectUri{"ckpt-keys", ""}, "").ok());
  const std::vector<std::string> keys = {
      "job/chk-1/a=b",  "job/chk-1/a+b",     "job/chk-1/with space",  "job/chk-1/\xC3\xA9t\xC3\xA9",
      "job/chk-1/100%", "job/chk-1/q?x&y=1", "job/shared/~tilde*star"};
  for (size_t i = 0; i < keys.size(); ++i) {
    INFO(keys[i]);
    Status put = c->put(ObjectUri{"ckpt-keys", keys[i]}, "bytes of " + keys[i]);
    INFO((put.ok() ? std::string() : put.error().to_string()));
    REQUIRE(put.ok());
  }
  for (const std::string& k : keys) {
    auto got = c->get(ObjectUri{"ckpt-keys", k});
    INFO(k);
    REQUIRE(got);
    CHECK(got.value() == "bytes of " + k);
    auto part = c->get(ObjectUri{"ckpt-keys", k}, 3, 4);
    REQUIRE(part);
    CHECK(part.value() == "es o");
    auto h = c->head(ObjectUri{"ckpt-keys", k});
    REQUIRE(h);
    CHECK(h.value().size == 9 + k.size());
  }
  auto listed = c->list(ObjectUri{"ckpt-keys", "job/"});
  REQUIRE(listed);
  std::vector<std::string> names;
  for (const auto& o : listed.value().objects) names.push_back(o.key);
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  CHECK(names == sorted);
  CHECK(listed.value().objects[0].last_modified > 1700000000);
  auto dirs = c->list(ObjectUri{"ckpt-keys", "job/"}, "/");
  REQUIRE(dirs);
  CHECK(dirs.value().common_prefixes == std::vector<std::string>{"job/chk-1/", "job/shared/"});

  auto missing = c->get(ObjectUri{"ckpt-keys", "job/none"});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(missing.error().to_string().find("s3://ckpt-keys/job/none") != std::string::npos);
  CHECK(missing.error().message.find("HTTP 404 NoSuchKey") != std::string::npos);
}

TEST_CASE("s3 client is refused by moto with a wrong secret and says so", "[s3][client]") {
  CKPT_REQUIRE_MOTO();
  auto m = moto();
  auto good = client_at(m->endpoint(), m->credentials());
  REQUIRE(good->put(ObjectUri{"ckpt-auth", ""}, "").ok());
  REQUIRE(good->put(ObjectUri{"ckpt-auth", "k"}, "v").ok());
  // Keys with spaces pass moto's signature check.
  REQUIRE(good->put(ObjectUri{"ckpt-auth", "job/chk-1/with space"}, "s").ok());
  auto got = good->get(ObjectUri{"ckpt-auth", "job/chk-1/with space"});
  REQUIRE(got);
  CHECK(got.value() == "s");
  auto listed = good->list(ObjectUri{"ckpt-auth", "job"});
  INFO((listed ? std::string() : listed.error().to_string()));
  REQUIRE(listed);
  REQUIRE(listed.value().objects.size() == 1);
  CHECK(listed.value().objects[0].key == "job/chk-1/with space");
  Credentials wrong = m->credentials();
  wrong.secret_key[0] = wrong.secret_key[0] == 'x' ? 'y' : 'x';
  auto bad = client_at(m->endpoint(), wrong);
  auto r = bad->get(ObjectUri{"ckpt-auth", "k"});
  REQUIRE_FALSE(r);
  INFO(r.error().to_string());
  CHECK(r.error().message.find("HTTP 403 SignatureDoesNotMatch") != std::string::npos);
  CHECK(r.error().file == "s3://ckpt-auth/k");
  CHECK(bad->counts().requests == 1);  // a refusal is not retried
  Settings unsigned_settings;
  unsigned_settings.no_sign = true;
  auto anonymous = client_at(m->endpoint(), {}, unsigned_settings);
  CHECK_FALSE(anonymous->get(ObjectUri{"ckpt-auth", "k"}));
}

TEST_CASE("s3 client uploads a large file in parts and deletes in batches", "[s3][client]") {
  CKPT_REQUIRE_MOTO();
  auto m = moto();
  Settings s;
  s.multipart_threshold = 6 << 20;
  s.part_size = 5 << 20;
  s.delete_batch = 2;
  auto c = client_at(m->endpoint(), m->credentials(), s);
  REQUIRE(c->put(ObjectUri{"ckpt-big", ""}, "").ok());
  test::ScratchDir dir;
  std::string big(12 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 2654435761u) >> 13);
  test::write_file(dir / "big", big);
  uint64_t before = c->counts().requests;
  REQUIRE(c->upload_file(ObjectUri{"ckpt-big", "x/big file"}, dir / "big").ok());
  CHECK(c->counts().requests - before == 5);  // create, 3 parts, complete
  REQUIRE(c->download(ObjectUri{"ckpt-big", "x/big file"}, dir / "back").ok());
  CHECK(test::read_file(dir / "back") == big);
  before = c->counts().requests;
  REQUIRE(c->download_parts(ObjectUri{"ckpt-big", "x/big file"}, dir / "parts", big.size(), 3).ok());
  CHECK(test::read_file(dir / "parts") == big);
  CHECK(c->counts().requests - before == 3);  // 5 + 5 + 2 MiB

  std::vector<std::string> keys;
  for (int i = 0; i < 5; ++i) {
    keys.push_back("del/k" + std::to_string(i));
    REQUIRE(c->put(ObjectUri{"ckpt-big", keys.back()}, "x").ok());
  }
  std::vector<std::pair<size_t, size_t>> batches;
  auto failed = c->delete_objects("ckpt-big", keys, [&](size_t first, size_t n) { batches.emplace_back(first, n); });
  REQUIRE(failed);
  CHECK(failed.value().empty());
  CHECK(batches == std::vector<std::pair<size_t, size_t>>{{0, 2}, {2, 2}, {4, 1}});
  auto left = c->list(ObjectUri{"ckpt-big", ""});
  REQUIRE(left);
  REQUIRE(left.value().objects.size() == 1);
  CHECK(left.value().objects[0].key == "x/big file");
}

TEST_CASE("s3 client retries throttling 500s and dropped downloads then gives up naming the URI",
          "[s3][client][faults]") {
  std::string why;
  auto stand_in = test::StandIn::start(&why);
  INFO(why);
  REQUIRE(stand_in);
  Settings s;
  s.addressing = Addressing::kPath;
  s.max_attempts = 4;
  auto c = client_at(stand_in->url(), Credentials{"AKID", "SECRET", "", "test"}, s);
  test::ScratchDir dir;
  std::string expected;
  for (int i = 0; i < 1000; ++i) expected += "0123456789";
  for (const char* mode : {"slowdown-2", "error-3", "drop-2"}) {
    INFO(mode);
    uint64_t retries = c->counts().retries;
    REQUIRE(c->download(ObjectUri{"faulty", std::string(mode) + "/obj"}, dir / "got").ok());
    CHECK(test::read_file(dir / "got") == expected);
    CHECK(c->counts().retries - retries == std::stoul(std::string(mode).substr(std::string(mode).find('-') + 1)));
    auto whole = c->get(ObjectUri{"faulty", std::string(mode) + "/obj"});
    REQUIRE(whole);
  }
  // A dropped connection resumes at the byte where it broke, pinned to the object's ETag.
  CHECK(stand_in->requests().find("\"range\": \"bytes=3000-\"") != std::string::npos);
  CHECK(stand_in->requests().find("\"if-match\": \"\\\"faulty-etag\\\"\"") != std::string::npos);

  // Parallel ranged parts: each part that drops resumes within its range.
  Settings parted = s;
  parted.part_size = 4000;
  auto pc = client_at(stand_in->url(), Credentials{"AKID", "SECRET", "", "test"}, parted);
  for (const char* mode : {"drop-2", "slowdown-1"}) {
    INFO(mode);
    REQUIRE(pc->download_parts(ObjectUri{"faulty", std::string(mode) + "/parts"}, dir / "parts", 10000, 3).ok());
    CHECK(test::read_file(dir / "parts") == expected);
  }
  for (const char* range : {"bytes=0-3999", "bytes=4000-7999", "bytes=8000-9999", "bytes=3000-3999"})
    CHECK(stand_in->requests().find(std::string("\"range\": \"") + range + "\"") != std::string::npos);
  auto parted_gave_up = pc->download_parts(ObjectUri{"faulty", "always-500/parts"}, dir / "never", 10000, 3);
  CHECK_FALSE(parted_gave_up.ok());
  CHECK_FALSE(fs::exists(dir / "never"));

  auto gave_up = c->download(ObjectUri{"faulty", "always-500/obj"}, dir / "never");
  REQUIRE_FALSE(gave_up.ok());
  INFO(gave_up.error().to_string());
  CHECK(gave_up.error().file == "s3://faulty/always-500/obj");
  CHECK(gave_up.error().message.find("HTTP 500 InternalError") != std::string::npos);
  CHECK(gave_up.error().message.find("gave up after 4 attempts") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "never"));  // nothing partial left

  // A connection refused (nothing listens) is retried, then named.
  Settings quick = s;
  quick.max_attempts = 2;
  auto nowhere = client_at("http://127.0.0.1:" + std::to_string(test::free_loopback_port()), {"A", "B", "", ""}, quick);
  auto refused = nowhere->get(ObjectUri{"b", "k"});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().file == "s3://b/k");
  CHECK(refused.error().message.find("gave up after 2 attempts") != std::string::npos);

  // Unless the caller says, as many attempts as AWS_MAX_ATTEMPTS says, else the profile's
  // max_attempts, as the AWS CLI reads them.
  const std::string port = std::to_string(test::free_loopback_port());
  Settings unset;
  unset.endpoint = "http://127.0.0.1:" + port;
  auto attempts_of = [&] {
    auto client = Client::create(unset, Credentials{"A", "B", "", ""});
    if (!client) return client.error().message;
    auto r = client.value()->get(ObjectUri{"b", "k"});
    REQUIRE_FALSE(r);
    return r.error().message;
  };
  test::ScratchDir home;
  test::write_file(home / "config", "[default]\nmax_attempts = 2\n");
  test::ScopedEnv config("AWS_CONFIG_FILE", home / "config");
  test::ScopedEnv profile("AWS_PROFILE", std::nullopt);
  {
    test::ScopedEnv max("AWS_MAX_ATTEMPTS", "3");
    CHECK_THAT(attempts_of(), Catch::Contains("gave up after 3 attempts"));
  }
  {
    test::ScopedEnv max("AWS_MAX_ATTEMPTS", std::nullopt);
    CHECK_THAT(attempts_of(), Catch::Contains("gave up after 2 attempts"));
    test::write_file(home / "config", "[default]\nmax_attempts = many\n");
    CHECK(attempts_of() == "the profile's max_attempts is 'many': expected a number of attempts from 1 to 100");
  }
  for (const char* bad : {"0", "101", "-1", "2x", " 2"}) {
    test::ScopedEnv max("AWS_MAX_ATTEMPTS", std::string(bad));
    CHECK(attempts_of() == fmt::format("AWS_MAX_ATTEMPTS is '{}': expected a number of attempts from 1 to 100", bad));
  }
}

TEST_CASE("s3 addressing is virtual-hosted on AWS and path-style for IP endpoints or on request", "[s3][client]") {
  Settings aws;
  aws.region = "eu-west-1";
  auto a = Client::create(aws, Credentials{"A", "B", "", ""});
  REQUIRE(a);
  CHECK(a.value()->target(ObjectUri{"bucket", "a b"}).url_base == "https://bucket.s3.eu-west-1.amazonaws.com");
  CHECK(a.value()->target(ObjectUri{"bucket", "a b"}).path == "/a b");
  CHECK(a.value()->target(ObjectUri{"my.bucket", "k"}).path == "/my.bucket/k");  // dots break TLS names
  Settings ip;
  ip.endpoint = "http://127.0.0.1:9000/";
  auto b = Client::create(ip, Credentials{"A", "B", "", ""});
  REQUIRE(b);
  CHECK(b.value()->target(ObjectUri{"bucket", "k"}).url_base == "http://127.0.0.1:9000");
  CHECK(b.value()->target(ObjectUri{"bucket", "k"}).path == "/bucket/k");
  Settings named;
  named.endpoint = "https://minio.example";
  auto v = Client::create(named, Credentials{"A", "B", "", ""});
  REQUIRE(v);
  CHECK(v.value()->target(ObjectUri{"bucket", "k"}).host == "bucket.minio.example");
  named.addressing = Addressing::kPath;
  auto p = Client::create(named, Credentials{"A", "B", "", ""});
  REQUIRE(p);
  CHECK(p.value()->target(ObjectUri{"bucket", "k"}).host == "minio.example");

  for (const char* uri : {"s3://b/x/y", "s3a://b/x/y", "s3p://b/x/y"}) {
    auto u = parse_object_uri(uri);
    REQUIRE(u);
    CHECK(u.value().bucket == "b");
    CHECK(u.value().key == "x/y");
  }
  CHECK_FALSE(parse_object_uri("s3:///k"));
  CHECK_FALSE(parse_object_uri("gs://b/k"));
}

TEST_CASE("s3 tests without moto_server are skipped with how to get it and fail under CI", "[s3][client]") {
  // The test binary itself, run on one moto test with a PATH that has no moto_server.
  const std::string binary = test::build_dir() + "/tests/ckpt_tests";
  const std::string test = "'s3 client uploads a large file in parts and deletes in batches'";
  // Catch wraps its messages at 80 columns: compared with each run of white space as one space.
  auto flat = [](const std::string& text) { return std::regex_replace(text, std::regex(R"(\s+)"), " "); };
  test::CliResult skipped = test::run_shell("env -u CI PATH=/usr/bin:/bin '" + binary + "' " + test);
  INFO(skipped.out << skipped.err);
  CHECK(skipped.status == 0);
  CHECK(test::contains(flat(skipped.out), "CKPT-SKIP: moto_server is not on PATH"));
  CHECK(test::contains(flat(skipped.out), "pip install 'moto[server]'"));
  CHECK_FALSE(test::contains(skipped.out + skipped.err, ".ci/install-deps"));
  test::CliResult failed = test::run_shell("CI=true PATH=/usr/bin:/bin '" + binary + "' " + test);
  INFO(failed.out << failed.err);
  CHECK(failed.status != 0);
  CHECK(test::contains(failed.out, "CI=true"));
  CHECK_FALSE(test::contains(failed.out, "CKPT-SKIP"));
}

TEST_CASE("s3 client downloads are checked by length ETag MD5 and checksums and a flipped bit names the object",
          "[s3][client][faults]") {
  std::string why;
  auto stand_in = test::StandIn::start(&why);
  INFO(why);
  REQUIRE(stand_in);
  Settings s;
  s.addressing = Addressing::kPath;
  s.max_attempts = 2;
  auto c = client_at(stand_in->url(), Credentials{"AKID", "SECRET", "", "test"}, s);
  Settings parted = s;
  parted.part_size = 4000;
  auto pc = client_at(stand_in->url(), Credentials{"AKID", "SECRET", "", "test"}, parted);
  test::ScratchDir dir;
  std::string expected;
  for (int i = 0; i < 1000; ++i) expected += "0123456789";
  // The same bytes intact under each digest the store offers: ours agree with the store's.
  for (const char* digest : {"md5", "crc32", "crc32c", "sha1", "sha256"}) {
    const ObjectUri good{"faulty", std::string("good-") + digest + "/obj"};
    INFO(good.to_string());
    REQUIRE(c->download(good, dir / "good").ok());
    CHECK(test::read_file(dir / "good") == expected);
    auto whole = c->get(good);
    REQUIRE(whole);
    CHECK(whole.value() == expected);
  }
  // One bit flipped in transit: an error naming the object, nothing left behind.
  for (const char* digest : {"md5", "crc32", "crc32c", "sha1", "sha256"}) {
    const ObjectUri flip{"faulty", std::string("flip-") + digest + "/obj"};
    INFO(flip.to_string());
    Status d = c->download(flip, dir / "flipped");
    REQUIRE_FALSE(d.ok());
    CHECK(d.error().code == ErrorCode::kCorruption);
    CHECK(d.error().file == flip.to_string());
    CHECK(d.error().message.find("damaged in transit") != std::string::npos);
    std::string message = d.error().message;
    for (char& ch : message) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    CHECK(message.find(digest) != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "flipped"));
    auto whole = c->get(flip);
    REQUIRE_FALSE(whole);
    CHECK(whole.error().file == flip.to_string());
  }
  // The checksums are asked for.
  CHECK(stand_in->requests().find("\"x-amz-checksum-mode\": \"ENABLED\"") != std::string::npos);
  // Fetched in ranged parts: all of it against the ETag's MD5 once the parts are in.
  Status good_parts = pc->download_parts(ObjectUri{"faulty", "good-md5/parts"}, dir / "parts", 10000, 3);
  INFO((good_parts.ok() ? std::string() : good_parts.error().to_string()));
  REQUIRE(good_parts.ok());
  CHECK(test::read_file(dir / "parts") == expected);
  Status parts = pc->download_parts(ObjectUri{"faulty", "flip-md5/parts"}, dir / "parts-flipped", 10000, 3);
  REQUIRE_FALSE(parts.ok());
  CHECK(parts.error().message.find("MD5") != std::string::npos);
  CHECK(parts.error().file == "s3://faulty/flip-md5/parts");
  CHECK_FALSE(fs::exists(dir / "parts-flipped"));
  // A range answered with other bytes than asked for (its Content-Range says so).
  REQUIRE(c->get(ObjectUri{"faulty", "good-md5/obj"}, 100, 50));
  auto off = c->get(ObjectUri{"faulty", "range-off/obj"}, 100, 50);
  REQUIRE_FALSE(off);
  CHECK(off.error().file == "s3://faulty/range-off/obj");
  CHECK(off.error().message.find("Content-Range") != std::string::npos);
  // A range of an object listed with another size than the answer's Content-Range names: the
  // object was replaced since it was listed, its bytes are no part of what was listed.
  std::string range;
  REQUIRE(c->get_range(ObjectUri{"faulty", "good-md5/obj"}, 100, 50, 10000, &range).ok());
  CHECK(range == expected.substr(100, 50));
  Status replaced = c->get_range(ObjectUri{"faulty", "good-md5/obj"}, 100, 50, 9000, &range);
  REQUIRE_FALSE(replaced.ok());
  CHECK(replaced.error().code == ErrorCode::kCorruption);
  CHECK(replaced.error().file == "s3://faulty/good-md5/obj");
  CHECK(replaced.error().message.find("listed with 9000") != std::string::npos);
  Status off_parts = pc->download_parts(ObjectUri{"faulty", "range-off/parts"}, dir / "off", 10000, 3);
  REQUIRE_FALSE(off_parts.ok());
  CHECK(off_parts.error().message.find("Content-Range") != std::string::npos);
}
