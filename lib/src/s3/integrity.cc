#include "s3/integrity.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <vector>

#include "s3/crypto.h"
#include "support/crc32.h"

namespace ckpt::s3 {

namespace {

std::string header_of(const Pairs& headers, std::string_view name) {
  for (const auto& [k, v] : headers)
    if (k == name) return v;
  return {};
}

// The MD5 an ETag is ("\"<32 hex>\""), or empty: a multipart upload's "<hex>-N", an encrypted
// object's (SSE-KMS, SSE-C: the ETag is no digest of the bytes), another store's opaque tag.
std::string etag_md5(const Pairs& headers) {
  const std::string sse = header_of(headers, "x-amz-server-side-encryption");
  if (sse.rfind("aws:kms", 0) == 0 || !header_of(headers, "x-amz-server-side-encryption-customer-algorithm").empty())
    return {};
  std::string etag = header_of(headers, "etag");
  if (etag.rfind("W/", 0) == 0) return {};  // a weak tag promises nothing of the bytes
  if (etag.size() == 34 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, 32);
  if (etag.size() != 32) return {};
  for (char& c : etag) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return {};
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return etag;
}

std::string crc_bytes_be(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

std::optional<uint64_t> decimal_of(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

struct BodyDigests::State {
  std::optional<uint64_t> length;  // the bytes there must be
  uint64_t received = 0;
  std::string md5_hex;  // the ETag's, or empty
  std::unique_ptr<StreamingDigest> md5;
  // x-amz-checksum-*: its name, the value the answer gave (base64), the running value.
  struct Checksum {
    std::string name, expected;
    uint32_t crc = 0;
    bool castagnoli = false;
    std::unique_ptr<StreamingDigest> digest;  // SHA-1, SHA-256; null for the CRCs
  };
  std::vector<Checksum> checksums;

  void want_md5(const Pairs& headers) {
    md5_hex = etag_md5(headers);
    if (!md5_hex.empty()) md5 = std::make_unique<StreamingDigest>(StreamingDigest::Kind::kMd5);
  }
};

BodyDigests::BodyDigests(std::unique_ptr<State> state) : state_(std::move(state)) {}
BodyDigests::BodyDigests(BodyDigests&&) noexcept = default;
BodyDigests& BodyDigests::operator=(BodyDigests&&) noexcept = default;
BodyDigests::~BodyDigests() = default;

BodyDigests BodyDigests::of_whole_answer(const Pairs& headers) {
  auto s = std::make_unique<State>();
  s->length = decimal_of(header_of(headers, "content-length"));
  s->want_md5(headers);
  for (const char* name : {"crc32", "crc32c", "sha1", "sha256"}) {
    const std::string value = header_of(headers, std::string("x-amz-checksum-") + name);
    if (value.empty() || value.find('-') != std::string::npos) continue;  // none, or composite
    State::Checksum c;
    c.name = name;
    c.expected = value;
    c.castagnoli = c.name == "crc32c";
    if (c.name == "sha1") c.digest = std::make_unique<StreamingDigest>(StreamingDigest::Kind::kSha1);
    if (c.name == "sha256") c.digest = std::make_unique<StreamingDigest>(StreamingDigest::Kind::kSha256);
    s->checksums.push_back(std::move(c));
  }
  return BodyDigests(std::move(s));
}

BodyDigests BodyDigests::of_parts(const Pairs& headers, uint64_t size) {
  auto s = std::make_unique<State>();
  s->length = size;
  s->want_md5(headers);
  return BodyDigests(std::move(s));
}

void BodyDigests::add(std::string_view bytes) {
  State& s = *state_;
  s.received += bytes.size();
  if (s.md5) s.md5->add(bytes);
  for (State::Checksum& c : s.checksums) {
    if (c.digest)
      c.digest->add(bytes);
    else
      c.crc = c.castagnoli ? crc32c(c.crc, bytes) : crc32_ieee(c.crc, bytes);
  }
}

Status BodyDigests::check(const std::string& uri) const {
  const State& s = *state_;
  auto damaged = [&](const std::string& what) {
    return Error(ErrorCode::kCorruption, fmt::format("download damaged in transit: {}", what)).with_file(uri);
  };
  if (s.length && s.received != *s.length)
    return damaged(fmt::format("{} bytes received, the object has {}", s.received, *s.length));
  if (s.md5) {
    const std::string got = hex(s.md5->value());
    if (got != s.md5_hex) return damaged(fmt::format("MD5 of the bytes is {}, the ETag says {}", got, s.md5_hex));
  }
  for (const State::Checksum& c : s.checksums) {
    const std::string got = base64(c.digest ? c.digest->value() : crc_bytes_be(c.crc));
    if (got != c.expected)
      return damaged(fmt::format("{} of the bytes is {}, x-amz-checksum-{} says {}", c.name, got, c.name, c.expected));
  }
  return {};
}

std::string BodyDigests::checked() const {
  std::string out = state_->length ? "length" : "";
  if (state_->md5) out += out.empty() ? "ETag MD5" : ", ETag MD5";
  for (const State::Checksum& c : state_->checksums) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

std::optional<ContentRange> parse_content_range(std::string_view v) {
  if (v.rfind("bytes ", 0) != 0) return std::nullopt;
  v.remove_prefix(6);
  const size_t dash = v.find('-'), slash = v.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || dash > slash) return std::nullopt;
  auto first = decimal_of(v.substr(0, dash)), last = decimal_of(v.substr(dash + 1, slash - dash - 1));
  if (!first || !last || *last < *first) return std::nullopt;
  ContentRange r{*first, *last, std::nullopt};
  const std::string_view total = v.substr(slash + 1);
  if (total != "*") {
    r.total = decimal_of(total);
    if (!r.total || *r.total <= *last) return std::nullopt;
  }
  return r;
}

Status check_range_answer(std::string_view content_range, uint64_t offset, uint64_t asked, uint64_t received,
                          const std::string& uri, std::optional<uint64_t> object_size) {
  auto wrong = [&](const std::string& what) {
    return Error(ErrorCode::kCorruption, fmt::format("ranged GET of {} bytes at offset {}: {}", asked, offset, what))
        .with_file(uri);
  };
  std::optional<ContentRange> r = parse_content_range(content_range);
  if (!r) return wrong(fmt::format("the answer's Content-Range '{}' is not 'bytes FIRST-LAST/TOTAL'", content_range));
  if (r->first != offset || r->last - r->first + 1 != received)
    return wrong(fmt::format("{} bytes received, the answer's Content-Range says '{}'", received, content_range));
  if (object_size && r->total && *r->total != *object_size)
    return wrong(fmt::format("the object is of {} bytes (Content-Range '{}'), it was listed with {}: it changed since",
                             *r->total, content_range, *object_size));
  const bool at_end = r->total && r->last + 1 == *r->total;
  if (received > asked || (received < asked && !at_end))
    return wrong(fmt::format("{} bytes received (Content-Range '{}')", received, content_range));
  return {};
}

}  // namespace ckpt::s3
