#include "support/crc32.h"

#include <array>

namespace ckpt {

namespace {

// The reflected table of `polynomial` (reversed bit order), as RocksDB's util/crc32c and
// zlib's crc32 build theirs.
std::array<uint32_t, 256> crc_table(uint32_t polynomial) {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ polynomial : c >> 1;
    t[i] = c;
  }
  return t;
}

uint32_t crc_update(const std::array<uint32_t, 256>& table, uint32_t crc, std::string_view data) {
  crc = ~crc;
  for (unsigned char b : data) crc = table[(crc ^ b) & 0xff] ^ (crc >> 8);
  return ~crc;
}

}  // namespace

uint32_t crc32c(uint32_t crc, std::string_view data) {
  static const std::array<uint32_t, 256> table = crc_table(0x82F63B78u);
  return crc_update(table, crc, data);
}

uint32_t crc32_ieee(uint32_t crc, std::string_view data) {
  static const std::array<uint32_t, 256> table = crc_table(0xEDB88320u);
  return crc_update(table, crc, data);
}

}  // namespace ckpt
