// types/java_hash.h - Java hashCode() of decoded values whose class ckpt knows, for key groups.
//
// Flink assigns a key to murmur(key.hashCode()) % maxParallelism. For the JDK and Flink types
// below, hashCode() is fixed by their source and can be recomputed from the decoded JSON
// (value_decoder.h conventions). A POJO's or any user type's hashCode is user code: callers
// get nullopt ("not recomputable"), never a guess.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ckpt {

// java.math.BigInteger#hashCode of a value printed as a JSON integer or a decimal string:
// 31-fold over the magnitude's big-endian 32-bit words, times the signum.
std::optional<int32_t> java_big_integer_hash(const nlohmann::json& value);
// java.math.BigDecimal#hashCode of {"unscaled":n,"scale":s}: 31 * unscaled.hashCode() + scale.
std::optional<int32_t> java_big_decimal_hash(const nlohmann::json& value);

// hashCode() of a BinaryRowData, BinaryArrayData or BinaryMapData whose bytes are `section`
// (BinarySegmentUtils.hashByWords): MurmurHashUtils.hashBytesByWords with seed 42 over the
// section's 32-bit words in the machine order Flink wrote them (little endian), then fmix with
// the length. A SQL job's key is such a row, so this is its key's hash. nullopt if the length is
// not a multiple of 4 (Flink's sections are whole words: rows are 8-byte aligned).
std::optional<int32_t> flink_binary_section_hash(std::string_view section);

}  // namespace ckpt
