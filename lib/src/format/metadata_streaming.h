// format/metadata_streaming.h - decoding `_metadata` one operator at a time, for callers that
// summarise a file of hundreds of megabytes without holding its whole model.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "ckpt/metadata.h"

namespace ckpt {

// Receives each operator as soon as it is decoded, in file order.
class OperatorSink {
 public:
  virtual ~OperatorSink() = default;
  // `op` is complete and is the sink's to read or take apart; it is discarded afterwards.
  virtual void operator_state(OperatorState& op, size_t index) = 0;
  // Decoding starts over (Flink 1.11's V3 layout, tried after the first reading failed): every
  // operator received so far is void.
  virtual void restart() = 0;
  // The decoder will not read the bytes before `offset` again: no restart can follow (the file
  // is not version 3) and every operator before it has been handed over. A sink that owns the
  // bytes may give their memory back.
  virtual void decoded_through(size_t offset) { (void)offset; }
};

// decode_metadata() that hands each operator to `sink` instead of keeping it: the result holds
// everything else (version, checkpoint id, master states, properties) with `operators` empty.
// The same errors as decode_metadata(); after one, what the sink received means nothing.
Result<Metadata> decode_metadata_streaming(std::string_view bytes, const std::string& file, OperatorSink& sink);

}  // namespace ckpt
