#include "s3/crypto.h"

#include <nettle/base64.h>
#include <nettle/hmac.h>
#include <nettle/md5.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>

#include <variant>

namespace ckpt::s3 {

namespace {

const uint8_t* bytes_of(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }

std::string raw(const uint8_t* digest, size_t n) { return std::string(reinterpret_cast<const char*>(digest), n); }

// One digest of `data` by Nettle's init/update/digest triple of context type Ctx.
template <typename Ctx, size_t kSize>
std::string digest_of(std::string_view data, void (*init)(Ctx*), void (*update)(Ctx*, size_t, const uint8_t*),
                      void (*finish)(Ctx*, size_t, uint8_t*)) {
  Ctx ctx;
  init(&ctx);
  update(&ctx, data.size(), bytes_of(data));
  uint8_t out[kSize];
  finish(&ctx, sizeof out, out);
  return raw(out, sizeof out);
}

}  // namespace

std::string sha256(std::string_view data) {
  return digest_of<sha256_ctx, SHA256_DIGEST_SIZE>(data, sha256_init, sha256_update, sha256_digest);
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  hmac_sha256_ctx ctx;
  hmac_sha256_set_key(&ctx, key.size(), bytes_of(key));
  hmac_sha256_update(&ctx, data.size(), bytes_of(data));
  uint8_t out[SHA256_DIGEST_SIZE];
  hmac_sha256_digest(&ctx, sizeof out, out);
  return raw(out, sizeof out);
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
  std::string out(BASE64_ENCODE_RAW_LENGTH(bytes.size()), '\0');
  base64_encode_raw(reinterpret_cast<char*>(out.data()), bytes.size(), bytes_of(bytes));
  return out;
}

std::string md5_base64(std::string_view data) {
  return base64(digest_of<md5_ctx, MD5_DIGEST_SIZE>(data, md5_init, md5_update, md5_digest));
}

struct StreamingDigest::Context {
  std::variant<md5_ctx, sha1_ctx, sha256_ctx> ctx;
};

StreamingDigest::StreamingDigest(Kind kind) : ctx_(std::make_unique<Context>()) {
  switch (kind) {
    case Kind::kMd5:
      md5_init(&ctx_->ctx.emplace<md5_ctx>());
      break;
    case Kind::kSha1:
      sha1_init(&ctx_->ctx.emplace<sha1_ctx>());
      break;
    case Kind::kSha256:
      sha256_init(&ctx_->ctx.emplace<sha256_ctx>());
      break;
  }
}

StreamingDigest::~StreamingDigest() = default;

void StreamingDigest::add(std::string_view bytes) {
  std::visit(
      [&](auto& c) {
        using C = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<C, md5_ctx>) md5_update(&c, bytes.size(), bytes_of(bytes));
        if constexpr (std::is_same_v<C, sha1_ctx>) sha1_update(&c, bytes.size(), bytes_of(bytes));
        if constexpr (std::is_same_v<C, sha256_ctx>) sha256_update(&c, bytes.size(), bytes_of(bytes));
      },
      ctx_->ctx);
}

// Nettle's digest() resets its context: a copy is finished, so more may be added after.
std::string StreamingDigest::value() const {
  return std::visit(
      [](auto c) {
        using C = decltype(c);
        if constexpr (std::is_same_v<C, md5_ctx>) {
          uint8_t out[MD5_DIGEST_SIZE];
          md5_digest(&c, sizeof out, out);
          return raw(out, sizeof out);
        } else if constexpr (std::is_same_v<C, sha1_ctx>) {
          uint8_t out[SHA1_DIGEST_SIZE];
          sha1_digest(&c, sizeof out, out);
          return raw(out, sizeof out);
        } else {
          uint8_t out[SHA256_DIGEST_SIZE];
          sha256_digest(&c, sizeof out, out);
          return raw(out, sizeof out);
        }
      },
      ctx_->ctx);
}

}  // namespace ckpt::s3
