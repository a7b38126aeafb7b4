// s3/crypto.h - the digests SigV4 needs, from OpenSSL (never our own).
#pragma once

#include <string>
#include <string_view>

namespace ckpt::s3 {

// Raw 32-byte digests.
std::string sha256(std::string_view data);
std::string hmac_sha256(std::string_view key, std::string_view data);
// Lower-case hex of any bytes.
std::string hex(std::string_view bytes);
inline std::string sha256_hex(std::string_view data) { return hex(sha256(data)); }
// Base64 of the MD5 of `data`: the Content-MD5 header DeleteObjects requires.
std::string md5_base64(std::string_view data);

}  // namespace ckpt::s3
