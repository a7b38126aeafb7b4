// support/murmur3.h - MurmurHash3 x64 128-bit, as Guava's Hashing.murmur3_128(seed) computes it.
//
// Flink derives an operator's id from its uid with this hash (StreamGraphHasherV2), so the
// bytes are returned in Guava's HashCode.asBytes() order: h1 then h2, each little-endian.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace ckpt {

std::array<uint8_t, 16> murmur3_x64_128(std::string_view bytes, uint32_t seed = 0);

}  // namespace ckpt
