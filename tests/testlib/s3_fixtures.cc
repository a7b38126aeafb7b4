#include "testlib/s3_fixtures.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "testlib/cli_run.h"

namespace fs = std::filesystem;

namespace ckpt::test {

std::unique_ptr<MotoServer> unchecked_moto() {
  std::string why;
  auto m = MotoServer::start(&why, false);
  INFO(why);
  REQUIRE(m);
  return m;
}

StoreEnvironment::StoreEnvironment(const std::string& endpoint, const s3::Credentials& c) {
  set("AWS_ENDPOINT_URL", endpoint);
  set("AWS_ACCESS_KEY_ID", c.access_key);
  set("AWS_SECRET_ACCESS_KEY", c.secret_key);
  set("AWS_REGION", "us-east-1");
  set("AWS_EC2_METADATA_DISABLED", "true");
  for (const char* v : {"AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL_S3", "AWS_MAX_ATTEMPTS"})
    vars.push_back(std::make_unique<ScopedEnv>(v, std::nullopt));
}

void StoreEnvironment::set(const char* name, const std::string& value) {
  vars.push_back(std::make_unique<ScopedEnv>(name, value));
}

FailingStore failing_store_before(const MotoServer& m, int attempts) {
  FailingStore f;
  std::string why;
  f.proxy = StandIn::start(&why, m.endpoint());
  INFO(why);
  REQUIRE(f.proxy);
  f.env = std::make_unique<StoreEnvironment>(f.proxy->url(), m.credentials());
  f.env->set("AWS_MAX_ATTEMPTS", std::to_string(attempts));
  return f;
}

std::set<std::string> keys_under(const MotoServer& m, const std::string& bucket, const std::string& prefix) {
  auto listed = m.client()->list(s3::ObjectUri{bucket, prefix});
  REQUIRE(listed);
  std::set<std::string> out;
  for (const auto& o : listed.value().objects) out.insert(o.key);
  return out;
}

void upload_chain(const MotoServer& m, const ScratchDir& dir, int checkpoints, const std::string& bucket,
                  const std::string& job_key, const std::string& shared_job_key) {
  const std::string local = dir / "job";
  run_cli_ok({"generate", "--chain", std::to_string(checkpoints), "--keys", "60", "--states", "value,map",
              "--parallelism", "2", "--churn", "0.5", "--output", local});
  const std::string canonical = fs::weakly_canonical(local).string();
  for (int c = 1; c <= checkpoints; ++c) {
    const std::string chk = local + "/chk-" + std::to_string(c);
    const std::string meta = dir / ("meta-" + std::to_string(c));
    run_cli_ok({"relocate", chk, "--output", meta, "--map",
                "file:" + canonical + "/shared=s3://" + bucket + "/" + shared_job_key + "/shared", "--map",
                "file:" + canonical + "=s3://" + bucket + "/" + job_key});
    fs::rename(meta, chk + "/_metadata");
  }
  REQUIRE(m.upload_tree(local + "/shared", bucket, shared_job_key + "/shared"));
  for (int c = 1; c <= checkpoints; ++c)
    REQUIRE(m.upload_tree(local + "/chk-" + std::to_string(c), bucket, job_key + "/chk-" + std::to_string(c)));
}

std::vector<std::pair<std::string, std::string>> bucket_files(const MotoServer& m, const std::string& bucket,
                                                              const std::string& prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  auto c = m.client();
  for (const std::string& key : keys_under(m, bucket, prefix + "/")) {
    auto bytes = c->get(s3::ObjectUri{bucket, key});
    REQUIRE(bytes);
    out.emplace_back(key.substr(prefix.size() + 1), bytes.value());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace ckpt::test
