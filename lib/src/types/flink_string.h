// types/flink_string.h - Flink's StringValue string encoding (varint7 length + UTF-16 units).
#pragma once

#include <string>

#include <string_view>

#include "support/byte_reader.h"
#include "support/byte_writer.h"

namespace ckpt {

// StringValue.readString: varint7 (length + 1), 0 = null, then that many UTF-16 code units as
// varint7 each. Returns false for null (and on error; check r.ok()). Output is UTF-8, with
// unpaired surrogates in their 3-byte (WTF-8) form.
bool read_flink_string(ByteReader& r, std::string* out);
// Advance past one such string without decoding it.
void skip_flink_string(ByteReader& r);
// StringValue's own (non-null) form: varint7 length without the +1.
void read_string_value(ByteReader& r, std::string* out);
void skip_string_value(ByteReader& r);

}  // namespace ckpt

namespace ckpt {

// StringValue.writeString of a UTF-8 (WTF-8) string: its UTF-16 units, as Java holds them.
void write_flink_string(ByteWriter& w, std::string_view utf8);
// The null string (length 0).
void write_flink_null_string(ByteWriter& w);
// StringValue's own form (no +1).
void write_string_value(ByteWriter& w, std::string_view utf8);

}  // namespace ckpt
