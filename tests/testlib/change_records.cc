// Change records and change sets as Flink writes them (no test framework: the fuzz seeds use them too).
#include "testlib/change_records.h"

#include <map>

#include "types/snapshot_bytes.h"

namespace ckpt::test {

void composite_of_longs(ByteWriter& w, const char* cls, int nested) {
  if (nested == 1) write_composite_snapshot(w, cls, {kLongSnapshot});
  else write_composite_snapshot(w, cls, {kLongSnapshot, kLongSnapshot});
}

Change metadata_change(int16_t id, const std::string& name, const char* type,
                       const std::function<void(ByteWriter&)>& value, const char* ns) {
  ByteWriter w;
  w.u8(8);
  w.i32(6);
  w.utf(name);
  w.i32(0);  // KEY_VALUE
  w.i32(1);
  w.utf("KEYED_STATE_TYPE");
  w.utf(type);
  w.i32(2);
  w.utf("NAMESPACE_SERIALIZER");
  w.i32(2);
  write_simple_snapshot(w, ns);
  w.utf("VALUE_SERIALIZER");
  w.i32(2);
  value(w);
  w.boolean(false);  // no TTL
  w.boolean(false);  // no default value
  w.i16(id);
  w.u8(0);
  return Change{-1, w.buffer()};
}

Change data_change(int32_t key_group, uint8_t op, int16_t id, int64_t key, const std::vector<int64_t>& payload) {
  ByteWriter w;
  w.u8(op);
  w.i16(id);
  w.i64(key);
  w.u8(0);  // VoidNamespace
  for (int64_t v : payload) w.i64(v);
  return Change{key_group, w.buffer()};
}

Change with_whole_list(Change c, const std::vector<int64_t>& elements) {
  ByteWriter w;
  w.i32(static_cast<int32_t>(elements.size()));
  for (int64_t e : elements) w.i64(e);
  c.bytes += w.buffer();
  return c;
}

std::vector<Change> list_map_value_changes() {
  auto list = [](ByteWriter& w) { composite_of_longs(w, kListSnapshot, 1); };
  auto map = [](ByteWriter& w) { composite_of_longs(w, kMapSnapshot, 2); };
  auto value = [](ByteWriter& w) { write_simple_snapshot(w, kLongSnapshot); };
  return {
      metadata_change(0, "l", "LIST", list), metadata_change(1, "m", "MAP", map),
      metadata_change(2, "v", "VALUE", value), data_change(0, 5, 0, 1, {11}),
      with_whole_list(data_change(0, 3, 0, 2), {20, 21}), data_change(0, 0, 0, 2),
      with_whole_list(data_change(0, 1, 0, 3), {30}), data_change(0, 6, 1, 1, {6, 60}),
      data_change(0, 7, 1, 1, {5}), data_change(0, 1, 2, 1, {100}), data_change(0, 1, 2, 2, {200}),
      data_change(0, 0, 2, 2), data_change(200, 1, 2, 7, {700}),
  };
}

// StateChangeFormat#writeChangeSet: changes grouped by key group (groupingBy keeps their order
// within a group), groups in ascending key group (a TreeMap: metadata's -1 first).
void write_change_set(ByteWriter& w, const std::vector<Change>& changes) {
  std::map<int32_t, std::vector<const Change*>> groups;
  for (const Change& c : changes) groups[c.key_group].push_back(&c);
  w.i32(static_cast<int32_t>(groups.size()));
  for (const auto& [key_group, group] : groups) {
    w.i32(static_cast<int32_t>(group.size()));
    w.i32(key_group);
    for (const Change* c : group) {
      w.i32(static_cast<int32_t>(c->bytes.size()));
      w.bytes(c->bytes);
    }
  }
}

}  // namespace ckpt::test
