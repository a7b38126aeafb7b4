// Replaying hand-built in-memory change logs on top of materialized entries (formats/keyed-state.md §15).
#include <catch2/catch.hpp>

#include <functional>

#include "state/changelog/changelog_reader.h"
#include "types/snapshot_bytes.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/changelog_records.h"

using namespace ckpt;
using namespace ckpt::test;
using nlohmann::json;

namespace {

StateEntry keyed(const std::string& state, int64_t key, json value) {
  StateEntry e;
  e.state = state;
  e.key_group = 0;
  e.has_key = e.has_namespace = true;
  e.key = key;
  e.ns = "VoidNamespace";
  e.value = std::move(value);
  return e;
}

}  // namespace

TEST_CASE("change logs apply list / map / value operations on top of the materialized state", "[unit][state]") {
  // ADD_ELEMENT / ADD / CLEAR / SET on a list, ADD_OR_UPDATE / REMOVE on a map, SET / CLEAR on a
  // value, as Flink's appliers do; changes to key groups outside the handle's range are ignored.
  ChangelogState state;
  state.set_key_serializer(long_key_serializer());
  EntrySink materialized = state.collector();
  REQUIRE(materialized(keyed("l", 1, json::array({10}))).ok());
  StateEntry m = keyed("m", 1, 50);
  m.has_user_key = true;
  m.user_key = 5;
  REQUIRE(materialized(std::move(m)).ok());

  auto list = [](ByteWriter& w) { composite_of_longs(w, kListSnapshot, 1); };
  auto map = [](ByteWriter& w) { composite_of_longs(w, kMapSnapshot, 2); };
  auto value = [](ByteWriter& w) { write_simple_snapshot(w, kLongSnapshot); };
  std::vector<Change> changes = {
      metadata_change(0, "l", "LIST", list), metadata_change(1, "m", "MAP", map), metadata_change(2, "v", "VALUE", value),
      data_change(0, 5, 0, 1, {11}),            // l[1] += 11
      data_change(0, 3, 0, 2, {}),              // l[2] addAll: patched below with a whole list
      data_change(0, 0, 0, 2),                  // l[2] cleared
      data_change(0, 1, 0, 3, {}),              // l[3] = [30]: patched below
      data_change(0, 6, 1, 1, {6, 60}),         // m[1][6] = 60
      data_change(0, 7, 1, 1, {5}),             // m[1] remove 5
      data_change(0, 1, 2, 1, {100}),           // v[1] = 100
      data_change(0, 1, 2, 2, {200}),           // v[2] = 200
      data_change(0, 0, 2, 2),                  // v[2] cleared
      data_change(200, 1, 2, 7, {700}),         // outside the range: ignored
  };
  changes[4] = with_whole_list(changes[4], {20, 21});
  changes[6] = with_whole_list(changes[6], {30});
  REQUIRE(state.replay({in_memory_log(changes)}, KeyGroupRange{0, 128}).ok());
  CHECK(emitted(state) == std::vector<std::string>{"l 1 = [10,11]", "l 3 = [30]", "m 1 6 = 60", "v 1 = 100"});
}

TEST_CASE("without a key serializer a change's key is the bytes that leave namespace and value the rest", "[unit][state]") {
  // The flat-map operators of Flink's migration test: no materialized part, no timer state.
  ChangelogState state;
  std::vector<Change> changes = {metadata_change(4, "v", "VALUE", [](ByteWriter& w) { write_simple_snapshot(w, kLongSnapshot); }),
                                 data_change(3, 1, 4, 9, {90})};
  REQUIRE(state.replay({in_memory_log(changes)}, KeyGroupRange{0, 128}).ok());
  std::vector<StateEntry> out;
  REQUIRE(state.emit(StateFilter{}, [&](StateEntry&& e) {
    out.push_back(std::move(e));
    return Status::OK();
  }).ok());
  REQUIRE(out.size() == 1);
  CHECK(out[0].key == json({{"hex", "0000000000000009"}, {"why", "changelog without key serializer snapshot"}}));
  CHECK(out[0].ns == "VoidNamespace");
  CHECK(out[0].value == 90);
  CHECK(out[0].key_group == 3);
}

TEST_CASE("a change before its state's metadata or with bytes left over is an error naming the change", "[unit][corrupt][state]") {
  // Errors carry the change's index, key group and log, and the offset inside the change.
  ChangelogState state;
  state.set_key_serializer(long_key_serializer());
  auto early = state.replay({in_memory_log({data_change(0, 1, 3, 1, {1})})}, KeyGroupRange{0, 128});
  REQUIRE_FALSE(early.ok());
  CHECK(early.error().to_string().find("change to state id 3 before its metadata") != std::string::npos);
  CHECK(early.error().to_string().find("change 0 (key group 0) of change log 'log'") != std::string::npos);

  ChangelogState other;
  other.set_key_serializer(long_key_serializer());
  auto value = [](ByteWriter& w) { write_simple_snapshot(w, kLongSnapshot); };
  auto extra = other.replay({in_memory_log({metadata_change(0, "v", "VALUE", value), data_change(0, 1, 0, 1, {1, 2})})}, KeyGroupRange{0, 128});
  REQUIRE_FALSE(extra.ok());
  CHECK(extra.error().to_string().find("8 bytes after the change") != std::string::npos);
  CHECK(extra.error().offset == 20u);
}

