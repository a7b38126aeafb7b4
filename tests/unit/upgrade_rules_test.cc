// The verdicts of `ckpt upgrade --check` against a table per serializer kind, each snapshot
// hand-built in the bytes Flink 1.x writes (formats/keyed-state.md §2, formats/serializers.md).
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "ops/upgrade/upgrade_rules.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/decoder_checks.h"
#include "testlib/pojo_snapshots.h"
#include "testlib/snapshot_classes.h"
#include "types/serializer_snapshot.h"

using namespace ckpt;

namespace {

const char* const kUpgTtl = test::kTtlSnapshot;
const char* const kUpgSet = test::kSetSnapshot;
const char* const kUpgInt = test::kIntSnapshot;

void upg_simple(ByteWriter& w, const char* cls) {
  w.utf(cls);
  w.i32(3);
}

// CompositeTypeSerializerSnapshot v3: magic, outer version, outer data, nested snapshots.
void upg_composite(ByteWriter& w, const char* cls, const std::string& outer_class,
                   const std::vector<std::function<void(ByteWriter&)>>& nested) {
  w.utf(cls);
  w.i32(3);
  w.i32(911108);
  w.i32(outer_class.empty() ? 1 : 2);
  if (!outer_class.empty()) w.utf(outer_class);
  w.i32(1333245);
  w.i32(1);
  w.i32(static_cast<int32_t>(nested.size()));
  for (const auto& n : nested) n(w);
}

// KryoSerializerSnapshot v2 of `type`, no registrations.
void upg_kryo(ByteWriter& w, const char* type) { test::write_kryo_snapshot(w, type); }

// PojoSerializerSnapshot v2 of `cls` and its fields, no subclasses.
void upg_pojo(ByteWriter& w, const char* cls,
              const std::vector<std::pair<const char*, std::function<void(ByteWriter&)>>>& fields) {
  test::write_pojo_snapshot(w, cls, fields);
}

// A TypeSerializerConfigSnapshot: the legacy version marker, the serialization proxy's version
// and its framed Java bytes, then the config's own version and body.
void upg_legacy_config(ByteWriter& w) {
  w.utf("org.apache.flink.api.common.typeutils.base.GenericTypeSerializerConfigSnapshot");
  w.i32(0x7A53C4F0);
  w.i32(1);
  w.i32(4);
  w.bytes(std::string("\xac\xed\x00\x05", 4));
  w.i32(1);
  w.utf("com.example.Event");
}

std::function<void(ByteWriter&)> upg_simple_of(const char* cls) {
  return [cls](ByteWriter& w) { upg_simple(w, cls); };
}
std::function<void(ByteWriter&)> upg_kryo_of(const char* type) {
  return [type](ByteWriter& w) { upg_kryo(w, type); };
}

struct UpgCase {
  const char* kind;
  std::function<void(ByteWriter&)> build;
  UpgradeVerdict verdict;
  const char* rule;   // of the first finding; "" when ok
  const char* where;  // of the first finding
};

std::vector<UpgradeFinding> upg_judged(const std::function<void(ByteWriter&)>& build) {
  ByteWriter w;
  build(w);
  ByteReader r(w.buffer());
  auto s = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
  REQUIRE(s.ok());
  std::vector<UpgradeFinding> out;
  judge_serializer(*s, "value", out);
  return out;
}

}  // namespace

