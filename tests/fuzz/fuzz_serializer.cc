// libFuzzer target: serializer snapshots, backend proxies and value decoders on arbitrary bytes
// never crash, hang or report an offset outside the input, and what parses writes back exactly.
// The JSON-text path agrees with the trees, and the word-at-a-time ASCII scans with a byte loop.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "state/backend_meta.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"
#include "support/ascii_scan.h"
#include "support/byte_reader.h"
#include "support/json_text.h"

namespace {

[[noreturn]] void finding(const char* what, const ckpt::Error* e = nullptr) {
  std::fprintf(stderr, "fuzz_serializer: %s%s%s\n", what, e ? ": " : "", e ? e->to_string().c_str() : "");
  std::abort();
}

void check_error(const ckpt::Error& e, uint64_t end) {
  if (!e.offset) finding("error without an offset", &e);
  if (*e.offset > end) finding("error offset outside the input", &e);
}

// A snapshot, then values of its serializer until the bytes run out: read and skip must agree.
void fuzz_values(std::string_view in) {
  ckpt::ByteReader r(in);
  auto snap = ckpt::read_serializer_snapshot(r, ckpt::SnapshotFraming::kProxy);
  if (!snap.ok()) return check_error(snap.error(), in.size());
  ckpt::ByteWriter w;
  ckpt::write_serializer_snapshot(w, *snap, ckpt::SnapshotFraming::kProxy);
  if (w.buffer() != in.substr(0, r.position())) finding("a parsed snapshot does not write back exactly");
  auto dec = ckpt::make_decoder(*snap);
  if (!dec.ok()) return check_error(dec.error(), in.size());
  for (int i = 0; i < 64 && r.ok() && !r.at_end(); ++i) {
    size_t start = r.position();
    ckpt::ByteReader skipper(in.data() + start, in.size() - start, start);
    ckpt::ByteReader texter(in.data() + start, in.size() - start, start);
    nlohmann::json v;
    (*dec)->read(r, v);
    (*dec)->skip(skipper);
    std::string text;
    (*dec)->write_json(texter, text);
    if (r.ok() != texter.ok()) finding(r.ok() ? "write_json fails where read succeeds" : "write_json succeeds where read fails");
    if (r.ok() && texter.offset() != r.offset()) finding("read and write_json consume different lengths");
    if (r.ok() && text != ckpt::json_text(v)) finding("write_json differs from the text of read's tree");
    // skip may validate less (an enum ordinal), never more.
    if (r.ok() && !skipper.ok()) finding("skip fails where read succeeds");
    if (r.ok() && skipper.offset() != r.offset()) finding("read and skip consume different lengths");
    if (!r.ok()) check_error(*r.error(), in.size());
    if (r.position() == start) break;  // zero-width values (NullValue) would never advance
  }
  ckpt::ByteReader framed(in);
  auto f = ckpt::decode_framed(**dec, framed, in.size());
  if (!f.ok()) check_error(f.error(), in.size());
  ckpt::ByteReader framed_text(in);
  std::string text;
  auto ft = ckpt::decode_framed_json(**dec, framed_text, in.size(), text);
  if (f.ok() != ft.ok()) finding(f.ok() ? "decode_framed_json fails where decode_framed succeeds" : "decode_framed_json succeeds where decode_framed fails");
  if (f.ok() && text != ckpt::json_text(*f)) finding("decode_framed_json differs from the text of decode_framed's tree");
  if (!ft.ok()) check_error(ft.error(), in.size());
}

// The word-at-a-time scans answer as a byte loop does at every alignment (AddressSanitizer sees
// any read past the input: libFuzzer's buffer ends exactly there), and the escaper that relies on
// them writes exactly nlohmann's text of the string.
void fuzz_ascii_scan(std::string_view in) {
  for (size_t skip = 0; skip < 8 && skip <= in.size(); ++skip) {
    std::string_view s = in.substr(skip);
    bool ascii = true, plain = true;
    for (unsigned char b : s) {
      ascii = ascii && b >= 0x01 && b < 0x80;
      plain = plain && b >= 0x20 && b < 0x80 && b != '"' && b != '\\';
    }
    if (ckpt::is_ascii_without_nul(s) != ascii) finding("is_ascii_without_nul disagrees with a byte loop");
    if (ckpt::is_json_plain(s) != plain) finding("is_json_plain disagrees with a byte loop");
  }
  std::string escaped;
  ckpt::append_json_string(escaped, in);
  if (escaped != ckpt::json_text(nlohmann::json(std::string(in)))) finding("append_json_string differs from nlohmann's text");
}

void fuzz_proxies(std::string_view in) {
  ckpt::ByteReader k(in);
  auto keyed = ckpt::read_keyed_backend_meta(k);
  if (!keyed.ok()) {
    check_error(keyed.error(), in.size());
  } else {
    auto out = ckpt::write_keyed_backend_meta(*keyed);
    if (!out.ok() || *out != in.substr(0, k.position())) finding("a keyed proxy does not write back exactly");
  }
  ckpt::ByteReader o(in);
  auto op = ckpt::read_operator_backend_meta(o);
  if (!op.ok()) {
    check_error(op.error(), in.size());
  } else {
    auto out = ckpt::write_operator_backend_meta(*op);
    if (!out.ok() || *out != in.substr(0, o.position())) finding("an operator proxy does not write back exactly");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  fuzz_values(in);
  fuzz_proxies(in);
  fuzz_ascii_scan(in);
  return 0;
}
