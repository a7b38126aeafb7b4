// ops/generate/generate_model.h - the synthetic job behind `ckpt generate`: its states, keys and values.
//
// Everything is derived from the seed by counter-based hashing (no generator state), so any
// subtask, key group or chain step is produced independently and identically on every run.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "format/key_groups.h"
#include "state/backend_meta.h"
#include "state/layout_transcoder.h"

namespace ckpt {

// SplitMix64 of x: the mixing function every derived number goes through.
uint64_t generate_mix(uint64_t x);


class GenerateModel {
 public:
  static Result<GenerateModel> make(const GenerateOptions& options);

  const GenerateOptions& options() const { return options_; }
  const KeyedBackendMeta& meta() const { return meta_; }
  const OperatorId& operator_id(int32_t op) const { return operator_ids_[op]; }
  // Indices of the keys that fall into key group `kg` (the same for every operator).
  const std::vector<uint32_t>& keys_of(int32_t kg) const { return keys_by_group_[kg]; }

  // The RocksDB-layout pairs of operator `op` in key group `kg` at `version` (a chain's
  // rewrite count of the key group's bucket; 0 for a single snapshot), appended by state.
  void pairs(int32_t op, int32_t kg, uint32_t version, std::vector<std::vector<RocksPair>>* by_state) const;

  // The same entries logically, one call per entry a dump shows: state index, key index,
  // map field (-1 for value and list states) and the value in its RocksDB encoding.
  using EntryFn = std::function<void(size_t state, uint32_t key, int32_t field, std::string&& value)>;
  void entries(int32_t op, int32_t kg, uint32_t version, const EntryFn& fn) const;

  static std::string key_name(uint32_t key);   // "user-0000000042"
  static std::string field_name(int32_t field);  // "field-1"

 private:
  GenerateModel() = default;
  std::string key_bytes(uint32_t key) const;
  std::string byte_array(uint64_t h) const;  // i32 length + value_size bytes derived from h

  GenerateOptions options_;
  KeyedBackendMeta meta_;
  std::vector<OperatorId> operator_ids_;
  std::vector<std::vector<uint32_t>> keys_by_group_;
  std::vector<char> state_kinds_;  // 'v', 'l', 'm' per proxy state
};

}  // namespace ckpt
