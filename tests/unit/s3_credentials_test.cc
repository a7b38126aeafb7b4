// Each source of the credential chain, in the AWS CLI's order; instance metadata (IMDSv2),
// container credentials and the web-identity exchange against tests/s3/stand_in.py on loopback.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "s3/client.h"
#include "s3/credentials.h"
#include "testlib/s3_servers.h"
#include "testlib/scoped_settings.h"
#include "testlib/test_support.h"

using namespace ckpt;
using namespace ckpt::s3;

namespace {

// Every variable the chain reads, unset for the scope; HOME points at an empty directory.
struct CleanAwsEnvironment {
  test::ScratchDir home;
  std::vector<std::unique_ptr<test::ScopedEnv>> vars;
  CleanAwsEnvironment() {
    for (const char* v : {"AWS_ACCESS_KEY_ID",
                          "AWS_SECRET_ACCESS_KEY",
                          "AWS_SESSION_TOKEN",
                          "AWS_PROFILE",
                          "AWS_DEFAULT_PROFILE",
                          "AWS_SHARED_CREDENTIALS_FILE",
                          "AWS_CONFIG_FILE",
                          "AWS_WEB_IDENTITY_TOKEN_FILE",
                          "AWS_ROLE_ARN",
                          "AWS_ROLE_SESSION_NAME",
                          "AWS_ENDPOINT_URL",
                          "AWS_ENDPOINT_URL_S3",
                          "AWS_ENDPOINT_URL_STS",
                          "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                          "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                          "AWS_CONTAINER_AUTHORIZATION_TOKEN",
                          "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
                          "AWS_EC2_METADATA_SERVICE_ENDPOINT",
                          "AWS_REGION",
                          "AWS_DEFAULT_REGION"})
      vars.push_back(std::make_unique<test::ScopedEnv>(v, std::nullopt));
    vars.push_back(std::make_unique<test::ScopedEnv>("HOME", home.path()));
    // Never 169.254.169.254 from a test.
    vars.push_back(std::make_unique<test::ScopedEnv>("AWS_EC2_METADATA_DISABLED", "true"));
  }
  void set(const std::string& name, const std::string& value) {
    vars.push_back(std::make_unique<test::ScopedEnv>(name, value));
  }
};

std::unique_ptr<test::StandIn> stand_in() {
  std::string why;
  auto s = test::StandIn::start(&why);
  INFO(why);
  REQUIRE(s);
  return s;
}

}  // namespace

TEST_CASE("s3 credentials come from the environment first with the session token", "[s3][credentials]") {
  CleanAwsEnvironment env;
  env.set("AWS_ACCESS_KEY_ID", "ENVKEY");
  env.set("AWS_SECRET_ACCESS_KEY", "ENVSECRET");
  env.set("AWS_SESSION_TOKEN", "ENVTOKEN");
  test::write_file(env.home / "credentials", "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = S\n");
  env.set("AWS_SHARED_CREDENTIALS_FILE", env.home / "credentials");
  auto c = resolve_credentials("", "us-east-1");
  REQUIRE(c);
  CHECK(c.value().access_key == "ENVKEY");
  CHECK(c.value().secret_key == "ENVSECRET");
  CHECK(c.value().session_token == "ENVTOKEN");
  CHECK(c.value().source == "environment");
  // An explicit profile sets the environment's keys aside, as the AWS CLI's --profile does.
  auto p = resolve_credentials("default", "us-east-1");
  REQUIRE(p);
  CHECK(p.value().access_key == "FILEKEY");
  env.set("AWS_SECRET_ACCESS_KEY", "");
  CHECK_FALSE(resolve_credentials("", "us-east-1"));
}

TEST_CASE("s3 credentials and settings come from the profile's credentials and config files", "[s3][credentials]") {
  CleanAwsEnvironment env;
  test::write_file(env.home / "creds",
                   "# comment\n[default]\naws_access_key_id=DEFKEY\naws_secret_access_key=DEFSECRET\n\n"
                   "[team]\naws_access_key_id = TEAMKEY\naws_secret_access_key = TEAMSECRET\n"
                   "aws_session_token = TEAMTOKEN\n");
  test::write_file(env.home / "config",
                   "[default]\nregion = eu-west-1\n[profile team]\nregion = ap-south-1\n"
                   "endpoint_url = http://127.0.0.1:9/\ns3 =\n  addressing_style = virtual\n"
                   "[profile cfgonly]\naws_access_key_id = CFGKEY\naws_secret_access_key = CFGSECRET\n");
  env.set("AWS_SHARED_CREDENTIALS_FILE", env.home / "creds");
  env.set("AWS_CONFIG_FILE", env.home / "config");
  auto d = resolve_credentials("", "");
  REQUIRE(d);
  CHECK(d.value().access_key == "DEFKEY");
  env.set("AWS_PROFILE", "team");
  auto t = resolve_credentials("", "");
  REQUIRE(t);
  CHECK(t.value().access_key == "TEAMKEY");
  CHECK(t.value().session_token == "TEAMTOKEN");
  CHECK(t.value().source == "profile team");
  auto s = complete_settings(Settings{});
  REQUIRE(s);
  CHECK(s.value().region == "ap-south-1");
  CHECK(s.value().endpoint == "http://127.0.0.1:9/");
  CHECK(s.value().addressing == Addressing::kVirtual);  // the profile's s3 addressing_style wins over the IP rule
  env.set("AWS_REGION", "us-west-2");
  CHECK(complete_settings(Settings{}).value().region == "us-west-2");
  auto cfg = resolve_credentials("cfgonly", "");
  REQUIRE(cfg);
  CHECK(cfg.value().access_key == "CFGKEY");
  auto missing = resolve_credentials("nosuch", "");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("profile 'nosuch' not found") != std::string::npos);
  // Home's ~/.aws files when no variable names them.
  env.set("AWS_SHARED_CREDENTIALS_FILE", "");
  env.set("AWS_CONFIG_FILE", "");
  env.set("AWS_PROFILE", "");
  std::filesystem::create_directories(env.home / ".aws");
  test::write_file(env.home / ".aws/credentials", "[default]\naws_access_key_id=HOMEKEY\naws_secret_access_key=X\n");
  auto h = resolve_credentials("", "");
  REQUIRE(h);
  CHECK(h.value().access_key == "HOMEKEY");
}

