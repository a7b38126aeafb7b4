// state/snappy_framed.h - the framed Snappy stream that Flink's snapshot compression writes.
//
// Flink's SnappyStreamCompressionDecorator wraps xerial's SnappyFramedOutputStream (block size
// 64 KiB, minimum ratio 0.85), which writes Google's framing_format.txt: chunks of u8 type,
// u24 little-endian length, body. A compressed key group may hold several streams back to
// back (the heap writer starts one per state block); every stream begins with the identifier
// chunk, which xerial's reader requires and which may also recur in the middle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "support/byte_reader.h"

namespace ckpt {

// Decodes every chunk from `in`'s position to its end and appends the uncompressed bytes to
// `out`. The first chunk must be a stream identifier unless `expect_identifier` is false (an
// operator-state offset points at a data chunk in the middle of a stream). Checksums are not verified, as Flink's
// reader does not verify them either. Stops with an error once `out` would exceed
// `max_output` bytes, so that a hostile chunk sequence cannot exhaust memory.
// A bound on what `compressed` bytes may honestly decompress to: Snappy expands at most ~21x
// per chunk, so more than this is a hostile stream.
inline uint64_t snappy_decompressed_limit(uint64_t compressed) { return compressed * 32 + 65536; }

// With `stream_starts`, the size of `out` at every stream identifier chunk is appended to it:
// where each of several back-to-back streams begins in the output (a heap state block's start).
Status decode_snappy_framed(ByteReader& in, std::string* out, size_t max_output,
                            bool expect_identifier = true, std::vector<size_t>* stream_starts = nullptr);

// What xerial's SnappyFramedOutputStream writes for `data` given whole and then flushed, without
// the stream identifier: chunks of at most 64 KiB, each compressed where that takes at most 0.85
// of its size (else stored), behind the masked CRC-32C of its uncompressed bytes. Flink's
// compressed operator state flushes at every element's start: each element is such a run.
std::string encode_snappy_framed(std::string_view data);

}  // namespace ckpt