TEST_CASE("upgrade verdicts follow the table of serializer kinds", "[unit][ops]") {
  const std::vector<UpgCase> table = {
      {"simple Long", upg_simple_of(test::kLongSnapshot), UpgradeVerdict::kOk, "", ""},
      {"Tuple2 of Long and String",
       [](ByteWriter& w) {
         upg_composite(w, "org.apache.flink.api.java.typeutils.runtime.TupleSerializerSnapshot",
                       "org.apache.flink.api.java.tuple.Tuple2",
                       {upg_simple_of(test::kLongSnapshot), upg_simple_of(test::kStringSnapshot)});
       },
       UpgradeVerdict::kOk, "", ""},
      {"POJO of Long and String",
       [](ByteWriter& w) {
         upg_pojo(w, "com.example.Event",
                  {{"id", upg_simple_of(test::kLongSnapshot)}, {"name", upg_simple_of(test::kStringSnapshot)}});
       },
       UpgradeVerdict::kOk, "", ""},
      {"Kryo generic type", upg_kryo_of("com.example.Event"), UpgradeVerdict::kFail, "kryo", "value"},
      {"POJO with a java.util.List field",
       [](ByteWriter& w) {
         upg_pojo(w, "com.example.Order",
                  {{"id", upg_simple_of(test::kLongSnapshot)}, {"items", upg_kryo_of("java.util.List")}});
       },
       UpgradeVerdict::kFail, "pojo-collection", "value > field items"},
      {"POJO with a java.util.ArrayList field",
       [](ByteWriter& w) {
         upg_pojo(w, "com.example.Order", {{"items", upg_kryo_of("java.util.ArrayList")}});
       },
       UpgradeVerdict::kFail, "kryo", "value > field items"},
      {"Flink 2.x POJO with a java.util.Set field (SetSerializer)",
       [](ByteWriter& w) {
         upg_pojo(w, "com.example.Order",
                  {{"tags", [](ByteWriter& v) { upg_composite(v, kUpgSet, "", {upg_simple_of(kUpgInt)}); }}});
       },
       UpgradeVerdict::kOk, "", ""},
      {"Kryo inside a TTL value inside a list",
       [](ByteWriter& w) {
         upg_composite(
             w, test::kListSnapshot, "", {[](ByteWriter& v) {
               upg_composite(v, kUpgTtl, "", {upg_simple_of(test::kLongSnapshot), upg_kryo_of("com.example.Event")});
             }});
       },
       UpgradeVerdict::kFail, "kryo", "value > 0 > 1"},
      {"legacy TypeSerializerConfigSnapshot", upg_legacy_config, UpgradeVerdict::kFail, "legacy-config", "value"},
      {"Scala case class",
       [](ByteWriter& w) {
         upg_composite(w, "org.apache.flink.api.scala.typeutils.ScalaCaseClassSerializerSnapshot", "com.example.Point",
                       {upg_simple_of(test::kLongSnapshot)});
       },
       UpgradeVerdict::kFail, "scala-api", "value"},
      {"Scala Option",
       [](ByteWriter& w) {
         upg_composite(w, "org.apache.flink.api.scala.typeutils.ScalaOptionSerializerSnapshot", "",
                       {upg_simple_of(test::kStringSnapshot)});
       },
       UpgradeVerdict::kFail, "scala-api", "value"},
      {"TwoPhaseCommitSinkFunction state",
       [](ByteWriter& w) {
         upg_composite(
             w, "org.apache.flink.streaming.api.functions.sink.TwoPhaseCommitSinkFunction$StateSerializerSnapshot", "",
             {upg_simple_of(test::kStringSnapshot), upg_simple_of(test::kVoidSnapshot)});
       },
       UpgradeVerdict::kFail, "removed-class", "value"},
      {"a job's own serializer",
       [](ByteWriter& w) {
         w.utf("com.example.EventSerializerSnapshot");
         w.i32(1);
         w.i32(42);
       },
       UpgradeVerdict::kUnknown, "unknown-serializer", "value"},
  };
  for (const UpgCase& c : table) {
    INFO(c.kind);
    std::vector<UpgradeFinding> f = upg_judged(c.build);
    CHECK(worst_verdict(f) == c.verdict);
    if (c.verdict == UpgradeVerdict::kOk) {
      CHECK(f.empty());
      continue;
    }
    REQUIRE_FALSE(f.empty());
    CHECK(f.front().rule == c.rule);
    CHECK(f.front().where == c.where);
    CHECK_FALSE(f.front().reason.empty());
  }
}

