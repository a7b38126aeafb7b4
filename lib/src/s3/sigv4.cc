#include "s3/sigv4.h"

#include <algorithm>
#include <ctime>
#include <map>

#include "s3/crypto.h"

namespace ckpt::s3 {

namespace {

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Leading and trailing spaces dropped, inner runs of spaces made one (SigV4's "Trimall").
std::string trim_all(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace

std::string uri_encode(std::string_view s, bool keep_slash) {
  static const char digits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (unreserved(c) || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

std::string canonical_query(const Pairs& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [k, v] : query) encoded.emplace_back(uri_encode(k, false), uri_encode(v, false));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [k, v] : encoded) {
    if (!out.empty()) out += '&';
    out += k;
    out += '=';
    out += v;
  }
  return out;
}

Signed sign_v4(const SignRequest& r, const Credentials& c) {
  Signed s;
  s.headers.emplace_back("x-amz-date", r.amz_date);
  if (r.content_sha256_header) s.headers.emplace_back("x-amz-content-sha256", r.payload_hash);
  if (!c.session_token.empty()) s.headers.emplace_back("x-amz-security-token", c.session_token);

  // Names lower-cased and sorted; values of a repeated name joined by ',' in their order.
  std::map<std::string, std::string> headers;
  auto add = [&](const std::string& name, const std::string& value) {
    std::string key = lower(name);
    auto [it, fresh] = headers.emplace(key, trim_all(value));
    if (!fresh) it->second += "," + trim_all(value);
  };
  add("host", r.host);
  for (const auto& [k, v] : r.headers)
    if (lower(k) != "host") add(k, v);
  for (const auto& [k, v] : s.headers)
    if (headers.find(k) == headers.end()) add(k, v);

  std::string canonical_headers, signed_headers;
  for (const auto& [k, v] : headers) {
    canonical_headers += k + ":" + v + "\n";
    if (!signed_headers.empty()) signed_headers += ';';
    signed_headers += k;
  }
  s.canonical_request = r.method + "\n" + uri_encode(r.path.empty() ? "/" : r.path, true) + "\n" +
                        canonical_query(r.query) + "\n" + canonical_headers + "\n" + signed_headers + "\n" +
                        r.payload_hash;
  const std::string date = r.amz_date.substr(0, 8);
  const std::string scope = date + "/" + r.region + "/" + r.service + "/aws4_request";
  s.string_to_sign = "AWS4-HMAC-SHA256\n" + r.amz_date + "\n" + scope + "\n" + sha256_hex(s.canonical_request);
  std::string key = hmac_sha256("AWS4" + c.secret_key, date);
  key = hmac_sha256(key, r.region);
  key = hmac_sha256(key, r.service);
  key = hmac_sha256(key, "aws4_request");
  s.signature = hex(hmac_sha256(key, s.string_to_sign));
  s.authorization = "AWS4-HMAC-SHA256 Credential=" + c.access_key + "/" + scope + ", SignedHeaders=" + signed_headers +
                    ", Signature=" + s.signature;
  s.headers.emplace_back("Authorization", s.authorization);
  return s;
}

std::string amz_date(long long epoch_seconds) {
  std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

}  // namespace ckpt::s3
