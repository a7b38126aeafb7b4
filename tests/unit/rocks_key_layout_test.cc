// One layout of Flink's RocksDB composite key for the dump's decoder and convert's transcoder:
// where key and namespace are both of variable length each carries a length suffix, and a key
// whose suffix does not state the bytes read is refused by both, at the suffix's offset.
#include <catch2/catch.hpp>

#include "state/backend_meta.h"
#include "state/keyed_state_codec.h"
#include "state/layout_transcoder.h"
#include "state/rocks_key_layout.h"
#include "support/byte_writer.h"
#include "testlib/decoder_checks.h"
#include "testlib/snapshot_classes.h"

using namespace ckpt;
using namespace ckpt::test;

namespace {

// A VALUE state of strings under string namespaces: both serializers of variable length.
StateMetaInfo string_namespace_state() {
  StateMetaInfo info;
  info.name = "v";
  info.backend_type = 0;
  info.options.emplace_back("KEYED_STATE_TYPE", "VALUE");
  info.serializers.emplace_back("NAMESPACE_SERIALIZER", parse_versioned(simple_snapshot(kStringSnapshot)));
  info.serializers.emplace_back("VALUE_SERIALIZER", parse_versioned(simple_snapshot(kStringSnapshot)));
  return info;
}

// StringValue bytes: length + 1, then the characters.
std::string java_string(const std::string& s) { return std::string(1, static_cast<char>(s.size() + 1)) + s; }

}  // namespace

TEST_CASE("rocksdb keys with a wrong length suffix are refused by dump and convert alike", "[unit][state][corrupt]") {
  const StateMetaInfo info = string_namespace_state();
  auto key_decoder = decodable_decoder(simple_snapshot(kStringSnapshot));
  auto codec = KeyedStateCodec::make(info, *key_decoder, 128);
  auto transcoder = StateTranscoder::make(info, *key_decoder, 128);
  REQUIRE(codec.ok());
  REQUIRE(transcoder.ok());
  REQUIRE((*transcoder)->ambiguous_key());

  // Key "ab" (3 bytes) then its suffix 3, namespace "c" (2 bytes) then its suffix 2.
  const std::string good = (*transcoder)->rocks_base(5, java_string("ab"), java_string("c"));
  REQUIRE(good == std::string("\x05\x03"
                              "ab\x03\x02"
                              "c\x02"));
  std::string bad = good;
  bad[4] = '\x09';  // the key's suffix: 9 bytes, where 3 were read
  const std::string value = java_string("x");

  auto decode = [&](const std::string& key) {
    return (*codec)->read_rocks_entry(key, 100, value, 200, [](StateEntry&&) { return Status::OK(); });
  };
  auto convert = [&](const std::string& key) {
    RocksPair pair{key, value};
    ByteWriter w;
    return (*transcoder)->rocks_to_heap({&pair}, w);
  };
  REQUIRE(decode(good).ok());
  auto converted = convert(good);
  REQUIRE(converted.ok());
  CHECK(*converted == 1);

  Status dumped = decode(bad);
  REQUIRE_FALSE(dumped.ok());
  CHECK(dumped.error().message.find("length suffix 9 does not match the 3 bytes read") != std::string::npos);
  CHECK(dumped.error().offset == 104);  // the key at offset 100: prefix, 3 key bytes, then the suffix
  auto refused = convert(bad);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("length suffix 9 does not match the 3 bytes read") != std::string::npos);
  CHECK(refused.error().offset == 4);  // within the key: convert's pairs are sorted, away from their files
}
