// state/rocksdb/rocks_checksum.h - the checksums RocksDB writes: CRC32C of log records and of
// table blocks, and the xxHash family a table's footer may name instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "support/crc32.h"

namespace ckpt {

// crc32c() itself is support/crc32.h's.
// RocksDB stores crc32c::Mask(crc): rotated right by 15 bits plus a constant.
uint32_t crc32c_mask(uint32_t crc);
uint32_t crc32c_unmask(uint32_t masked);

// The checksum types of a block-based table's footer (RocksDB's ChecksumType).
enum class BlockChecksumType : uint8_t { kNone = 0, kCrc32c = 1, kXxHash = 2, kXxHash64 = 3, kXxh3 = 4 };
const char* block_checksum_name(BlockChecksumType t);

// What RocksDB stores in a block's trailer for `block_and_type`: the block's bytes followed by
// its compression-type byte (the first trailer byte), as table/format.cc computes it. nullopt
// for kNone.
std::optional<uint32_t> block_checksum(BlockChecksumType t, std::string_view block_and_type);

}  // namespace ckpt
