// libFuzzer target: the one Java object stream reader and everything built on it, on arbitrary
// bytes. It stops when anything crashes, hangs or throws, when an error has no offset or one
// outside the input, when a tree read from the bytes does not render to JSON text, when the
// JavaSerializer decoder's read, skip and write_json disagree, when the properties trailer
// codec fails without an offset (or decodes properties that do not survive encode then
// decode), or when modified UTF-8 that decodes does not encode back to the same bytes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "format/java/java_object_stream.h"
#include "format/java/java_serialization.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "support/json_text.h"
#include "types/java_values.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"

namespace {

[[noreturn]] void finding(const char* what, const ckpt::Error* e = nullptr) {
  std::fprintf(stderr, "fuzz_java_stream: %s%s%s\n", what, e ? ": " : "", e ? e->to_string().c_str() : "");
  std::abort();
}

void check_error(const ckpt::Error& e, uint64_t end) {
  if (!e.offset) finding("error without an offset", &e);
  if (*e.offset > end) finding("error offset outside the input", &e);
}

const ckpt::ValueDecoder& java_decoder() {
  static const auto decoder = [] {
    ckpt::ByteWriter w;
    (void)w.utf("org.apache.flink.runtime.state.JavaSerializer$JavaSerializerSnapshot");
    w.i32(3);
    ckpt::ByteReader r(w.buffer());
    auto s = ckpt::read_serializer_snapshot(r, ckpt::SnapshotFraming::kVersioned);
    if (!s.ok()) finding("no JavaSerializer snapshot", &s.error());
    auto d = ckpt::make_decoder(*s);
    if (!d.ok() || !(*d)->decodable()) finding("JavaSerializer values are not decodable");
    return std::move(d).value();
  }();
  return *decoder;
}

// The reader and the renderer; then the bytes as back-to-back JavaSerializer values.
void fuzz_stream(std::string_view in) {
  ckpt::ByteReader r(in);
  auto v = ckpt::java::read_object_stream(r);
  if (!v.ok()) {
    check_error(v.error(), in.size());
  } else {
    (void)ckpt::json_text(ckpt::java_value_json(**v));
  }
  const ckpt::ValueDecoder& d = java_decoder();
  ckpt::ByteReader values(in), skipper(in), texter(in);
  for (int i = 0; i < 8 && values.ok() && !values.at_end(); ++i) {
    nlohmann::json tree;
    d.read(values, tree);
    d.skip(skipper);
    std::string text;
    d.write_json(texter, text);
    if (values.ok() != skipper.ok() || values.ok() != texter.ok()) finding("read, skip and write_json disagree");
    if (!values.ok()) return check_error(*values.error(), in.size());
    if (skipper.offset() != values.offset() || texter.offset() != values.offset())
      finding("read, skip and write_json consume different lengths");
    if (text != ckpt::json_text(tree)) finding("write_json differs from the text of read's tree");
  }
}

void fuzz_properties(std::string_view in) {
  auto p = ckpt::decode_checkpoint_properties(in, 0);
  if (!p.ok()) return check_error(p.error(), in.size());
  auto again = ckpt::decode_checkpoint_properties(ckpt::encode_checkpoint_properties(*p));
  if (!again.ok()) finding("decoded properties do not encode to a stream that decodes", &again.error());
  if (again->type_name != p->type_name || again->type_class != p->type_class || again->forced != p->forced)
    finding("properties change through encode then decode");
}

void fuzz_modified_utf8(std::string_view in) {
  std::string utf8;
  if (ckpt::decode_modified_utf8(in, &utf8) && ckpt::encode_modified_utf8(utf8) != in)
    finding("modified UTF-8 does not encode back to its bytes");
  // Any bytes as (WTF-8) UTF-8: their units written back are what decoding gives.
  std::string java = ckpt::encode_modified_utf8(in);
  std::string back;
  if (!ckpt::decode_modified_utf8(java, &back)) finding("encoded modified UTF-8 does not decode");
  if (ckpt::encode_modified_utf8(back) != java) finding("modified UTF-8 is not stable through decode then encode");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  fuzz_stream(in);
  fuzz_properties(in);
  fuzz_modified_utf8(in);
  return 0;
}
