#include "s3/credentials.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "ckpt/io.h"
#include "s3/http.h"
#include "s3/responses.h"

namespace ckpt::s3 {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string settings_environment() {
  // Each variable env() is called with here and in client.cc.
  static const char* const kNames[] = {
      "AWS_ACCESS_KEY_ID", "AWS_CONFIG_FILE", "AWS_CONTAINER_AUTHORIZATION_TOKEN",
      "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
      "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_DEFAULT_PROFILE", "AWS_DEFAULT_REGION",
      "AWS_EC2_METADATA_DISABLED", "AWS_EC2_METADATA_SERVICE_ENDPOINT", "AWS_ENDPOINT_URL",
      "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_STS", "AWS_MAX_ATTEMPTS", "AWS_PROFILE", "AWS_REGION", "AWS_ROLE_ARN",
      "AWS_ROLE_SESSION_NAME", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
      "AWS_SHARED_CREDENTIALS_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "HOME"};
  std::string out;
  for (const char* name : kNames) {
    const char* v = std::getenv(name);
    out += v ? '=' : '-';  // set to "" differs from unset
    if (v) out += v;
    out += '\0';
  }
  return out;
}

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return std::string(s);
}

std::string home_file(const char* rel) {
  std::string home = env("HOME");
  return (home.empty() ? std::string(".") : home) + rel;
}

// {"AccessKeyId", "SecretAccessKey", "Token"}: what IMDS and the container endpoints answer.
Result<Credentials> credentials_from_json(const std::string& body, const std::string& uri, const char* source) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Error(ErrorCode::kCorruption, "credentials answer is not a JSON object").with_file(uri);
  auto field = [&](const char* name) {
    auto it = j.find(name);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  Credentials c;
  c.access_key = field("AccessKeyId");
  c.secret_key = field("SecretAccessKey");
  c.session_token = field("Token");
  c.source = source;
  if (c.access_key.empty() || c.secret_key.empty())
    return Error(ErrorCode::kCorruption, "credentials answer without AccessKeyId or SecretAccessKey").with_file(uri);
  return c;
}

Result<HttpResponse> fetch(HttpRequest req, const char* what) {
  req.connect_timeout_ms = 2000;
  req.stall_timeout_ms = 5000;
  auto r = http_send(req);
  if (!r) return std::move(r).error().with_context(what);
  if (r.value().status != 200)
    return Error(ErrorCode::kIOError, fmt::format("{}: HTTP {}", what, r.value().status)).with_file(req.url);
  return r;
}

std::string form_encode(const Pairs& pairs) { return canonical_query(pairs); }

Result<Credentials> web_identity(const std::string& token_file, const std::string& role_arn,
                                 const std::string& session_name, const std::string& region) {
  auto token = read_whole_file(token_file, 1 << 20);
  if (!token) return std::move(token).error().with_context("web identity token file (AWS_WEB_IDENTITY_TOKEN_FILE)");
  std::string endpoint = env("AWS_ENDPOINT_URL_STS");
  if (endpoint.empty()) endpoint = env("AWS_ENDPOINT_URL");
  if (endpoint.empty())
    endpoint = region.empty() ? "https://sts.amazonaws.com" : "https://sts." + region + ".amazonaws.com";
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  HttpRequest req;
  req.method = "POST";
  req.url = endpoint + "/";
  std::string body = form_encode({{"Action", "AssumeRoleWithWebIdentity"},
                                  {"Version", "2011-06-15"},
                                  {"RoleArn", role_arn},
                                  {"RoleSessionName", session_name},
                                  {"WebIdentityToken", trim(token.value())}});
  req.body = body;
  req.headers = {{"Content-Type", "application/x-www-form-urlencoded"}};
  auto r = http_send(req);
  if (!r) return std::move(r).error().with_context("STS AssumeRoleWithWebIdentity");
  if (r.value().status != 200) {
    ErrorBody e = parse_error_body(r.value().body);
    return Error(ErrorCode::kIOError,
                 fmt::format("STS AssumeRoleWithWebIdentity: HTTP {} {}: {}", r.value().status, e.code, e.message))
        .with_file(req.url);
  }
  auto c = parse_sts_credentials(r.value().body, req.url);
  if (c) c.value().source = "web identity (" + role_arn + ")";
  return c;
}

Result<Credentials> container(const std::string& full_uri, const std::string& relative_uri) {
  std::string uri = !relative_uri.empty() ? "http://169.254.170.2" + relative_uri : full_uri;
  HttpRequest req;
  req.url = uri;
  std::string token = env("AWS_CONTAINER_AUTHORIZATION_TOKEN");
  std::string token_file = env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
  if (!token_file.empty()) {
    auto t = read_whole_file(token_file, 1 << 16);
    if (!t) return std::move(t).error().with_context("container authorization token file");
    token = trim(t.value());
  }
  if (!token.empty()) req.headers.emplace_back("Authorization", token);
  auto r = fetch(req, "container credentials");
  if (!r) return std::move(r).error();
  return credentials_from_json(r.value().body, uri, "container credentials");
}

Result<Credentials> imds(const std::string& endpoint_setting) {
  std::string endpoint = endpoint_setting.empty() ? "http://169.254.169.254" : endpoint_setting;
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  HttpRequest put;
  put.method = "PUT";
  put.url = endpoint + "/latest/api/token";
  put.headers = {{"X-aws-ec2-metadata-token-ttl-seconds", "21600"}};
  auto token = fetch(put, "EC2 instance metadata (IMDSv2 token)");
  if (!token) return std::move(token).error();
  HttpRequest get;
  get.url = endpoint + "/latest/meta-data/iam/security-credentials/";
  get.headers = {{"X-aws-ec2-metadata-token", trim(token.value().body)}};
  auto role = fetch(get, "EC2 instance metadata (role name)");
  if (!role) return std::move(role).error();
  std::string name = trim(role.value().body.substr(0, role.value().body.find('\n')));
  if (name.empty() || name.find('/') != std::string::npos)
    return Error(ErrorCode::kCorruption, "EC2 instance metadata names no usable role").with_file(get.url);
  get.url += uri_encode(name, false);
  auto creds = fetch(get, "EC2 instance metadata (role credentials)");
  if (!creds) return std::move(creds).error();
  return credentials_from_json(creds.value().body, get.url, "EC2 instance metadata");
}

}  // namespace