TEST_CASE("the byte-level replay applies the same operations to RocksDB-layout pairs", "[unit][state]") {
  // The changes of the decoded replay above, applied to pairs for conversion: list elements
  // joined by the merge operator's ',', map values behind their null flag, cleared entries gone,
  // values copied byte for byte.
  std::vector<Change> changes = list_map_value_changes();
  std::vector<KeyedHandle> logs = {in_memory_log(changes)};
  KeyedBackendMeta meta;
  auto state = raw_replayer(logs, &meta);
  // The materialized part: l[1] = [10], m[1][5] = 50.
  std::vector<std::vector<RocksPair>> materialized(3);
  materialized[0].push_back({rocks_key(1), rocks_longs({10})});
  materialized[1].push_back({rocks_key(1, {5}), rocks_longs({50}, true)});
  REQUIRE(state->raw_collector(meta)(0, materialized).ok());
  REQUIRE(state->replay(logs, KeyGroupRange{0, 128}).ok());

  std::vector<std::vector<RocksPair>> got;
  std::vector<int32_t> groups;
  REQUIRE(state->emit_raw([&](int32_t kg, std::vector<std::vector<RocksPair>>& by_state) {
    groups.push_back(kg);
    got = by_state;
    return Status::OK();
  }).ok());
  CHECK(groups == std::vector<int32_t>{0});
  REQUIRE(got.size() == 3);
  auto same = [](const std::vector<RocksPair>& pairs, const std::vector<RocksPair>& expected) {
    REQUIRE(pairs.size() == expected.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
      CHECK(pairs[i].key == expected[i].key);
      CHECK(pairs[i].value == expected[i].value);
    }
  };
  same(got[0], {{rocks_key(1), rocks_longs({10, 11})}, {rocks_key(3), rocks_longs({30})}});
  same(got[1], {{rocks_key(1, {6}), rocks_longs({60}, true)}});
  same(got[2], {{rocks_key(1), rocks_longs({100})}});
}

TEST_CASE("the byte-level replay merges list namespaces and refuses merging values that need the job's function", "[unit][state]") {
  // MERGE_NAMESPACES (Long namespaces): list sources are appended to the target and removed; a
  // reducing state whose target already holds a value would need the job's reduce function.
  auto list = [](ByteWriter& w) { composite_of_longs(w, kListSnapshot, 1); };
  auto value = [](ByteWriter& w) { write_simple_snapshot(w, kLongSnapshot); };
  // op, state id, Long key 1, Long namespace `ns`, then `payload` longs.
  auto change = [](uint8_t op, int16_t id, int64_t ns, std::vector<int64_t> payload, int32_t sources = -1) {
    ByteWriter w;
    w.u8(op);
    w.i16(id);
    w.i64(1);
    w.i64(ns);
    for (size_t i = 0; i < payload.size(); ++i) {
      if (sources >= 0 && i == 1) w.i32(sources);  // MERGE_NS: target, count, sources
      w.i64(payload[i]);
    }
    return Change{0, w.buffer()};
  };
  std::vector<Change> changes = {
      metadata_change(0, "l", "LIST", list, kLongSnapshot), metadata_change(1, "r", "REDUCING", value, kLongSnapshot),
      change(5, 0, 10, {1}), change(5, 0, 20, {2}), change(5, 0, 30, {3}),
      change(4, 0, 10, {10, 20, 30}, 2),  // l: namespaces 20 and 30 merged into 10
      change(1, 1, 10, {5}), change(1, 1, 20, {6}),
  };
  std::vector<KeyedHandle> logs = {in_memory_log(changes)};
  KeyedBackendMeta meta;
  auto state = raw_replayer(logs, &meta);
  REQUIRE(state->replay(logs, KeyGroupRange{0, 128}).ok());
  std::vector<std::vector<RocksPair>> got;
  REQUIRE(state->emit_raw([&](int32_t, std::vector<std::vector<RocksPair>>& by_state) {
    got = by_state;
    return Status::OK();
  }).ok());
  ByteWriter key;
  key.u8(0);
  key.i64(1);
  key.i64(10);
  REQUIRE(got.at(0).size() == 1);
  CHECK(got[0][0].key == key.buffer());
  CHECK(got[0][0].value == rocks_longs({1, 2, 3}));

  changes.push_back(change(4, 1, 10, {10, 20}, 1));  // r: 20 into 10, which holds 5
  logs = {in_memory_log(changes)};
  auto again = raw_replayer(logs, &meta);
  auto refused = again->replay(logs, KeyGroupRange{0, 128});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::kNotSupported);
  CHECK(refused.error().message == "merging namespaces of REDUCING state 'r' needs the job's function");
}
