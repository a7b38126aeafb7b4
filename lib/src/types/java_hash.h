// types/java_hash.h - Java hashCode() of decoded values whose class ckpt knows, for key groups.
//
// Flink assigns a key to murmur(key.hashCode()) % maxParallelism. For the JDK and Flink types
// below, hashCode() is fixed by their source and can be recomputed from the decoded JSON
// (value_decoder.h conventions). A POJO's or any user type's hashCode is user code: callers
// get nullopt ("not recomputable"), never a guess.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace ckpt {

// java.math.BigInteger#hashCode of a value printed as a JSON integer or a decimal string:
// 31-fold over the magnitude's big-endian 32-bit words, times the signum.
std::optional<int32_t> java_big_integer_hash(const nlohmann::json& value);
// java.math.BigDecimal#hashCode of {"unscaled":n,"scale":s}: 31 * unscaled.hashCode() + scale.
std::optional<int32_t> java_big_decimal_hash(const nlohmann::json& value);

}  // namespace ckpt