Result<ProfileSection> read_profile(const std::string& path, const std::string& profile, bool config_file) {
  ProfileSection out;
  if (check_regular_input(path).ok() == false) return out;
  auto text = read_whole_file(path, 16 << 20);
  if (!text) return std::move(text).error();
  const std::string want = !config_file || profile == "default" ? profile : "profile " + profile;
  bool in = false;
  std::string nested;  // "s3" inside "s3 =\n  addressing_style = path"
  size_t pos = 0;
  const std::string& t = text.value();
  while (pos <= t.size()) {
    size_t end = t.find('\n', pos);
    if (end == std::string::npos) end = t.size();
    std::string_view raw(t.data() + pos, end - pos);
    pos = end + 1;
    bool indented = !raw.empty() && (raw.front() == ' ' || raw.front() == '\t');
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      if (line.back() != ']') return Error(ErrorCode::kCorruption, "malformed section header: " + line).with_file(path);
      in = trim(std::string_view(line).substr(1, line.size() - 2)) == want;
      nested.clear();
      continue;
    }
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = trim(std::string_view(line).substr(0, eq));
    std::string value = trim(std::string_view(line).substr(eq + 1));
    if (!indented) nested.clear();
    if (!in) continue;
    if (!indented && value.empty()) {
      nested = key;
      continue;
    }
    out[indented && !nested.empty() ? nested + "." + key : key] = value;
  }
  return out;
}

