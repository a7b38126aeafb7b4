#include "s3/crypto.h"

#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>

#include <mutex>

namespace ckpt::s3 {

namespace {

std::string digest(const EVP_MD* md, std::string_view data) {
  init_openssl();
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

}  // namespace

void init_openssl() {
  static std::once_flag once;
  std::call_once(once, [] { OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr); });
}

std::string sha256(std::string_view data) { return digest(EVP_sha256(), data); }

std::string hmac_sha256(std::string_view key, std::string_view data) {
  init_openssl();
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

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string md5_base64(std::string_view data) { return base64(digest(EVP_md5(), data)); }

struct StreamingDigest::Context {
  EVP_MD_CTX* ctx = (init_openssl(), EVP_MD_CTX_new());
  ~Context() { EVP_MD_CTX_free(ctx); }
};

StreamingDigest::StreamingDigest(Kind kind) : ctx_(std::make_unique<Context>()) {
  const EVP_MD* md = kind == Kind::kMd5 ? EVP_md5() : kind == Kind::kSha1 ? EVP_sha1() : EVP_sha256();
  EVP_DigestInit_ex(ctx_->ctx, md, nullptr);
}

StreamingDigest::~StreamingDigest() = default;

void StreamingDigest::add(std::string_view bytes) { EVP_DigestUpdate(ctx_->ctx, bytes.data(), bytes.size()); }

std::string StreamingDigest::value() const {
  Context copy;
  EVP_MD_CTX_copy_ex(copy.ctx, ctx_->ctx);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(copy.ctx, out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

}  // namespace ckpt::s3
