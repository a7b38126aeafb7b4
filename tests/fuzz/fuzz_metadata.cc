// libFuzzer target: every `_metadata` image either fails with an offset inside the input or
// writes back to exactly its own bytes; the same for the properties trailer it may end with.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "ckpt/metadata.h"
#include "format/java_serialization.h"

namespace {

using namespace std::string_view_literals;

[[noreturn]] void finding(const char* what, const ckpt::Error* e = nullptr) {
  std::fprintf(stderr, "fuzz_metadata: %s%s%s\n", what, e ? ": " : "", e ? e->to_string().c_str() : "");
  std::abort();
}

// An error must point into the bytes it was given.
void check_error(const ckpt::Error& e, uint64_t first, uint64_t end) {
  if (!e.offset) finding("error without an offset", &e);
  if (*e.offset < first || *e.offset > end) finding("error offset outside the input", &e);
}

void fuzz_metadata(std::string_view in) {
  auto m = ckpt::decode_metadata(in);
  if (!m.ok()) return check_error(m.error(), 0, in.size());
  auto out = ckpt::encode_metadata(*m);
  if (!out.ok()) finding("a decoded file does not encode", &out.error());
  if (*out != in) finding("encode(decode(file)) differs from the file");
}

// The trailer decoder on whatever follows the last stream header, so that mutations of the real
// files' trailers reach it directly.
void fuzz_properties(std::string_view in) {
  size_t at = in.rfind("\xac\xed\x00\x05"sv);
  if (at == std::string_view::npos) return;
  auto p = ckpt::decode_checkpoint_properties(in.substr(at), at);
  if (!p.ok()) return check_error(p.error(), at, in.size());
  std::string again = ckpt::encode_checkpoint_properties(*p);
  auto back = ckpt::decode_checkpoint_properties(again);
  if (!back.ok()) finding("encoded properties do not decode", &back.error());
  if (!(*back == *p)) finding("decode(encode(properties)) differs from the properties");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  fuzz_metadata(in);
  fuzz_properties(in);
  return 0;
}
