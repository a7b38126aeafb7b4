#include "s3/crypto.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace ckpt::s3 {

namespace {

std::string digest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

}  // namespace

std::string sha256(std::string_view data) { return digest(EVP_sha256(), data); }

std::string hmac_sha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string hex(std::string_view bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string md5_base64(std::string_view data) {
  std::string md5 = digest(EVP_md5(), data);
  unsigned char out[32];
  int n = EVP_EncodeBlock(out, reinterpret_cast<const unsigned char*>(md5.data()), static_cast<int>(md5.size()));
  return std::string(reinterpret_cast<const char*>(out), n);
}

}  // namespace ckpt::s3
