// s3/crypto.h - the digests SigV4 and the checks of downloads need, from Nettle (never our own).
// Nettle's are plain functions over a caller's context: OpenSSL 3's first digest initialised its
// provider machinery, 2.4 MiB resident, in every run that signed a request.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace ckpt::s3 {

// Raw 32-byte digests.
std::string sha256(std::string_view data);
std::string hmac_sha256(std::string_view key, std::string_view data);
// Lower-case hex of any bytes.
std::string hex(std::string_view bytes);
inline std::string sha256_hex(std::string_view data) { return hex(sha256(data)); }
// Base64 (RFC 4648, padded) of any bytes: how S3 spells digests in headers.
std::string base64(std::string_view bytes);
// Base64 of the MD5 of `data`: the Content-MD5 header DeleteObjects requires.
std::string md5_base64(std::string_view data);

// A digest of bytes given piece by piece (a download as it arrives).
class StreamingDigest {
 public:
  enum class Kind { kMd5, kSha1, kSha256 };
  explicit StreamingDigest(Kind kind);
  ~StreamingDigest();
  StreamingDigest(const StreamingDigest&) = delete;
  StreamingDigest& operator=(const StreamingDigest&) = delete;
  void add(std::string_view bytes);
  // The raw digest of everything added (a copy: more may be added after).
  std::string value() const;

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

}  // namespace ckpt::s3
