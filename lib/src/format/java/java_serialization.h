// format/java/java_serialization.h - the V4+ checkpoint-properties trailer of `_metadata`, a
// java.io.ObjectOutputStream stream, decoded and written without a JVM (formats/metadata.md §9).
#pragma once

#include <string>
#include <string_view>

#include "ckpt/error.h"
#include "ckpt/metadata.h"

namespace ckpt {

// Decode a CheckpointProperties object from `raw`, which must be exactly the serialized
// stream (from AC ED 00 05 to its last byte). `base_offset` is the absolute offset of raw[0]
// in the file, used in error offsets. The stream is read by the one Java-serialization reader
// (format/java/java_object_stream.h, at most 16 levels and 256 nodes) and every class descriptor
// is checked against Flink's classes (formats/metadata.md §9): trailing bytes, other classes,
// UIDs, fields or enum constants are errors at the offset of the construct.
Result<CheckpointProperties> decode_checkpoint_properties(std::string_view raw, uint64_t base_offset = 0);

// Serialize `p` exactly as Flink 1.16-2.x's ObjectOutputStream does (same class descriptors,
// UIDs, field order, handles), so that decode(encode(p)) == p and Flink restores the result.
std::string encode_checkpoint_properties(const CheckpointProperties& p);

// The properties Flink 1.16+ writes for a savepoint triggered by the user: forced, no action
// after it, in the canonical or the native format.
CheckpointProperties savepoint_properties(bool canonical);

}  // namespace ckpt
