#include "s3/responses.h"

#include <fmt/format.h>

#include "s3/xml.h"

namespace ckpt::s3 {

namespace {

bool parse_u64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

Error malformed(const std::string& uri, const XmlDoc& doc, int node, const std::string& what) {
  uint64_t at = node >= 0 && static_cast<size_t>(node) < doc.nodes.size() ? doc.nodes[node].offset : 0;
  return Error(ErrorCode::kCorruption, what, at).with_file(uri);
}

// The root element, checked to be `name`.
Result<XmlDoc> document(std::string_view body, const std::string& uri, std::string_view name) {
  auto doc = parse_xml(body, uri);
  if (!doc) return std::move(doc).error();
  if (doc.value().nodes[0].name != name)
    return malformed(uri, doc.value(), 0,
                     fmt::format("expected a <{}> response, found <{}>", name, doc.value().nodes[0].name));
  return doc;
}

}  // namespace

ErrorBody parse_error_body(std::string_view body) {
  ErrorBody e;
  auto doc = parse_xml(body, "");
  if (!doc) return e;
  const XmlDoc& d = doc.value();
  int root = 0;
  // STS wraps it: <ErrorResponse><Error>...</Error></ErrorResponse>.
  if (d.nodes[0].name == "ErrorResponse")
    root = d.child(0, "Error");
  else if (d.nodes[0].name != "Error")
    return e;
  if (root < 0) return e;
  e.code = d.child_text(root, "Code");
  e.message = d.child_text(root, "Message");
  return e;
}

bool parse_iso8601(std::string_view s, int64_t* out) {
  // YYYY-MM-DDTHH:MM:SS[.fff]Z
  if (s.size() < 20) return false;
  auto num = [&](size_t at, size_t n, int* v) {
    *v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      *v = *v * 10 + (s[i] - '0');
    }
    return true;
  };
  int y, mo, d, h, mi, sec;
  if (!num(0, 4, &y) || s[4] != '-' || !num(5, 2, &mo) || s[7] != '-' || !num(8, 2, &d) || s[10] != 'T' ||
      !num(11, 2, &h) || s[13] != ':' || !num(14, 2, &mi) || s[16] != ':' || !num(17, 2, &sec))
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return false;
  // Days from the civil date (Howard Hinnant's algorithm).
  int yy = y - (mo <= 2);
  int era = (yy >= 0 ? yy : yy - 399) / 400;
  int yoe = yy - era * 400;
  int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = static_cast<int64_t>(era) * 146097 + doe - 719468;
  *out = days * 86400 + h * 3600 + mi * 60 + sec;
  return true;
}

Result<ListPage> parse_list_objects_v2(std::string_view body, const std::string& uri) {
  auto doc = document(body, uri, "ListBucketResult");
  if (!doc) return std::move(doc).error();
  const XmlDoc& d = doc.value();
  ListPage page;
  page.truncated = d.child_text(0, "IsTruncated") == "true";
  page.next_token = d.child_text(0, "NextContinuationToken");
  if (page.truncated && page.next_token.empty())
    return malformed(uri, d, 0, "a truncated listing without a NextContinuationToken");
  for (int c : d.children_named(0, "Contents")) {
    ObjectInfo o;
    o.key = d.child_text(c, "Key");
    if (o.key.empty()) return malformed(uri, d, c, "a listed object without a <Key>");
    if (!parse_u64(d.child_text(c, "Size"), &o.size))
      return malformed(uri, d, c, fmt::format("object '{}' without a valid <Size>", o.key));
    if (!parse_iso8601(d.child_text(c, "LastModified"), &o.last_modified))
      return malformed(uri, d, c, fmt::format("object '{}' without a valid <LastModified>", o.key));
    page.objects.push_back(std::move(o));
  }
  for (int c : d.children_named(0, "CommonPrefixes")) page.common_prefixes.push_back(d.child_text(c, "Prefix"));
  return page;
}

Result<std::string> parse_upload_id(std::string_view body, const std::string& uri) {
  auto doc = document(body, uri, "InitiateMultipartUploadResult");
  if (!doc) return std::move(doc).error();
  std::string id = doc.value().child_text(0, "UploadId");
  if (id.empty()) return malformed(uri, doc.value(), 0, "no <UploadId> in the answer to CreateMultipartUpload");
  return id;
}

Result<std::vector<DeleteFailure>> parse_delete_result(std::string_view body, const std::string& uri) {
  auto doc = document(body, uri, "DeleteResult");
  if (!doc) return std::move(doc).error();
  const XmlDoc& d = doc.value();
  std::vector<DeleteFailure> out;
  for (int c : d.children_named(0, "Error"))
    out.push_back({d.child_text(c, "Key"), d.child_text(c, "Code"), d.child_text(c, "Message")});
  return out;
}

Result<Credentials> parse_sts_credentials(std::string_view body, const std::string& uri) {
  auto doc = document(body, uri, "AssumeRoleWithWebIdentityResponse");
  if (!doc) return std::move(doc).error();
  const XmlDoc& d = doc.value();
  int result = d.child(0, "AssumeRoleWithWebIdentityResult");
  int creds = d.child(result, "Credentials");
  if (creds < 0) return malformed(uri, d, 0, "no <Credentials> in the STS answer");
  Credentials c;
  c.access_key = d.child_text(creds, "AccessKeyId");
  c.secret_key = d.child_text(creds, "SecretAccessKey");
  c.session_token = d.child_text(creds, "SessionToken");
  if (c.access_key.empty() || c.secret_key.empty())
    return malformed(uri, d, creds, "STS credentials without an AccessKeyId or SecretAccessKey");
  return c;
}

}  // namespace ckpt::s3
