// format/metadata_offsets.h - where each operator and subtask record lies in a `_metadata`
// image, so that a problem found in the decoded model (a key-group range, a parallelism) can be
// reported at its byte offset, as decoding errors are.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/metadata.h"

namespace ckpt {

struct MetadataOffsets {
  struct Subtask {
    int32_t index = 0;
    uint64_t record = 0;         // the stored subtask index
    uint64_t managed_keyed = 0;  // the type byte of each keyed handle (the record's for a finished subtask)
    uint64_t raw_keyed = 0;
  };
  struct Operator {
    uint64_t record = 0;       // the operator's first byte
    uint64_t parallelism = 0;  // the parallelism, followed by the max parallelism
    std::vector<Subtask> subtasks;  // file order
  };
  std::vector<Operator> operators;  // file order

  // The offset of `slot` ("managed-keyed", "raw-keyed"; anything else: the subtask's record) of
  // subtask `subtask` (-1: the operator's parallelism) of the operator with id `op_hex`.
  std::optional<uint64_t> find(const Metadata& m, const std::string& op_hex, int32_t subtask,
                               std::string_view slot) const;
};

// decode_metadata() that also fills `offsets`.
Result<Metadata> decode_metadata_located(std::string_view bytes, const std::string& file, MetadataOffsets& offsets);

}  // namespace ckpt
