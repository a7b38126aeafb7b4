// RocksDB's checksums: CRC32C from support/crc32 (masked as RocksDB stores it); xxHash from the
// copy librocksdb carries.
#include "state/rocksdb/rocks_checksum.h"

#include <cstddef>

// librocksdb exports the xxHash it is built with under the ROCKSDB_ prefix (XXH_NAMESPACE in
// its util/xxhash.h): the very functions that computed the checksums being checked.
extern "C" {
uint32_t ROCKSDB_XXH32(const void* input, size_t length, uint32_t seed);
uint64_t ROCKSDB_XXH64(const void* input, size_t length, uint64_t seed);
uint64_t ROCKSDB_XXH3_64bits(const void* input, size_t length);
}

namespace ckpt {

uint32_t crc32c_mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

uint32_t crc32c_unmask(uint32_t masked) {
  uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

const char* block_checksum_name(BlockChecksumType t) {
  switch (t) {
    case BlockChecksumType::kNone: return "none";
    case BlockChecksumType::kCrc32c: return "crc32c";
    case BlockChecksumType::kXxHash: return "xxhash";
    case BlockChecksumType::kXxHash64: return "xxhash64";
    case BlockChecksumType::kXxh3: return "xxh3";
  }
  return "unknown";
}

std::optional<uint32_t> block_checksum(BlockChecksumType t, std::string_view in) {
  switch (t) {
    case BlockChecksumType::kNone: return std::nullopt;
    case BlockChecksumType::kCrc32c: return crc32c_mask(crc32c(0, in));
    case BlockChecksumType::kXxHash: return ROCKSDB_XXH32(in.data(), in.size(), 0);
    case BlockChecksumType::kXxHash64: return static_cast<uint32_t>(ROCKSDB_XXH64(in.data(), in.size(), 0));
    case BlockChecksumType::kXxh3: {
      // XXH3 of all but the last byte, which is mixed in by a multiply (ModifyChecksumForLastByte).
      if (in.empty()) return 0;
      const auto last = static_cast<uint8_t>(in.back());
      return static_cast<uint32_t>(ROCKSDB_XXH3_64bits(in.data(), in.size() - 1)) ^ (last * 0x6b9083d9u);
    }
  }
  return std::nullopt;
}

}  // namespace ckpt
