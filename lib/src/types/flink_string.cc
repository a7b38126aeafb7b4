// Flink's StringValue string encoding, decoded to UTF-8.
#include "types/flink_string.h"

#include <vector>

#include <fmt/format.h>

#include "support/ascii_scan.h"

namespace ckpt {
namespace {

// One varint7 as StringValue writes it (at most 5 groups for a 32-bit value).
uint32_t read_varint7(ByteReader& r) {
  uint64_t start = r.offset();
  uint32_t v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    uint8_t b = r.u8();
    if (!r.ok()) return 0;
    v |= uint32_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) return v;
  }
  r.fail_at(start, "string length varint longer than 5 bytes");
  return 0;
}

// One UTF-16 code unit as varint7 (1 to 3 groups carry 16 bits; a 4th is tolerated as Java does
// not refuse it, a 5th is corruption).
uint16_t read_unit(ByteReader& r) {
  uint32_t c = r.u8();
  if (c < 0x80) return static_cast<uint16_t>(c);
  c &= 0x7f;
  for (int shift = 7; r.ok(); shift += 7) {
    uint32_t b = r.u8();
    if (b < 0x80) return static_cast<uint16_t>(c | (b << shift));
    if (shift >= 21) {
      r.fail("string character varint longer than 4 bytes");
      break;
    }
    c |= (b & 0x7f) << shift;
  }
  return 0;
}

// Each unit is at least one byte: a length the data cannot hold is refused before anything is
// allocated or read.
bool units_fit(ByteReader& r, uint32_t n) {
  if (n <= r.remaining()) return true;
  r.fail(fmt::format("string of {} characters needs at least {} bytes, only {} left", n, n, r.remaining()));
  return false;
}

// The leading units of `n` that are ASCII: one byte each, and that same byte in UTF-8 (keys and
// map keys are mostly ASCII; a read per unit was 2% of `ckpt convert` heap -> rocksdb and 10% of
// `ckpt dump`). `n` fits the reader.
uint32_t ascii_units(const ByteReader& r, uint32_t n) {
  const uint8_t* p = r.data() + r.position();
  uint32_t ascii = 0;
  while (ascii < n && p[ascii] < 0x80) ++ascii;
  return ascii;
}

void read_units(ByteReader& r, uint32_t n, std::string* out) {
  if (!units_fit(r, n)) return;
  const uint32_t ascii = ascii_units(r, n);
  if (ascii > 0) {
    out->append(reinterpret_cast<const char*>(r.data() + r.position()), ascii);
    r.skip(ascii);
  }
  if (ascii == n) return;
  // A surrogate pairs only with its neighbour, never with an ASCII unit: the rest converts alone.
  std::vector<uint16_t> units;
  units.reserve(n - ascii);
  for (uint32_t i = ascii; i < n && r.ok(); ++i) units.push_back(read_unit(r));
  if (!r.ok()) {
    out->resize(out->size() - ascii);  // a damaged string leaves nothing behind, as before
    return;
  }
  append_utf16_as_utf8(units.data(), units.size(), out);
}

void skip_units(ByteReader& r, uint32_t n) {
  if (!units_fit(r, n)) return;
  const uint32_t ascii = ascii_units(r, n);
  r.skip(ascii);
  for (uint32_t i = ascii; i < n && r.ok(); ++i) read_unit(r);
}

}  // namespace

bool read_flink_string(ByteReader& r, std::string* out) {
  out->clear();
  uint32_t len = read_varint7(r);
  if (!r.ok() || len == 0) return false;
  read_units(r, len - 1, out);
  return r.ok();
}

void skip_flink_string(ByteReader& r) {
  uint32_t len = read_varint7(r);
  if (r.ok() && len > 0) skip_units(r, len - 1);
}

void read_string_value(ByteReader& r, std::string* out) {
  out->clear();
  uint32_t len = read_varint7(r);
  if (r.ok()) read_units(r, len, out);
}

void skip_string_value(ByteReader& r) {
  uint32_t len = read_varint7(r);
  if (r.ok()) skip_units(r, len);
}

}  // namespace ckpt

namespace ckpt {
namespace {

// StringValue's varint7: 7 bits a byte, low first, the high bit set on all but the last.
void write_varint7(ByteWriter& w, uint32_t v) {
  while (v >= 0x80) {
    w.u8(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  w.u8(static_cast<uint8_t>(v));
}

void write_units(ByteWriter& w, std::string_view utf8, uint32_t extra) {
  // ASCII (most keys): each byte is its own UTF-16 unit, below 0x80 its own varint7 byte.
  if (is_ascii_without_nul(utf8)) {
    write_varint7(w, static_cast<uint32_t>(utf8.size()) + extra);
    w.bytes(utf8);
    return;
  }
  std::vector<uint16_t> units;
  units.reserve(utf8.size());
  for_each_utf16_unit(utf8, [&](uint16_t u) { units.push_back(u); });
  write_varint7(w, static_cast<uint32_t>(units.size()) + extra);
  for (uint16_t u : units) write_varint7(w, u);
}

}  // namespace

void write_flink_string(ByteWriter& w, std::string_view utf8) { write_units(w, utf8, 1); }
void write_flink_null_string(ByteWriter& w) { w.u8(0); }
void write_string_value(ByteWriter& w, std::string_view utf8) { write_units(w, utf8, 0); }

}  // namespace ckpt
