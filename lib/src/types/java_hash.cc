// BigInteger and BigDecimal hash codes from decoded JSON, as the JDK computes them; Flink's
// binary rows' from their bytes, as MurmurHashUtils does.
#include "types/java_hash.h"

#include <string>
#include <vector>

#include "support/json_input.h"

namespace ckpt {

namespace {

// 31-fold over big-endian words, as BigInteger#hashCode walks `mag` (leading zero words are
// not part of `mag` and add nothing to the fold either).
int32_t fold_words(const std::vector<uint32_t>& words_be, int signum) {
  uint32_t h = 0;
  for (uint32_t w : words_be) h = 31u * h + w;
  return static_cast<int32_t>(h * static_cast<uint32_t>(signum));
}

// The magnitude of a decimal string in base 2^32, most significant word first.
std::optional<std::vector<uint32_t>> decimal_words(const std::string& digits) {
  std::vector<uint32_t> le;  // least significant word first while accumulating
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t carry = static_cast<uint64_t>(c - '0');
    for (uint32_t& w : le) {
      uint64_t v = uint64_t{w} * 10 + carry;
      w = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
    if (carry) le.push_back(static_cast<uint32_t>(carry));
  }
  return std::vector<uint32_t>(le.rbegin(), le.rend());
}

}  // namespace

std::optional<int32_t> java_big_integer_hash(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    uint64_t m = v.get<uint64_t>();
    return fold_words({static_cast<uint32_t>(m >> 32), static_cast<uint32_t>(m)}, m == 0 ? 0 : 1);
  }
  if (v.is_number_integer()) {
    int64_t x = v.get<int64_t>();
    uint64_t m = x < 0 ? ~static_cast<uint64_t>(x) + 1 : static_cast<uint64_t>(x);
    return fold_words({static_cast<uint32_t>(m >> 32), static_cast<uint32_t>(m)}, x < 0 ? -1 : (x == 0 ? 0 : 1));
  }
  if (!v.is_string()) return std::nullopt;
  std::string s = v.get<std::string>();
  int signum = 1;
  if (!s.empty() && s[0] == '-') {
    signum = -1;
    s.erase(0, 1);
  }
  if (s.empty()) return std::nullopt;
  auto words = decimal_words(s);
  if (!words) return std::nullopt;
  if (words->empty()) signum = 0;
  return fold_words(*words, signum);
}

std::optional<int32_t> java_big_decimal_hash(const nlohmann::json& v) {
  const nlohmann::json* unscaled_member = json_member(v, "unscaled");
  const nlohmann::json* scale = json_member(v, "scale");
  if (!unscaled_member || !scale || !scale->is_number_integer()) return std::nullopt;
  auto unscaled = java_big_integer_hash(*unscaled_member);
  if (!unscaled) return std::nullopt;
  return static_cast<int32_t>(31u * static_cast<uint32_t>(*unscaled) + static_cast<uint32_t>(scale->get<int32_t>()));
}

std::optional<int32_t> flink_binary_section_hash(std::string_view section) {
  if (section.size() % 4 != 0 || section.size() > INT32_MAX) return std::nullopt;
  auto rotl = [](uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  uint32_t h = 42;  // MurmurHashUtils.DEFAULT_SEED
  for (size_t i = 0; i < section.size(); i += 4) {
    const auto* b = reinterpret_cast<const unsigned char*>(section.data() + i);
    uint32_t k = uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
    k *= 0xcc9e2d51u;  // mixK1
    k = rotl(k, 15);
    k *= 0x1b873593u;
    h ^= k;  // mixH1
    h = rotl(h, 13);
    h = h * 5 + 0xe6546b64u;
  }
  h ^= static_cast<uint32_t>(section.size());  // fmix(h1, length)
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return static_cast<int32_t>(h);
}

}  // namespace ckpt