TEST_CASE("s3 credentials from a web identity token exchanged at a stand-in STS", "[s3][credentials]") {
  CleanAwsEnvironment env;
  auto sts = stand_in();
  test::write_file(env.home / "token", "web-token-1\n");
  env.set("AWS_WEB_IDENTITY_TOKEN_FILE", env.home / "token");
  env.set("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/ckpt");
  env.set("AWS_ROLE_SESSION_NAME", "ckpt-test");
  env.set("AWS_ENDPOINT_URL_STS", sts->url());
  auto c = resolve_credentials("", "us-east-1");
  INFO((c ? std::string() : c.error().to_string()));
  REQUIRE(c);
  CHECK(c.value().access_key == "STSAKID");
  CHECK(c.value().secret_key == "STSSECRET");
  CHECK(c.value().session_token == "STSTOKEN");
  const std::string log = sts->requests();
  CHECK(log.find("Action=AssumeRoleWithWebIdentity") != std::string::npos);
  CHECK(log.find("RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fckpt") != std::string::npos);
  CHECK(log.find("RoleSessionName=ckpt-test") != std::string::npos);
  test::write_file(env.home / "token", "wrong-token");
  auto refused = resolve_credentials("", "us-east-1");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("HTTP 400 InvalidIdentityToken") != std::string::npos);
}

TEST_CASE("s3 credentials from a stand-in container endpoint with its token file", "[s3][credentials]") {
  CleanAwsEnvironment env;
  auto endpoint = stand_in();
  env.set("AWS_CONTAINER_CREDENTIALS_FULL_URI", endpoint->url() + "/creds");
  test::write_file(env.home / "ctoken", "Bearer-test-token\n");
  env.set("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", env.home / "ctoken");
  auto c = resolve_credentials("", "");
  INFO((c ? std::string() : c.error().to_string()));
  REQUIRE(c);
  CHECK(c.value().access_key == "CONTAINERAKID");
  CHECK(c.value().session_token == "CONTAINERTOKEN");
  env.set("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "");
  env.set("AWS_CONTAINER_AUTHORIZATION_TOKEN", "wrong");
  auto refused = resolve_credentials("", "");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("HTTP 401") != std::string::npos);
}

TEST_CASE("s3 credentials from stand-in EC2 instance metadata through an IMDSv2 token", "[s3][credentials]") {
  CleanAwsEnvironment env;
  auto imds = stand_in();
  env.set("AWS_EC2_METADATA_DISABLED", "false");
  env.set("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds->url());
  auto c = resolve_credentials("", "");
  INFO((c ? std::string() : c.error().to_string()));
  REQUIRE(c);
  CHECK(c.value().access_key == "IMDSAKID");
  CHECK(c.value().secret_key == "IMDSSECRET");
  CHECK(c.value().session_token == "IMDSTOKEN");
  const std::string log = imds->requests();
  size_t put = log.find("\"method\": \"PUT\", \"path\": \"/latest/api/token\"");
  size_t role = log.find("\"path\": \"/latest/meta-data/iam/security-credentials/ckpt-role\"");
  REQUIRE(put != std::string::npos);
  REQUIRE(role != std::string::npos);
  CHECK(put < role);
  CHECK(log.find("\"x-aws-ec2-metadata-token\": \"imds-token-abc\"") != std::string::npos);
}

TEST_CASE("s3 credentials chain without any source says how to configure one", "[s3][credentials]") {
  CleanAwsEnvironment env;
  auto none = resolve_credentials("", "");
  REQUIRE_FALSE(none);
  CHECK(none.error().code == ErrorCode::kNotFound);
  CHECK(none.error().message.find("--no-sign-request") != std::string::npos);
}
