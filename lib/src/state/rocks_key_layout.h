// state/rocks_key_layout.h - Flink's RocksDB composite key, for readers and writers alike.
//
// SerializedCompositeKeyBuilder writes: the key-group prefix (1 or 2 bytes big endian), the key
// serializer's bytes, the namespace serializer's bytes, then a map's user key or a queue's
// element. When key and namespace serializers are both of variable length, the key and the
// namespace are each followed by their byte length (RocksDBKeySerializationUtils
// .writeVariableIntBytes), so that no two (key, namespace) pairs share their bytes. One class
// for the dump's decoder and convert's transcoder, so both accept exactly the same keys
// (formats/keyed-state.md §5, §10).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/byte_reader.h"

namespace ckpt {

// Bytes of the key-group prefix in RocksDB keys: 1 up to max parallelism 128, else 2 (formats/keyed-state.md §5).
int key_group_prefix_bytes(int32_t max_parallelism);
// The key group a RocksDB key's prefix names, or -1 if the key is shorter than the prefix.
int32_t key_group_of_rocks_key(std::string_view key, int prefix_bytes);
// The key-group prefix of RocksDB keys (1 or 2 bytes big endian, formats/keyed-state.md §5).
void append_key_group_prefix(std::string& out, int32_t key_group, int prefix_bytes);

class RocksKeyLayout {
 public:
  RocksKeyLayout() = default;
  // `key_length` / `namespace_length`: the serializers' fixed lengths, < 0 when variable
  // (RocksDBKeySerializationUtils.isAmbiguousKeyPossible).
  RocksKeyLayout(int32_t max_parallelism, int key_length, int namespace_length)
      : prefix_bytes_(key_group_prefix_bytes(max_parallelism)),
        length_suffixes_(key_length < 0 && namespace_length < 0) {}

  int prefix_bytes() const { return prefix_bytes_; }
  // Whether keys and namespaces carry length suffixes (both of variable length).
  bool length_suffixes() const { return length_suffixes_; }
  int32_t key_group(std::string_view key) const { return key_group_of_rocks_key(key, prefix_bytes_); }

  // The bytes every pair of the entry (key, namespace) in `key_group` starts with.
  void append_base(std::string& out, int32_t key_group, std::string_view key, std::string_view ns) const;
  // After a key or namespace of `length` bytes read from `r`: its length suffix, which must
  // state that length (r fails at the suffix otherwise). Nothing when keys carry no suffixes.
  void read_length_suffix(ByteReader& r, uint64_t length) const;

 private:
  int prefix_bytes_ = 1;
  bool length_suffixes_ = false;
};

}  // namespace ckpt
