// The codec hands each RocksDB pair's entry to its sink in one reused StateEntry (no allocation
// per entry): whatever the sink did with the previous one (copied it, moved from it), the next
// carries exactly its own fields, text and bytes.
#include <catch2/catch.hpp>

#include "state/backend_meta.h"
#include "state/keyed_state_codec.h"
#include "testlib/decoder_checks.h"
#include "testlib/snapshot_classes.h"
#include "testlib/table_bytes.h"

using namespace ckpt;
using namespace ckpt::test;

TEST_CASE("reused rocksdb entries carry only their own fields whether the sink copied or moved the last",
          "[unit][state]") {
  StateMetaInfo info;
  info.name = "m";
  info.backend_type = 0;
  info.options.emplace_back("KEYED_STATE_TYPE", "MAP");
  info.serializers.emplace_back("NAMESPACE_SERIALIZER", parse_versioned(simple_snapshot(kVoidSnapshot)));
  info.serializers.emplace_back(
      "VALUE_SERIALIZER",
      parse_versioned(composite_snapshot(kMapSnapshot, 1, "",
                                         {simple_snapshot(kStringSnapshot), simple_snapshot(kStringSnapshot)})));
  auto key = decodable_decoder(simple_snapshot(kStringSnapshot));
  auto codec = KeyedStateCodec::make(info, *key, 128);
  REQUIRE(codec.ok());
  (*codec)->set_json_text(true);
  (*codec)->set_raw_bytes(true);

  // StringValue bytes: length + 1, then the characters.
  auto str = [](const std::string& s) { return std::string(1, static_cast<char>(s.size() + 1)) + s; };
  auto rocks_key = [&](int kg, const std::string& k, const std::string& user_key) {
    return std::string(1, static_cast<char>(kg)) + str(k) + std::string("\0", 1) + str(user_key);
  };
  const std::string long_text(40, 'x');  // longer than a string's inline buffer: its capacity stays
  std::vector<StateEntry> seen;
  int calls = 0;
  auto sink = [&](StateEntry&& e) -> Status {
    // The first entry is copied, the second moved from, the third copied.
    if (calls++ == 1)
      seen.push_back(std::move(e));
    else
      seen.push_back(e);
    return Status::OK();
  };
  const std::string v1 = std::string("\0", 1) + str(long_text);
  REQUIRE((*codec)->read_rocks_entry(rocks_key(7, "user-" + long_text, "a" + long_text), 0, v1, 0, sink).ok());
  const std::string v2 = std::string("\0", 1) + str("v");
  REQUIRE((*codec)->read_rocks_entry(rocks_key(8, "k", "b"), 0, v2, 0, sink).ok());
  const std::string v3("\1", 1);  // a null map value
  REQUIRE((*codec)->read_rocks_entry(rocks_key(9, "", "c"), 0, v3, 0, sink).ok());
  REQUIRE(seen.size() == 3);

  CHECK(seen[0].key_group == 7);
  CHECK(seen[0].key_text == "\"user-" + long_text + "\"");
  CHECK(seen[0].user_key_text == "\"a" + long_text + "\"");
  CHECK(seen[0].value_text == "\"" + long_text + "\"");
  for (const StateEntry& e : seen) {
    CHECK(e.state == "m");
    CHECK(e.kind == EntryKind::kKeyed);
    CHECK(e.is_text);
    CHECK(e.has_key);
    CHECK(e.has_namespace);
    CHECK(e.has_user_key);
    CHECK(e.has_raw);
    CHECK(e.ns_text == "\"VoidNamespace\"");
    CHECK(e.key.is_null());
    CHECK(e.value.is_null());
  }
  CHECK(seen[1].key_group == 8);
  CHECK(seen[1].key_text == "\"k\"");
  CHECK(seen[1].user_key_text == "\"b\"");
  CHECK(seen[1].value_text == "\"v\"");
  CHECK(seen[1].raw_key == str("k"));
  CHECK(seen[1].raw_user_key == str("b"));
  CHECK(seen[1].raw_value == v2);
  CHECK(seen[2].key_group == 9);
  CHECK(seen[2].key_text == "\"\"");
  CHECK(seen[2].user_key_text == "\"c\"");
  CHECK(seen[2].value_text == "null");
  CHECK(seen[2].raw_key == str(""));
  CHECK(seen[2].raw_value == v3);
}
