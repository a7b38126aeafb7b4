// libFuzzer target: every `_metadata` image either fails with an offset inside the input or
// writes back to exactly its own bytes; the same for the properties trailer it may end with.
// The streaming decoder (inspect's) must agree with it: the same error, or the same operators.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "ckpt/metadata.h"
#include "format/java/java_serialization.h"
#include "format/metadata_streaming.h"

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

// Keeps what the streaming decoder hands over, forgetting it when decoding starts over.
class Collect final : public ckpt::OperatorSink {
 public:
  std::vector<ckpt::OperatorState> ops;
  void operator_state(ckpt::OperatorState& op, size_t index) override {
    if (index != ops.size()) finding("streamed operator index out of order");
    ops.push_back(std::move(op));
  }
  void restart() override { ops.clear(); }
};

// decode_metadata_streaming fails where decode_metadata fails, with the same error, and
// otherwise hands over exactly decode_metadata's operators, leaving the rest of the model equal.
void check_streaming(std::string_view in, const ckpt::Result<ckpt::Metadata>& whole) {
  Collect sink;
  auto s = ckpt::decode_metadata_streaming(in, "fuzz", sink);
  if (s.ok() != whole.ok()) finding(s.ok() ? "streaming decode succeeds where decode fails" : "streaming decode fails where decode succeeds", s.ok() ? &whole.error() : &s.error());
  if (!s.ok()) {
    if (s.error().offset != whole.error().offset || s.error().message != whole.error().message || s.error().code != whole.error().code)
      finding("streaming decode fails differently", &s.error());
    return;
  }
  s->operators = std::move(sink.ops);
  if (!(*s == *whole)) finding("streaming decode hands over a different model");
}

void fuzz_metadata(std::string_view in) {
  auto m = ckpt::decode_metadata(in, "fuzz");
  check_streaming(in, m);
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
