// Flink's RocksDB composite key (formats/keyed-state.md §5, §10).
#include "state/rocks_key_layout.h"

#include <fmt/format.h>

namespace ckpt {

int key_group_prefix_bytes(int32_t max_parallelism) { return max_parallelism > 128 ? 2 : 1; }

int32_t key_group_of_rocks_key(std::string_view key, int prefix_bytes) {
  if (key.size() < static_cast<size_t>(prefix_bytes)) return -1;
  int32_t kg = 0;
  for (int i = 0; i < prefix_bytes; ++i) kg = (kg << 8) | static_cast<uint8_t>(key[i]);
  return kg;
}

void append_key_group_prefix(std::string& out, int32_t key_group, int prefix_bytes) {
  if (prefix_bytes == 2) out.push_back(static_cast<char>((key_group >> 8) & 0xff));
  out.push_back(static_cast<char>(key_group & 0xff));
}

namespace {

// RocksDBKeySerializationUtils.writeVariableIntBytes: little-endian base-256, at least one byte.
void append_length_suffix(std::string& out, uint64_t length) {
  do {
    out.push_back(static_cast<char>(length & 0xff));
    length >>= 8;
  } while (length != 0);
}

}  // namespace

void RocksKeyLayout::append_base(std::string& out, int32_t key_group, std::string_view key, std::string_view ns) const {
  append_key_group_prefix(out, key_group, prefix_bytes_);
  out.append(key);
  if (length_suffixes_) append_length_suffix(out, key.size());
  out.append(ns);
  if (length_suffixes_) append_length_suffix(out, ns.size());
}

void RocksKeyLayout::read_length_suffix(ByteReader& r, uint64_t length) const {
  if (!length_suffixes_) return;
  const uint64_t at = r.offset();
  uint64_t v = length;
  uint64_t stored = 0;
  int shift = 0;
  do {
    stored |= uint64_t{r.u8()} << shift;
    shift += 8;
    v >>= 8;
  } while (v != 0 && r.ok());
  if (r.ok() && stored != length)
    r.fail_at(at, fmt::format("stored length suffix {} does not match the {} bytes read", stored, length));
}

}  // namespace ckpt