TEST_CASE("upgrade findings name every obstacle of a tree and the worst verdict wins", "[unit][ops]") {
  // A POJO with a Kryo List field, a Scala Option field and a field of the job's own
  // serializer: two failures and an unknown, each at its field.
  std::vector<UpgradeFinding> f = upg_judged([](ByteWriter& w) {
    upg_pojo(w, "com.example.Order",
             {{"items", upg_kryo_of("java.util.Map")},
              {"note",
               [](ByteWriter& v) {
                 upg_composite(v, "org.apache.flink.api.scala.typeutils.ScalaOptionSerializerSnapshot", "",
                               {upg_simple_of(test::kStringSnapshot)});
               }},
              {"zz", [](ByteWriter& v) {
                 v.utf("com.example.OwnSnapshot");
                 v.i32(1);
               }}});
  });
  REQUIRE(f.size() == 3);
  CHECK(f[0].rule == "pojo-collection");
  CHECK(f[0].serializer == "org.apache.flink.api.java.typeutils.runtime.kryo.KryoSerializer");
  CHECK(f[1].rule == "scala-api");
  CHECK(f[1].where == "value > field note");
  CHECK(f[2].verdict == UpgradeVerdict::kUnknown);
  CHECK(f[2].where == "value > field zz");
  CHECK(worst_verdict(f) == UpgradeVerdict::kFail);
  CHECK(worst_verdict({}) == UpgradeVerdict::kOk);
}

TEST_CASE("upgrade check says which Kryo states ckpt reads the bytes of", "[unit][ops]") {
  const std::string note = "ckpt reads these Kryo 2 bytes";
  std::vector<UpgradeFinding> list = upg_judged(upg_kryo_of("java.util.List"));
  REQUIRE(list.size() == 1);
  CHECK(list[0].rule == "kryo");
  CHECK(list[0].reason.find(note) != std::string::npos);
  std::vector<UpgradeFinding> field = upg_judged([](ByteWriter& w) {
    upg_pojo(w, "com.example.Order", {{"items", upg_kryo_of("java.util.Map")}});
  });
  REQUIRE(field.size() == 1);
  CHECK(field[0].rule == "pojo-collection");
  CHECK(field[0].reason.find(note) != std::string::npos);
  std::vector<UpgradeFinding> user = upg_judged(upg_kryo_of("com.example.Event"));
  REQUIRE(user.size() == 1);
  CHECK(user[0].reason.find(note) == std::string::npos);
}

TEST_CASE("Flink 2.x POJO collection fields decode with the List Map and Set serializers", "[unit][state]") {
  // FLIP-398: Flink 2.0 gives POJO fields declared List, Map and Set its ListSerializer,
  // MapSerializer and SetSerializer (formats/serializers.md "Flink 2.x collection fields").
  // SetSerializer writes i32 size, then per element a null flag (true = null) and the element.
  ByteWriter snap;
  upg_pojo(snap, "com.example.Order",
           {{"items",
             [](ByteWriter& v) { upg_composite(v, test::kListSnapshot, "", {upg_simple_of(test::kStringSnapshot)}); }},
            {"counts",
             [](ByteWriter& v) {
               upg_composite(v, test::kMapSnapshot, "",
                             {upg_simple_of(test::kStringSnapshot), upg_simple_of(test::kLongSnapshot)});
             }},
            {"tags", [](ByteWriter& v) { upg_composite(v, kUpgSet, "", {upg_simple_of(kUpgInt)}); }}});
  auto d = test::decodable_decoder(std::string(snap.buffer()));

  ByteWriter value;
  value.u8(2);           // PojoSerializer: the exact class, no subclass
  value.boolean(false);  // items
  value.i32(2);
  value.bytes(
      "\x02"
      "a");
  value.bytes(
      "\x02"
      "b");
  value.boolean(false);  // counts
  value.i32(1);
  value.bytes(
      "\x02"
      "x");
  value.boolean(false);
  value.i64(5);
  value.boolean(false);  // tags: 7 and a null element
  value.i32(2);
  value.boolean(false);
  value.i32(7);
  value.boolean(true);
  const std::string bytes(value.buffer());
  nlohmann::json v = test::decode_exactly(*d, bytes);
  CHECK(v == nlohmann::json::parse(
                 R"({"class":"com.example.Order","fields":{"items":["a","b"],"counts":[["x",5]],"tags":[7,null]}})"));
  ByteWriter again;
  REQUIRE(d->encode(v, again).ok());
  CHECK(std::string(again.buffer()) == bytes);

  // A set's hash is the sum of its elements' (AbstractSet#hashCode), nulls counting 0.
  auto set = test::decodable_decoder([] {
    ByteWriter w;
    upg_composite(w, kUpgSet, "", {upg_simple_of(kUpgInt)});
    return std::string(w.buffer());
  }());
  CHECK(set->java_hash_code(nlohmann::json::parse("[7,null,-2]")) == 5);
}
