// --expire on hand-built TTL values: a value, map and list state whose TtlValues (i64 last
// access, then the user value) sit exactly at the ttl, one ms past it and one ms short of it,
// dropped as Flink's TtlUtils.expired says (expired when last access + ttl <= now).
#include <catch2/catch.hpp>

#include <limits>

#include "ckpt/metadata.h"
#include "ops/edit/edit_expire.h"
#include "support/byte_writer.h"
#include "testlib/snapshot_classes.h"

using namespace ckpt;
using test::kLongSnapshot;

namespace {

SerializerSnapshot simple_form(const char* cls) {
  SerializerSnapshot s;
  s.snapshot_class = cls;
  s.form = SnapshotForm::kSimple;
  s.version = 3;
  return s;
}

// TtlSerializer over a Long user value.
SerializerSnapshot ttl_of_long() {
  SerializerSnapshot s;
  s.snapshot_class = "org.apache.flink.runtime.state.ttl.TtlStateFactory$TtlSerializerSnapshot";
  s.form = SnapshotForm::kComposite;
  s.version = 2;
  s.outer_version = 2;
  s.nested = {simple_form(kLongSnapshot), simple_form(kLongSnapshot)};
  return s;
}

StateMetaInfo state(const char* name, const char* type, SerializerSnapshot value) {
  StateMetaInfo s;
  s.name = name;
  s.backend_type = 0;
  s.options = {{"KEYED_STATE_TYPE", type}};
  s.serializers = {{"NAMESPACE_SERIALIZER", simple_form("org.apache.flink.api.common.typeutils.base.VoidSerializer")},
                   {"VALUE_SERIALIZER", std::move(value)}};
  return s;
}

SerializerSnapshot container(const char* cls, std::vector<SerializerSnapshot> nested) {
  SerializerSnapshot s;
  s.snapshot_class = cls;
  s.form = SnapshotForm::kComposite;
  s.version = 1;
  s.outer_version = 1;
  s.nested = std::move(nested);
  return s;
}

// A TtlValue<Long>: last access, then the value.
std::string ttl_value(int64_t ts, int64_t v) {
  ByteWriter w;
  w.i64(ts);
  w.i64(v);
  return w.take();
}

RocksPair pair(std::string key, std::string value) { return {std::move(key), std::move(value)}; }

}  // namespace

TEST_CASE("ttl expiry follows TtlUtils.expired at the edges and near overflow", "[ops]") {
  // Expired when last access + ttl <= now; the sum is capped at Long.MAX_VALUE as Flink caps it.
  CHECK(ttl_expired(1000, 500, 1500));        // equal: expired
  CHECK(ttl_expired(1000, 500, 1501));        // one ms over
  CHECK_FALSE(ttl_expired(1000, 500, 1499));  // one ms short
  const int64_t max = std::numeric_limits<int64_t>::max();
  CHECK_FALSE(ttl_expired(max - 10, 1000, max - 1));  // no overflow into the past
  CHECK(ttl_expired(max - 10, 1000, max));
}

TEST_CASE("edit --expire drops TTL values and map entries and list elements at the edges", "[ops]") {
  // ttl 500 at now 1500: last access 1000 (equal) and 999 (one ms over) go, 1001 (one ms
  // short) stays, in a value state, a map state (behind its null flag) and a list state
  // (elements joined by ','), whose live elements keep their bytes.
  KeyedBackendMeta meta;
  meta.key_serializer = simple_form(kLongSnapshot);
  meta.states.push_back(state("v", "VALUE", ttl_of_long()));
  meta.states.push_back(state("m", "MAP",
                              container("org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot",
                                        {simple_form(kLongSnapshot), ttl_of_long()})));
  meta.states.push_back(state(
      "l", "LIST", container("org.apache.flink.api.common.typeutils.base.ListSerializerSnapshot", {ttl_of_long()})));
  meta.states.push_back(state("plain", "VALUE", simple_form(kLongSnapshot)));
  OperatorState op;
  op.max_parallelism = 128;

  TtlExpiry expiry({{"v", 500}, {"m", 500}, {"l", 500}}, 1500);
  auto edit = expiry.edit_for(op, meta);
  if (!edit.ok()) FAIL(edit.error().to_string());
  REQUIRE(*edit);
  std::vector<std::vector<RocksPair>> by_state(4);
  by_state[0] = {pair("a", ttl_value(1000, 1)), pair("b", ttl_value(999, 2)), pair("c", ttl_value(1001, 3))};
  by_state[1] = {pair("a", std::string(1, '\0') + ttl_value(1000, 1)), pair("b", std::string(1, '\1')),
                 pair("c", std::string(1, '\0') + ttl_value(1001, 3))};
  by_state[2] = {pair("a", ttl_value(1000, 1) + "," + ttl_value(1001, 2) + "," + ttl_value(999, 3)),
                 pair("b", ttl_value(1, 1) + "," + ttl_value(2, 2))};
  by_state[3] = {pair("a", std::string(8, '\0'))};
  REQUIRE((*edit)->key_group(0, by_state).ok());

  REQUIRE(by_state[0].size() == 1);
  CHECK(by_state[0][0].key == "c");
  REQUIRE(by_state[1].size() == 2);  // the null map value has no timestamp: kept
  CHECK(by_state[1][0].key == "b");
  CHECK(by_state[1][1].key == "c");
  REQUIRE(by_state[2].size() == 1);  // "b" lost every element
  CHECK(by_state[2][0].value == ttl_value(1001, 2));
  CHECK(by_state[3].size() == 1);  // not named: untouched
  edit->reset();
  auto dropped = expiry.dropped();
  CHECK(dropped[{operator_id_hex(op.id), "v"}] == 2);
  CHECK(dropped[{operator_id_hex(op.id), "m"}] == 1);
  CHECK(dropped[{operator_id_hex(op.id), "l"}] == 4);
  CHECK(expiry.not_found().empty());
}

TEST_CASE("edit --expire refuses a state without a time-to-live", "[ops]") {
  // A named state whose values carry no TtlValue is an error naming it, not a silent no-op.
  KeyedBackendMeta meta;
  meta.key_serializer = simple_form(kLongSnapshot);
  meta.states.push_back(state("plain", "VALUE", simple_form(kLongSnapshot)));
  OperatorState op;
  TtlExpiry expiry({{"plain", 500}}, 1500);
  auto edit = expiry.edit_for(op, meta);
  REQUIRE_FALSE(edit.ok());
  CHECK(edit.error().to_string().find("state 'plain'") != std::string::npos);
  CHECK(edit.error().to_string().find("has no time-to-live") != std::string::npos);
}

TEST_CASE("a SQL node's TTL per input reaches its states as the operator applies it", "[ops]") {
  // One input: every TTL state; a join: left... by input 0, right... by input 1; else nothing.
  CHECK(plan_state_ttl({1000}, "accState") == 1000);
  CHECK(plan_state_ttl({1000}, "left-records") == 1000);
  CHECK(plan_state_ttl({86'400'000, 345'600'000}, "left-records") == 86'400'000);
  CHECK(plan_state_ttl({86'400'000, 345'600'000}, "right-records") == 345'600'000);
  CHECK_FALSE(plan_state_ttl({86'400'000, 345'600'000}, "other").has_value());
  CHECK_FALSE(plan_state_ttl({1, 2, 3}, "left-records").has_value());
  CHECK_FALSE(plan_state_ttl({}, "accState").has_value());
}
