// s3/responses.h - what the S3 (and STS) answers we use say, read from their XML bodies.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "s3/sigv4.h"

namespace ckpt::s3 {

struct ErrorBody {
  std::string code;  // "NoSuchKey", "SignatureDoesNotMatch", "SlowDown", ...
  std::string message;
};
// An <Error> body; empty fields when the body is not one (a HEAD has no body at all).
ErrorBody parse_error_body(std::string_view body);

struct ObjectInfo {
  std::string key;
  uint64_t size = 0;
  int64_t last_modified = 0;  // seconds since the epoch, UTC
};
struct ListPage {
  std::vector<ObjectInfo> objects;
  std::vector<std::string> common_prefixes;
  bool truncated = false;
  std::string next_token;  // NextContinuationToken
};
Result<ListPage> parse_list_objects_v2(std::string_view body, const std::string& uri);

Result<std::string> parse_upload_id(std::string_view body, const std::string& uri);

struct DeleteFailure {
  std::string key, code, message;
};
Result<std::vector<DeleteFailure>> parse_delete_result(std::string_view body, const std::string& uri);

// "2026-12-01T22:10:00.000Z" (ISO 8601, UTC) to seconds since the epoch; false if malformed.
bool parse_iso8601(std::string_view s, int64_t* out);

// STS AssumeRoleWithWebIdentity's <Credentials>.
Result<Credentials> parse_sts_credentials(std::string_view body, const std::string& uri);

}  // namespace ckpt::s3
