// support/crc32.h - the two CRC-32s of the formats ckpt reads: CRC32C (Castagnoli), which
// RocksDB stores in its logs and blocks, and CRC32 (IEEE, zlib's), which S3 offers as an
// object's checksum beside CRC32C. Table-driven; `crc` continues a running value (0 to start).
#pragma once

#include <cstdint>
#include <string_view>

namespace ckpt {

uint32_t crc32c(uint32_t crc, std::string_view data);
uint32_t crc32_ieee(uint32_t crc, std::string_view data);

}  // namespace ckpt