std::string profile_name(const std::string& explicit_profile) {
  if (!explicit_profile.empty()) return explicit_profile;
  std::string p = env("AWS_PROFILE");
  if (p.empty()) p = env("AWS_DEFAULT_PROFILE");
  return p.empty() ? "default" : p;
}

std::string credentials_file_path() {
  std::string p = env("AWS_SHARED_CREDENTIALS_FILE");
  return p.empty() ? home_file("/.aws/credentials") : p;
}

std::string config_file_path() {
  std::string p = env("AWS_CONFIG_FILE");
  return p.empty() ? home_file("/.aws/config") : p;
}

Result<ProfileSection> profile_settings(const std::string& profile) {
  auto config = read_profile(config_file_path(), profile, true);
  if (!config) return std::move(config).error();
  auto creds = read_profile(credentials_file_path(), profile, false);
  if (!creds) return std::move(creds).error();
  ProfileSection out = std::move(config).value();
  for (auto& [k, v] : creds.value()) out[k] = v;
  return out;
}

Result<Credentials> resolve_credentials(const std::string& explicit_profile, const std::string& region) {
  // An explicit --profile sets the environment's keys aside, as the AWS CLI's does.
  if (explicit_profile.empty() && !env("AWS_ACCESS_KEY_ID").empty()) {
    Credentials c{env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"), env("AWS_SESSION_TOKEN"), "environment"};
    if (c.secret_key.empty())
      return Error(ErrorCode::kInvalidArgument, "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not");
    return c;
  }
  const std::string profile = profile_name(explicit_profile);
  auto settings = profile_settings(profile);
  if (!settings) return std::move(settings).error();
  const ProfileSection& s = settings.value();
  auto get = [&](const char* k) {
    auto it = s.find(k);
    return it == s.end() ? std::string() : it->second;
  };
  std::string session = env("AWS_ROLE_SESSION_NAME");
  if (session.empty())
    session = fmt::format(
        "ckpt-{}",
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  if (!env("AWS_WEB_IDENTITY_TOKEN_FILE").empty() && !env("AWS_ROLE_ARN").empty())
    return web_identity(env("AWS_WEB_IDENTITY_TOKEN_FILE"), env("AWS_ROLE_ARN"), session, region);
  if (!get("web_identity_token_file").empty() && !get("role_arn").empty())
    return web_identity(get("web_identity_token_file"), get("role_arn"), session, region);
  if (!get("aws_access_key_id").empty()) {
    Credentials c{get("aws_access_key_id"), get("aws_secret_access_key"), get("aws_session_token"),
                  "profile " + profile};
    if (c.secret_key.empty())
      return Error(ErrorCode::kInvalidArgument,
                   fmt::format("profile '{}' has aws_access_key_id but no aws_secret_access_key", profile));
    return c;
  }
  if (!explicit_profile.empty() || !env("AWS_PROFILE").empty()) {
    if (s.empty())
      return Error(ErrorCode::kNotFound, fmt::format("profile '{}' not found in {} or {}", profile,
                                                     credentials_file_path(), config_file_path()));
  }
  if (!env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI").empty() || !env("AWS_CONTAINER_CREDENTIALS_FULL_URI").empty())
    return container(env("AWS_CONTAINER_CREDENTIALS_FULL_URI"), env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"));
  std::string disabled = env("AWS_EC2_METADATA_DISABLED");
  if (disabled != "true" && disabled != "TRUE" && disabled != "1") {
    std::string endpoint = env("AWS_EC2_METADATA_SERVICE_ENDPOINT");
    if (endpoint.empty()) endpoint = get("ec2_metadata_service_endpoint");
    auto c = imds(endpoint);
    if (c || !endpoint.empty()) return c;
  }
  return Error(ErrorCode::kNotFound,
               "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile (AWS_PROFILE), a web "
               "identity, container or instance role, or pass --no-sign-request for a public bucket");
}

}  // namespace ckpt::s3
