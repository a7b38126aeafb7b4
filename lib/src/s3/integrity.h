// s3/integrity.h - what a GET answer lets the client check of the bytes it received, so that
// a bit flipped in transit is an error naming the object, never other bytes read as the state.
//
// - Every answer: its length. A whole object's bytes are as many as its Content-Length; a
//   ranged answer's Content-Range names the bytes asked for ("bytes FIRST-LAST/TOTAL").
// - A whole object: the MD5 its ETag is, where the ETag is one (32 hex digits: an object
//   uploaded in one PUT, not encrypted with SSE-KMS or SSE-C; a multipart upload's "HEX-N" is a
//   digest of digests), and each full-object checksum the answer carries
//   (x-amz-checksum-crc32, -crc32c, -sha1, -sha256, asked for with x-amz-checksum-mode; a
//   multipart upload's composite "BASE64-N" is skipped).
// - An object fetched in ranged parts: the MD5 of all its bytes against the ETag (ranged
//   answers carry no checksums of their own).
// A range of an object read alone can only be checked for its length, and its TOTAL against
//   the size the object was listed with (an object replaced since is another size, mostly):
//   neither the ETag nor a checksum covers part of an object (formats/object-stores.md §5).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ckpt/error.h"
#include "s3/sigv4.h"

namespace ckpt::s3 {

class BodyDigests {
 public:
  // What a 200 answer to a GET of the whole object says of its bytes (headers lower-cased).
  static BodyDigests of_whole_answer(const Pairs& headers);
  // What the ETag of an object fetched by ranges says of all its `size` bytes, from one of the
  // answers' headers.
  static BodyDigests of_parts(const Pairs& headers, uint64_t size);
  BodyDigests(BodyDigests&&) noexcept;
  BodyDigests& operator=(BodyDigests&&) noexcept;
  ~BodyDigests();

  void add(std::string_view bytes);
  // kCorruption naming `uri` unless the bytes added are the object's, by every check above
  // that applies.
  Status check(const std::string& uri) const;
  // The digests the answer offered, for tests and the error message ("ETag MD5", "CRC32C").
  std::string checked() const;

  struct State;

 private:
  explicit BodyDigests(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// "bytes FIRST-LAST/TOTAL" (TOTAL may be "*").
struct ContentRange {
  uint64_t first = 0, last = 0;
  std::optional<uint64_t> total;
};
std::optional<ContentRange> parse_content_range(std::string_view value);

// kCorruption naming `uri` unless a 206 answer to a GET of bytes [offset, offset + asked) names
// them in its Content-Range: from `offset`, `received` bytes (fewer than asked only at the
// object's end), and, given the object's size as listed, with that total (another total is
// another object, written since it was listed).
Status check_range_answer(std::string_view content_range, uint64_t offset, uint64_t asked, uint64_t received,
                          const std::string& uri, std::optional<uint64_t> object_size = std::nullopt);

// The header that asks S3 for an object's checksums with a whole GET.
inline constexpr const char* kChecksumModeHeader = "x-amz-checksum-mode";

}  // namespace ckpt::s3
