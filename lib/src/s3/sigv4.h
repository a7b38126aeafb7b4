// s3/sigv4.h - AWS Signature Version 4, our own: curl's CURLOPT_AWS_SIGV4 mis-encodes query
// strings and keys holding '=', '+' or spaces (curl issues #13754, #20543, #11794) and signs no
// session token. S3 signs the path as it stands: each byte outside the unreserved set
// percent-encoded once, '/' kept, no normalization of "//" or "..".
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ckpt::s3 {

struct Credentials {
  std::string access_key;
  std::string secret_key;
  std::string session_token;  // empty unless temporary; sent and signed as x-amz-security-token
  std::string source;         // where the chain found them ("environment", "profile default", ...)
};

using Pairs = std::vector<std::pair<std::string, std::string>>;

// RFC 3986 percent-encoding as SigV4 defines it: A-Z a-z 0-9 - . _ ~ kept (and '/' with
// keep_slash), every other byte %XX in upper-case hex. A space is %20, never '+'.
std::string uri_encode(std::string_view s, bool keep_slash);
// The query as the canonical request and the URL carry it: each name and value encoded,
// sorted by encoded name then value, "name=value" joined by '&'.
std::string canonical_query(const Pairs& query);

struct SignRequest {
  std::string method;
  std::string host;          // the Host header's value (with ":port" when not the scheme's default)
  std::string path;          // decoded ("/bucket/a b=c"): the signer encodes it
  Pairs query;               // decoded names and values
  Pairs headers;             // further headers to sign (Range, Content-Type, ...), any case
  std::string payload_hash;  // hex SHA-256 of the body, or "UNSIGNED-PAYLOAD"
  std::string amz_date;      // "20150830T123600Z"
  std::string region;
  std::string service = "s3";
  // S3 requires the payload hash as a header too; the published suite's vectors sign without.
  bool content_sha256_header = true;
};

struct Signed {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;
  std::string authorization;
  Pairs headers;  // what to send beside the request's own: x-amz-date, x-amz-content-sha256,
                  // x-amz-security-token, Authorization (Host is the HTTP library's)
};

Signed sign_v4(const SignRequest& request, const Credentials& credentials);

// "20150830T123600Z" of a time in seconds since the epoch.
std::string amz_date(long long epoch_seconds);

}  // namespace ckpt::s3
