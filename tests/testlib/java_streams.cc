// Hand-made Java object streams, and lookup of the ones a JVM wrote.
#include "testlib/java_streams.h"

#include "format/java/java_object_stream.h"
#include "support/byte_reader.h"
#include "testlib/table_bytes.h"

namespace ckpt::test {

std::string jdk_stream(std::string_view name) {
  for (size_t i = 0; i < kJdkStreamCount; ++i)
    if (kJdkStreams[i].name == name) return from_hex(kJdkStreams[i].hex) + std::string(kJdkStreams[i].trailing_a, 'a');
  return {};
}

namespace {

std::vector<std::string> read_streams(ByteReader& r, size_t limit) {
  std::vector<std::string> out;
  while (!r.at_end() && out.size() < limit) {
    const size_t begin = r.position();
    if (!java::read_object_stream(r).ok()) break;
    out.emplace_back(r.data() + begin, r.data() + r.position());
  }
  return out;
}

}  // namespace

std::vector<std::string> split_java_streams(std::string_view bytes) {
  ByteReader r(bytes);
  return read_streams(r, SIZE_MAX);
}

std::vector<std::string> row_data_type_streams(std::string_view versioned) {
  ByteReader r(versioned);
  (void)r.utf();
  (void)r.i32();
  const int32_t n = r.i32();
  if (!r.ok() || n < 0) return {};
  std::vector<std::string> out = read_streams(r, static_cast<size_t>(n));
  if (out.size() != static_cast<size_t>(n)) return {};
  return out;
}

JavaStreamBuilder& JavaStreamBuilder::header() {
  w_.u16(0xACED);
  w_.u16(5);
  return *this;
}

JavaStreamBuilder& JavaStreamBuilder::code(uint8_t tc) {
  w_.u8(tc);
  return *this;
}

JavaStreamBuilder& JavaStreamBuilder::null() { return code(0x70); }

JavaStreamBuilder& JavaStreamBuilder::reference(uint32_t handle) {
  w_.u8(0x71);
  w_.u32(handle);
  return *this;
}

JavaStreamBuilder& JavaStreamBuilder::string(std::string_view utf8) {
  w_.u8(0x74);
  (void)w_.utf(utf8);
  return *this;
}

JavaStreamBuilder& JavaStreamBuilder::long_string(std::string_view utf8) {
  std::string enc = encode_modified_utf8(utf8);
  w_.u8(0x7C);
  w_.u64(enc.size());
  w_.bytes(enc);
  return *this;
}

JavaStreamBuilder& JavaStreamBuilder::class_desc(std::string_view name, uint64_t uid, uint8_t flags,
                                                 const std::vector<Field>& fields) {
  w_.u8(0x72);
  (void)w_.utf(name);
  w_.u64(uid);
  w_.u8(flags);
  w_.i16(static_cast<int16_t>(fields.size()));
  for (const Field& f : fields) {
    w_.u8(static_cast<uint8_t>(f.type));
    (void)w_.utf(f.name);
    if (f.type == 'L' || f.type == '[') string(f.signature);
  }
  return end_block();
}

JavaStreamBuilder& JavaStreamBuilder::proxy_class_desc(const std::vector<std::string>& interfaces) {
  w_.u8(0x7D);
  w_.i32(static_cast<int32_t>(interfaces.size()));
  for (const auto& i : interfaces) (void)w_.utf(i);
  return end_block();
}

JavaStreamBuilder& JavaStreamBuilder::block(std::string_view bytes) {
  w_.u8(0x77);
  w_.u8(static_cast<uint8_t>(bytes.size()));
  w_.bytes(bytes);
  return *this;
}

JavaStreamBuilder& JavaStreamBuilder::block_long(std::string_view bytes) {
  w_.u8(0x7A);
  w_.i32(static_cast<int32_t>(bytes.size()));
  w_.bytes(bytes);
  return *this;
}

}  // namespace ckpt::test
