// tests/testlib/java_streams.h - Java object streams for the tests: values a JVM wrote
// (tests/testlib/java/JdkGen.java) and a builder for hand-made streams of the protocol's
// grammar (Java Object Serialization Specification, chapter 6). No test framework: fuzz seed
// programs may link it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/byte_writer.h"

namespace ckpt::test {

struct JdkStream {
  std::string_view name;
  std::string_view hex;
  size_t trailing_a;  // bytes of 'a' after `hex` (the long string's contents)
};
extern const JdkStream kJdkStreams[];
extern const size_t kJdkStreamCount;

// The stream JdkGen wrote for `name` ("Integer", "HashMap", "Circle", ...), as bytes; empty if
// there is none.
std::string jdk_stream(std::string_view name);

// The bytes of each object stream of `bytes`, back to back as InstantiationUtil.serializeObject
// writes them one after the other; stops at the first that does not read.
std::vector<std::string> split_java_streams(std::string_view bytes);

// The Java-serialized LogicalTypes of a RowDataSerializerSnapshot in its versioned form (class
// name, version, field count, one stream per field), one stream each; empty if they do not read.
std::vector<std::string> row_data_type_streams(std::string_view versioned);

// Hand-made streams: each call appends one construct; handles are the caller's to count
// (0x7e0000 upwards, in the order the spec assigns them).
class JavaStreamBuilder {
 public:
  struct Field {
    char type;
    std::string name;
    std::string signature;  // object fields: written as a new TC_STRING
  };

  JavaStreamBuilder& header();
  JavaStreamBuilder& null();
  JavaStreamBuilder& reference(uint32_t handle);
  JavaStreamBuilder& string(std::string_view utf8);
  JavaStreamBuilder& long_string(std::string_view utf8);
  // TC_CLASSDESC up to and including its (empty) annotations; the superclass descriptor follows.
  JavaStreamBuilder& class_desc(std::string_view name, uint64_t uid, uint8_t flags, const std::vector<Field>& fields);
  JavaStreamBuilder& proxy_class_desc(const std::vector<std::string>& interfaces);
  JavaStreamBuilder& object() { return code(0x73); }
  JavaStreamBuilder& array() { return code(0x75); }
  JavaStreamBuilder& enum_constant() { return code(0x7E); }
  JavaStreamBuilder& class_object() { return code(0x76); }
  JavaStreamBuilder& end_block() { return code(0x78); }
  JavaStreamBuilder& reset() { return code(0x79); }
  JavaStreamBuilder& block(std::string_view bytes);       // TC_BLOCKDATA
  JavaStreamBuilder& block_long(std::string_view bytes);  // TC_BLOCKDATALONG
  JavaStreamBuilder& code(uint8_t tc);
  ByteWriter& raw() { return w_; }
  std::string bytes() const { return w_.buffer(); }

 private:
  ByteWriter w_;
};

}  // namespace ckpt::test
