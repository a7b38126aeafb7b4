// MurmurHash3_x64_128 (Austin Appleby's public-domain algorithm), Guava's byte order.
#include "support/murmur3.h"

namespace ckpt {
namespace {

constexpr uint64_t kC1 = 0x87c37b91114253d5ULL;
constexpr uint64_t kC2 = 0x4cf5ad432745937fULL;

uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint64_t fmix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

// `n` (at most 8) bytes from `p`, little-endian.
uint64_t load_le(const unsigned char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

uint64_t mix_k1(uint64_t k1) { return rotl(k1 * kC1, 31) * kC2; }
uint64_t mix_k2(uint64_t k2) { return rotl(k2 * kC2, 33) * kC1; }

}  // namespace

std::array<uint8_t, 16> murmur3_x64_128(std::string_view bytes, uint32_t seed) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t len = bytes.size();
  uint64_t h1 = seed, h2 = seed;
  const size_t blocks = len / 16;
  for (size_t i = 0; i < blocks; ++i) {
    h1 ^= mix_k1(load_le(data + 16 * i, 8));
    h1 = (rotl(h1, 27) + h2) * 5 + 0x52dce729;
    h2 ^= mix_k2(load_le(data + 16 * i + 8, 8));
    h2 = (rotl(h2, 31) + h1) * 5 + 0x38495ab5;
  }
  const unsigned char* tail = data + 16 * blocks;
  const size_t rest = len % 16;
  if (rest > 8) h2 ^= mix_k2(load_le(tail + 8, rest - 8));
  if (rest > 0) h1 ^= mix_k1(load_le(tail, rest > 8 ? 8 : rest));
  h1 ^= len;
  h2 ^= len;
  h1 += h2;
  h2 += h1;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 += h2;
  h2 += h1;
  std::array<uint8_t, 16> out{};
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<uint8_t>(h1 >> (8 * i));
    out[8 + i] = static_cast<uint8_t>(h2 >> (8 * i));
  }
  return out;
}

}  // namespace ckpt
