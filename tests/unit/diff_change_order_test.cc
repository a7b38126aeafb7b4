// StateOrderedChanges: the changes of the states after the first wait in a spill file and come
// back, state by state, as they went in: every field of both entries, every kind of value.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ckpt/diff.h"
#include "ops/diff/diff_internal.h"

using namespace ckpt;

namespace {

struct HeldBackChanges : KeyChangeSink {
  std::vector<KeyChange> changes;
  void change(const KeyChange& c) override { changes.push_back(c); }
};

// One value of every kind, nested: what a decoder hands a change.
Value value_of_every_kind() {
  using std::string_literals::operator""s;
  return Value::object(
      {"null", "bool", "int", "unsigned", "double", "nan", "string", "bytes", "array", "object"},
      {Value(), Value::boolean(true), Value::integer(std::numeric_limits<int64_t>::min()),
       Value::unsigned_integer(std::numeric_limits<uint64_t>::max()), Value::number(-0.125),
       Value::number(std::numeric_limits<double>::quiet_NaN()), Value::string("h\xC3\xA9llo \xF0\x9F\x98\x80"),
       Value::bytes("\x00\xff\x01"s), Value::array({Value::integer(1), Value::array({}), Value::string("")}),
       Value::object({}, {})});
}

Entry held_back_entry(const std::string& state, int32_t key_group, const Value& value) {
  Entry e;
  e.operator_id = std::string(32, 'a');
  e.subtask = 3;
  e.state = state;
  e.kind = EntryKind::kKeyed;
  e.key_group = key_group;
  e.key = Value::string("k" + std::to_string(key_group));
  e.ns = Value::string("VoidNamespace");
  e.value = value;
  e.has_raw = true;
  e.raw_key = std::string("\x00key", 4);
  e.raw_value = "raw";
  return e;
}

void check_same_entry(const Entry& x, const Entry& y) {
  CHECK(x.operator_id == y.operator_id);
  CHECK(x.subtask == y.subtask);
  CHECK(x.state == y.state);
  CHECK(x.kind == y.kind);
  CHECK(x.key_group == y.key_group);
  REQUIRE(x.key.has_value() == y.key.has_value());
  if (x.key) CHECK(*x.key == *y.key);
  REQUIRE(x.ns.has_value() == y.ns.has_value());
  if (x.ns) CHECK(*x.ns == *y.ns);
  CHECK(x.user_key.has_value() == y.user_key.has_value());
  CHECK(x.value.json() == y.value.json());
  CHECK(x.has_raw == y.has_raw);
  CHECK(x.raw_key == y.raw_key);
  CHECK(x.raw_namespace == y.raw_namespace);
  CHECK(x.raw_user_key == y.raw_user_key);
  CHECK(x.raw_value == y.raw_value);
}

}  // namespace

TEST_CASE("changes held back in a spill file come back state by state with every field", "[unit][ops][diff]") {
  HeldBackChanges out;
  StateOrderedChanges ordered(&out, {"first", "second"});
  std::vector<KeyChange> sent;
  for (int32_t kg = 0; kg < 3; ++kg) {
    for (const char* state : {"second", "first"}) {
      KeyChange c;
      c.what = kg == 1 ? "added" : "changed";
      if (kg != 1) c.before = held_back_entry(state, kg, Value::integer(kg));
      c.after = held_back_entry(state, kg, value_of_every_kind());
      c.uid = "uid-" + std::string(state);
      ordered.change(c);
      sent.push_back(c);
    }
  }
  // Before finish(): only the first state's changes have passed.
  REQUIRE(out.changes.size() == 3);
  for (const KeyChange& c : out.changes) CHECK(c.after->state == "first");
  REQUIRE(ordered.finish().ok());
  REQUIRE(out.changes.size() == 6);
  // first (kg 0, 1, 2), then second (kg 0, 1, 2): each as sent.
  std::vector<const KeyChange*> expected;
  for (const char* state : {"first", "second"})
    for (const KeyChange& c : sent)
      if (c.after->state == state) expected.push_back(&c);
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("change " << i);
    const KeyChange& got = out.changes[i];
    CHECK(got.what == expected[i]->what);
    CHECK(got.uid == expected[i]->uid);
    REQUIRE(got.before.has_value() == expected[i]->before.has_value());
    if (got.before) check_same_entry(*got.before, *expected[i]->before);
    check_same_entry(*got.after, *expected[i]->after);
  }
  // The kinds survive, not only the text: a byte string stays bytes, NaN stays a double.
  const Value& back = out.changes.back().after->value;
  REQUIRE(back.find("bytes"));
  CHECK(back.find("bytes")->kind() == Value::Kind::kBytes);
  CHECK(back.find("bytes")->as_bytes() == std::string("\x00\xff\x01", 3));
  CHECK(std::isnan(back.find("nan")->as_double()));
  CHECK(back.find("unsigned")->as_unsigned() == std::numeric_limits<uint64_t>::max());
  CHECK(back.find("int")->as_int() == std::numeric_limits<int64_t>::min());
}
