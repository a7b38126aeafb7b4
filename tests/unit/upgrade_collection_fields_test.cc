// POJO fields of List, Map and Set re-encoded from the Kryo 2 bytes Flink 1.x wrote into the
// bytes of Flink 2.x's ListSerializer, MapSerializer and SetSerializer (ckpt upgrade,
// formats/serializers.md §16.2): the types read from Kryo bytes, the snapshots written, and
// values hand-built in both forms from Kryo 2.24's and Flink 2.x's sources.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ckpt/entries.h"
#include "ckpt/load.h"
#include "ckpt/upgrade.h"
#include "ckpt/verify.h"
#include "ops/rewrite/snapshot_rewrite.h"
#include "ops/upgrade/collection_fields.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/decoder_checks.h"
#include "testlib/edit_checks.h"
#include "testlib/pojo_snapshots.h"
#include "testlib/snapshot_classes.h"
#include "testlib/test_support.h"
#include "types/kryo_values.h"
#include "types/serializer_snapshot.h"
#include "types/snapshot_bytes.h"
#include "types/value_decoder.h"

using namespace ckpt;

namespace {

const char* const kCfTtl = test::kTtlSnapshot;
const char* const kCfList = test::kListSnapshot;
const char* const kCfSet = test::kSetSnapshot;
const char* const kCfMap = test::kMapSnapshot;
const char* const kCfInt = test::kIntSnapshot;
const char* const kCfLong = test::kLongSnapshot;
const char* const kCfString = test::kStringSnapshot;

using CfSnapshot = test::SnapshotWriter;

CfSnapshot cf_simple(const char* cls) {
  return [cls](ByteWriter& w) { write_simple_snapshot(w, cls); };
}

// CompositeTypeSerializerSnapshot v3, outer version 1 without outer data (List, Set, Map, TTL).
CfSnapshot cf_composite(const char* cls, std::vector<CfSnapshot> nested) {
  return [cls, nested](ByteWriter& w) {
    write_composite_head(w, cls, static_cast<int32_t>(nested.size()));
    for (const CfSnapshot& n : nested) n(w);
  };
}

CfSnapshot cf_kryo(const char* type) {
  return [type](ByteWriter& w) { test::write_kryo_snapshot(w, type); };
}

CfSnapshot cf_pojo(const char* cls, std::vector<std::pair<const char*, CfSnapshot>> fields) {
  return [cls, fields](ByteWriter& w) { test::write_pojo_snapshot(w, cls, fields); };
}

SerializerSnapshot cf_parse(const CfSnapshot& s) {
  ByteWriter w;
  s(w);
  return test::parse_versioned(std::string(w.buffer()));
}

// A keyed state's meta info of `kind` ("VALUE", "LIST", "MAP") with a void namespace.
StateMetaInfo cf_state(const char* kind, const CfSnapshot& value) {
  StateMetaInfo m;
  m.name = "orders";
  m.backend_type = static_cast<int32_t>(BackendStateType::kKeyValue);
  m.options.emplace_back("KEYED_STATE_TYPE", kind);
  m.serializers.emplace_back("NAMESPACE_SERIALIZER", cf_parse(cf_simple(test::kVoidSnapshot)));
  m.serializers.emplace_back("VALUE_SERIALIZER", cf_parse(value));
  return m;
}

// Kryo 2.24's bytes of one writeClassAndObject (formats/serializers.md §16): class ids, names
// on first use, reference markers.
class CfKryo {
 public:
  CfKryo& null() { return u8(0); }
  CfKryo& integer(int32_t v) {  // Kryo id 0 (int): zigzag varint
    w_.u8(2);
    w_.varint((static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31));
    return *this;
  }
  CfKryo& long_(int64_t v) {  // Kryo id 7 (long): zigzag varlong (small values only here)
    w_.u8(9);
    w_.varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
    return *this;
  }
  CfKryo& string(const std::string& s) {  // Kryo id 1 (String): a new reference, then the string
    w_.u8(3);
    w_.u8(1);
    return text(s);
  }
  // A collection or map of class `cls` with `n` elements (entries); they follow.
  CfKryo& collection(const std::string& cls, uint32_t n) {
    w_.u8(1);
    size_t id = 0;
    while (id < names_.size() && names_[id] != cls) ++id;
    w_.varint(id);
    if (id == names_.size()) {
      names_.push_back(cls);
      text(cls);
    }
    w_.u8(1);  // a new object
    w_.varint(n);
    return *this;
  }
  std::string bytes() const { return std::string(w_.buffer()); }

 private:
  CfKryo& u8(uint8_t b) {
    w_.u8(b);
    return *this;
  }
  // Output.writeString: ASCII of 2+ chars with the last byte's high bit set; else the length
  // + 1 with bit 7 set, then the chars.
  CfKryo& text(const std::string& s) {
    if (s.size() > 1) {
      w_.bytes(s.substr(0, s.size() - 1));
      w_.u8(static_cast<uint8_t>(s.back()) | 0x80);
    } else {
      w_.u8(static_cast<uint8_t>(0x80 | (s.size() + 1)));
      w_.bytes(s);
    }
    return *this;
  }
  ByteWriter w_;
  std::vector<std::string> names_;
};

// StringSerializer (StringValue.writeString) of an ASCII string shorter than 127 chars.
std::string cf_flink_string(const std::string& s) { return std::string(1, static_cast<char>(s.size() + 1)) + s; }

const CfSnapshot kCfOrder = cf_pojo("com.example.Order", {{"counts", cf_kryo("java.util.Map")},
                                                          {"id", cf_simple(kCfLong)},
                                                          {"items", cf_kryo("java.util.List")},
                                                          {"tags", cf_kryo("java.util.Set")}});

// The Flink 1.x bytes of an Order: counts {"a": [1L, 2L]}, id 42, items ["x", "yz"], tags {7, null}.
std::string cf_order_1x() {
  ByteWriter w;
  w.u8(2);           // PojoSerializer: NO_SUBCLASS
  w.boolean(false);  // counts: Kryo HashMap of one entry
  w.bytes(CfKryo()
              .collection("java.util.HashMap", 1)
              .string("a")
              .collection("java.util.ArrayList", 2)
              .long_(1)
              .long_(2)
              .bytes());
  w.boolean(false);  // id
  w.i64(42);
  w.boolean(false);  // items
  w.bytes(CfKryo().collection("java.util.ArrayList", 2).string("x").string("yz").bytes());
  w.boolean(false);  // tags
  w.bytes(CfKryo().collection("java.util.HashSet", 2).integer(7).null().bytes());
  return std::string(w.buffer());
}

// The same Order as Flink 2.x writes it: MapSerializer (key, null flag, value), ListSerializer
// (i32 size, elements), SetSerializer (i32 size, per element a null flag and the element).
std::string cf_order_2x() {
  ByteWriter w;
  w.u8(2);
  w.boolean(false);  // counts: Map<String, List<Long>>
  w.i32(1);
  w.bytes(cf_flink_string("a"));
  w.boolean(false);
  w.i32(2);
  w.i64(1);
  w.i64(2);
  w.boolean(false);  // id
  w.i64(42);
  w.boolean(false);  // items: List<String>
  w.i32(2);
  w.bytes(cf_flink_string("x"));
  w.bytes(cf_flink_string("yz"));
  w.boolean(false);  // tags: Set<Integer>, 7 and null
  w.i32(2);
  w.boolean(false);
  w.i32(7);
  w.boolean(true);
  return std::string(w.buffer());
}

// An Order with empty collections and a null tags field, both forms.
std::string cf_empty_order(bool flink2) {
  ByteWriter w;
  w.u8(2);
  w.boolean(false);  // counts {}
  if (flink2)
    w.i32(0);
  else
    w.bytes(CfKryo().collection("java.util.HashMap", 0).bytes());
  w.boolean(false);  // id
  w.i64(-1);
  w.boolean(false);  // items []
  if (flink2)
    w.i32(0);
  else
    w.bytes(CfKryo().collection("java.util.LinkedList", 0).bytes());
  w.boolean(true);  // tags null
  return std::string(w.buffer());
}

nlohmann::json cf_decode(const SerializerSnapshot& s, const std::string& bytes) {
  auto d = make_decoder(s);
  REQUIRE(d.ok());
  return test::decode_exactly(**d, bytes);
}

// observe() over `values`, then rewrite(): the error or the new meta info.
Result<StateMetaInfo> cf_rewrite(CollectionFields& f, const std::vector<std::string>& values) {
  std::vector<KryoType> types;
  for (const std::string& v : values) {
    Status s = f.observe(v, types);
    if (!s.ok()) return s.error();
  }
  return f.rewrite(types);
}

// A job's savepoint as `ckpt load --spec` writes it (Flink 2.x's form: the POJO's List field has
// ListSerializer), and its entries.
constexpr const char* kCfSpec = R"({"operators": [
  {"uid": "orders", "parallelism": 2, "max_parallelism": 128, "key": "BIGINT",
   "states": [{"name": "order", "kind": "value", "type": "POJO com.acme.Order {id: BIGINT, items: LIST<STRING>, note: STRING}"},
              {"name": "tags", "kind": "map", "type": "MAP<STRING, INT>"}]}]})";
constexpr const char* kCfLines =
    R"({"uid":"orders","state":"order","kind":"keyed","key":1,"namespace":"VoidNamespace","value":{"class":"com.acme.Order","fields":{"id":1,"items":["a","bc"],"note":null}}}
{"uid":"orders","state":"order","kind":"keyed","key":2,"namespace":"VoidNamespace","value":{"class":"com.acme.Order","fields":{"id":2,"items":[],"note":"x"}}}
{"uid":"orders","state":"order","kind":"keyed","key":3,"namespace":"VoidNamespace","value":{"class":"com.acme.Order","fields":{"id":3,"items":null,"note":"y"}}}
{"uid":"orders","state":"order","kind":"keyed","key":7,"namespace":"VoidNamespace","value":{"class":"com.acme.Order","fields":{"id":7,"items":["z"],"note":"w"}}}
{"uid":"orders","state":"tags","kind":"keyed","key":2,"namespace":"VoidNamespace","user_key":"k","value":7}
)";

// The Order state turned back into what Flink 1.x writes: the items field a Kryo List (its
// KryoSerializerSnapshot, its values as Kryo 2's ArrayList of Strings), the rest as it was.
class CfDowngrade : public SnapshotEdit {
 public:
  // With `digits_as_integers`, an item of digits is written as a Kryo Integer (values of two
  // classes in one field).
  explicit CfDowngrade(bool digits_as_integers = false) : digits_(digits_as_integers) {}

  Result<std::unique_ptr<KeyedEdit>> keyed(const OperatorState&, int32_t, KeyedBackendMeta& meta) override {
    for (size_t i = 0; i < meta.states.size(); ++i) {
      if (meta.states[i].name != "order") continue;
      for (auto& [role, snap] : meta.states[i].serializers) {
        if (role != "VALUE_SERIALIZER") continue;
        auto d = make_decoder(snap);
        if (!d.ok()) return d.error();
        snap = cf_parse(cf_pojo(
            "com.acme.Order",
            {{"id", cf_simple(kCfLong)}, {"items", cf_kryo("java.util.List")}, {"note", cf_simple(kCfString)}}));
        return std::unique_ptr<KeyedEdit>(std::make_unique<Values>(i, std::move(d).value(), digits_));
      }
    }
    return std::unique_ptr<KeyedEdit>();
  }

 private:
  class Values : public KeyedEdit {
   public:
    Values(size_t index, std::unique_ptr<ValueDecoder> flink2, bool digits)
        : index_(index), flink2_(std::move(flink2)), digits_(digits) {}
    Status key_group(int32_t, std::vector<std::vector<RocksPair>>& by_state) override {
      for (RocksPair& p : by_state[index_]) {
        ByteReader r(p.value);
        nlohmann::json v;
        flink2_->read(r, v);
        if (!r.ok()) return *r.error();
        const nlohmann::json& f = v["fields"];
        ByteWriter w;
        w.u8(2);
        w.boolean(false);
        w.i64(f["id"].get<int64_t>());
        w.boolean(f["items"].is_null());
        if (!f["items"].is_null()) {
          CfKryo k;
          k.collection("java.util.ArrayList", static_cast<uint32_t>(f["items"].size()));
          for (const auto& e : f["items"]) {
            const std::string item = e.get<std::string>();
            if (digits_ && item.find_first_not_of("0123456789") == std::string::npos)
              k.integer(std::stoi(item));
            else
              k.string(item);
          }
          w.bytes(k.bytes());
        }
        w.boolean(f["note"].is_null());
        if (!f["note"].is_null()) w.bytes(cf_flink_string(f["note"].get<std::string>()));
        p.value = std::string(w.buffer());
      }
      return Status::OK();
    }

   private:
    size_t index_;
    std::unique_ptr<ValueDecoder> flink2_;
    bool digits_;
  };
  bool digits_;
};

// Each "order" entry's key and value bytes.
std::multiset<std::pair<std::string, std::string>> cf_order_bytes(const std::string& snapshot) {
  EntryReaderOptions o;
  o.state = "order";
  auto reader = EntryReader::open(snapshot, o);
  REQUIRE(reader.ok());
  std::multiset<std::pair<std::string, std::string>> out;
  auto it = (*reader)->entries();
  for (; it->valid(); it->next()) {
    REQUIRE(it->entry().has_raw);
    out.emplace(it->entry().raw_key, it->entry().raw_value);
  }
  REQUIRE(it->status().ok());
  return out;
}

// kCfLines loaded from kCfSpec (Flink 2.x's form) at `dir`/flink2 in layout `to`, and turned
// into Flink 1.x's (a Kryo List field) at `dir`/flink1.
void cf_flink1_snapshot(const std::string& dir, ConvertTarget to) {
  LoadOptions lo;
  lo.spec_text = kCfSpec;
  lo.spec_name = "spec.json";
  lo.output = dir + "/flink2";
  lo.to = to;
  std::istringstream lines(kCfLines);
  REQUIRE(load_snapshot(lines, "lines.ndjson", lo).ok());
  CfDowngrade downgrade;
  RewriteOptions ro;
  ro.output = dir + "/flink1";
  REQUIRE(rewrite_snapshot(dir + "/flink2", ro, {&downgrade}).ok());
}

const StateUpgradeCheck* cf_checked(const UpgradeCheckReport& r, const std::string& state) {
  for (const StateUpgradeCheck& s : r.states)
    if (s.state == state) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("Kryo 2 collections report the Java types of their elements", "[unit][state]") {
  // ArrayList [1, -2] (formats/serializers.md §16.1's first example): List<Integer>.
  std::string list = CfKryo().collection("java.util.ArrayList", 2).integer(1).integer(-2).bytes();
  ByteReader r(list);
  nlohmann::json v;
  KryoType t;
  REQUIRE(read_kryo_typed(r, "java.util.List", {}, v, t).ok());
  CHECK(r.at_end());
  CHECK(v == nlohmann::json::parse("[1,-2]"));
  CHECK(kryo_type_name(t) == "List<Integer>");

  // A map whose values are lists of longs, one of them empty: the empty one takes the other's type.
  std::string map = CfKryo()
                        .collection("java.util.TreeMap", 2)
                        .string("a")
                        .collection("java.util.ArrayList", 0)
                        .string("b")
                        .collection("java.util.ArrayList", 1)
                        .long_(5)
                        .bytes();
  // TreeMapSerializer writes its comparator (null) before the size: put it in place.
  std::string tree = map;
  const size_t size_at = tree.find("java.util.TreeMa") + 16 + 1 + 1;  // name, reference marker
  tree.insert(size_at, 1, '\0');
  ByteReader m(tree);
  REQUIRE(read_kryo_typed(m, "java.util.Map", {}, v, t).ok());
  CHECK(m.at_end());
  CHECK(v == nlohmann::json::parse(R"([["a",[]],["b",[5]]])"));
  CHECK(kryo_type_name(t) == "Map<String, List<Long>>");

  // Integer and Long elements do not unify; a null is kept as seen.
  std::string mixed = CfKryo().collection("java.util.HashSet", 3).integer(1).long_(1).null().bytes();
  ByteReader x(mixed);
  REQUIRE(read_kryo_typed(x, "java.util.Set", {}, v, t).ok());
  REQUIRE(t.kind == KryoType::Kind::kSet);
  CHECK(t.args[0].kind == KryoType::Kind::kMixed);
  CHECK(t.args[0].null_seen);
  CHECK(kryo_type_name(t) == "Set<mixed (Integer, Long)>");

  // ["a", "a"], one String twice: the back-reference (marker 3, object 1) has its object's type.
  std::string twice = CfKryo().collection("java.util.ArrayList", 2).string("a").bytes() + "\x03\x03";
  ByteReader b(twice);
  REQUIRE(read_kryo_typed(b, "java.util.List", {}, v, t).ok());
  CHECK(b.at_end());
  CHECK(v == nlohmann::json::parse(R"(["a","a"])"));
  CHECK(kryo_type_name(t) == "List<String>");

  // A declared type make_kryo() has no reader for.
  ByteReader y(list);
  CHECK(read_kryo_typed(y, "com.example.Event", {}, v, t).error().code == ErrorCode::kNotSupported);
}

TEST_CASE("Flink 2.x collection serializer snapshots are written as Flink writes them", "[unit][ops]") {
  // Map<String, Set<Long>>: MapSerializerSnapshot over StringSerializer and SetSerializerSnapshot.
  KryoType set_of_long{KryoType::Kind::kSet, false, {}, {KryoType{KryoType::Kind::kLong, false, {}, {}}}};
  KryoType map{KryoType::Kind::kMap, false, {}, {KryoType{KryoType::Kind::kString, false, {}, {}}, set_of_long}};
  auto bytes = flink2_collection_snapshot(map);
  REQUIRE(bytes.ok());
  ByteWriter want;
  cf_composite(kCfMap, {cf_simple(kCfString), cf_composite(kCfSet, {cf_simple(kCfLong)})})(want);
  CHECK(*bytes == std::string(want.buffer()));

  // A list element that was null somewhere, or a map key, has no ListSerializer / MapSerializer
  // form; a set element or a map value does.
  KryoType nullable_int{KryoType::Kind::kInt, true, {}, {}};
  CHECK(flink2_collection_snapshot(KryoType{KryoType::Kind::kList, false, {}, {nullable_int}}).error().code ==
        ErrorCode::kNotSupported);
  CHECK(flink2_collection_snapshot(KryoType{KryoType::Kind::kMap, false, {}, {nullable_int, nullable_int}})
            .error()
            .code == ErrorCode::kNotSupported);
  CHECK(flink2_collection_snapshot(KryoType{KryoType::Kind::kSet, false, {}, {nullable_int}}).ok());
  CHECK(flink2_collection_snapshot(
            KryoType{KryoType::Kind::kMap, false, {}, {KryoType{KryoType::Kind::kInt, false, {}, {}}, nullable_int}})
            .ok());
  // No element ever seen, or elements of several classes: no type to give.
  CHECK_FALSE(flink2_collection_snapshot(KryoType{KryoType::Kind::kList, false, {}, {KryoType{}}}).ok());
  CHECK_FALSE(
      flink2_collection_snapshot(
          KryoType{KryoType::Kind::kList, false, {}, {KryoType{KryoType::Kind::kMixed, false, "Integer, Long", {}}}})
          .ok());
}

TEST_CASE("Flink 2.x POJO collection fields: hand-built bytes decode and encode back", "[unit][state]") {
  // The fixture of formats/serializers.md §16.2: an Order whose fields Flink 2.x gives
  // MapSerializer<String, List<Long>>, ListSerializer<String> and SetSerializer<Integer>, and an
  // Order with empty collections and a null field.
  const SerializerSnapshot s2 = cf_parse(
      cf_pojo("com.example.Order",
              {{"counts", cf_composite(kCfMap, {cf_simple(kCfString), cf_composite(kCfList, {cf_simple(kCfLong)})})},
               {"id", cf_simple(kCfLong)},
               {"items", cf_composite(kCfList, {cf_simple(kCfString)})},
               {"tags", cf_composite(kCfSet, {cf_simple(kCfInt)})}}));
  auto d = make_decoder(s2);
  REQUIRE(d.ok());
  for (const std::string& bytes : {cf_order_2x(), cf_empty_order(true)}) {
    nlohmann::json v = test::decode_exactly(**d, bytes);
    ByteWriter again;
    REQUIRE((*d)->encode(v, again).ok());
    CHECK(std::string(again.buffer()) == bytes);
    ByteWriter twice;
    REQUIRE((*d)->encode(test::decode_exactly(**d, std::string(again.buffer())), twice).ok());
    CHECK(std::string(twice.buffer()) == bytes);
  }
  CHECK(test::decode_exactly(**d, cf_order_2x()) ==
        nlohmann::json::parse(R"({"class":"com.example.Order","fields":{"counts":[["a",[1,2]]],"id":42,)"
                              R"("items":["x","yz"],"tags":[7,null]}})"));
}

TEST_CASE("POJO Kryo collection fields are re-encoded for Flink 2.x and the rest copied", "[unit][ops]") {
  // A VALUE state of Orders in Flink 1.x's bytes becomes the Flink 2.x fixture, byte for byte;
  // both decode to the same values.
  StateMetaInfo state = cf_state("VALUE", kCfOrder);
  const SerializerSnapshot key = cf_parse(cf_simple(kCfLong));
  auto f = CollectionFields::make(state, key);
  REQUIRE(f.ok());
  CHECK((*f)->where() == std::vector<std::string>{"value > field counts", "value > field items", "value > field tags"});
  const std::vector<std::string> old_values = {cf_order_1x(), cf_empty_order(false)};
  auto info = cf_rewrite(**f, old_values);
  REQUIRE(info.ok());
  const SerializerSnapshot& v2 = *info->value_serializer();
  CHECK(v2.display_name() == state.value_serializer()->display_name());
  REQUIRE(v2.nested.size() == 4);
  CHECK(v2.nested[0].snapshot_class == kCfMap);
  CHECK(v2.nested[1].raw == state.value_serializer()->nested[1].raw);  // id: untouched
  CHECK(v2.nested[2].snapshot_class == kCfList);
  CHECK(v2.nested[3].snapshot_class == kCfSet);
  CHECK_FALSE(has_collection_field(v2));
  CHECK(info->name == "orders");

  const std::vector<std::string> new_values = {cf_order_2x(), cf_empty_order(true)};
  for (size_t i = 0; i < old_values.size(); ++i) {
    INFO(i);
    std::string out;
    REQUIRE((*f)->transcode(old_values[i], out).ok());
    CHECK(out == new_values[i]);
    CHECK(cf_decode(v2, out) == cf_decode(*state.value_serializer(), old_values[i]));
  }
  // A null Order is one flags byte, in both forms.
  std::string out;
  REQUIRE((*f)->transcode(std::string(1, '\1'), out).ok());
  CHECK(out == std::string(1, '\1'));
}

TEST_CASE("Kryo collection fields of list elements and map values with TTL are re-encoded", "[unit][ops]") {
  // LIST state: ListSerializer<TtlSerializer<Long, Bag>>; RocksDB joins elements with ','.
  const CfSnapshot bag = cf_pojo("com.example.Bag", {{"items", cf_kryo("java.util.List")}});
  StateMetaInfo list = cf_state("LIST", cf_composite(kCfList, {cf_composite(kCfTtl, {cf_simple(kCfLong), bag})}));
  auto f = CollectionFields::make(list, cf_parse(cf_simple(kCfLong)));
  REQUIRE(f.ok());
  CHECK((*f)->where() == std::vector<std::string>{"value > 0 > 1 > field items"});
  auto element = [](bool flink2, int64_t ts, int32_t x) {
    ByteWriter w;
    w.i64(ts);
    w.u8(2);
    w.boolean(false);
    if (flink2) {
      w.i32(1);
      w.i32(x);
    } else {
      w.bytes(CfKryo().collection("java.util.ArrayList", 1).integer(x).bytes());
    }
    return std::string(w.buffer());
  };
  const std::string old_value = element(false, 100, 3) + "," + element(false, 200, -4);
  REQUIRE(cf_rewrite(**f, {old_value}).ok());
  std::string out;
  REQUIRE((*f)->transcode(old_value, out).ok());
  CHECK(out == element(true, 100, 3) + "," + element(true, 200, -4));

  // MAP state: the user value behind its null flag; a null user value stays one byte.
  StateMetaInfo map = cf_state("MAP", cf_composite(kCfMap, {cf_simple(kCfString), bag}));
  auto g = CollectionFields::make(map, cf_parse(cf_simple(kCfLong)));
  REQUIRE(g.ok());
  std::string old_map = std::string(1, '\0') + element(false, 0, 9).substr(8);
  REQUIRE(cf_rewrite(**g, {old_map, std::string(1, '\1')}).ok());
  REQUIRE((*g)->transcode(old_map, out).ok());
  CHECK(out == std::string(1, '\0') + element(true, 0, 9).substr(8));
  REQUIRE((*g)->transcode(std::string(1, '\1'), out).ok());
  CHECK(out == std::string(1, '\1'));
}

TEST_CASE("Kryo collection fields whose type is not known are not rewritten", "[unit][ops]") {
  // Each case: the values of a VALUE state of Bags; the rewrite must refuse, saying why.
  const CfSnapshot bag = cf_pojo("com.example.Bag", {{"items", cf_kryo("java.util.List")}});
  auto value = [](const std::string& kryo) {
    ByteWriter w;
    w.u8(2);
    w.boolean(false);
    w.bytes(kryo);
    return std::string(w.buffer());
  };
  struct CfCase {
    const char* what;
    std::vector<std::string> values;
    const char* reason;
  };
  const std::vector<CfCase> cases = {
      {"elements of two classes",
       {value(CfKryo().collection("java.util.ArrayList", 1).integer(1).bytes()),
        value(CfKryo().collection("java.util.ArrayList", 1).string("a").bytes())},
       "several types"},
      {"a null element", {value(CfKryo().collection("java.util.ArrayList", 2).integer(1).null().bytes())}, "null"},
      {"only empty lists", {value(CfKryo().collection("java.util.ArrayList", 0).bytes())}, "not known"},
      {"an ArrayDeque inside",
       {value(CfKryo().collection("java.util.ArrayList", 1).collection("java.util.ArrayDeque", 1).integer(1).bytes())},
       "ArrayDeque"},
      {"a class of the job",
       {value(CfKryo().collection("java.util.ArrayList", 1).collection("com.example.Item", 0).bytes())},
       "com.example.Item"},
  };
  for (const CfCase& c : cases) {
    INFO(c.what);
    auto f = CollectionFields::make(cf_state("VALUE", bag), cf_parse(cf_simple(kCfLong)));
    REQUIRE(f.ok());
    auto info = cf_rewrite(**f, c.values);
    REQUIRE_FALSE(info.ok());
    CHECK(info.error().message.find(c.reason) != std::string::npos);
  }
  // A field in the key, or in a map's user key: their bytes are what entries are found by.
  CHECK(CollectionFields::make(cf_state("VALUE", cf_simple(kCfLong)), cf_parse(bag)).error().code ==
        ErrorCode::kNotSupported);
  CHECK(CollectionFields::make(cf_state("MAP", cf_composite(kCfMap, {bag, cf_simple(kCfLong)})),
                               cf_parse(cf_simple(kCfLong)))
            .error()
            .code == ErrorCode::kNotSupported);
}

TEST_CASE("upgrade re-encodes a savepoint's Kryo List field into the bytes Flink 2.x writes", "[unit][ops]") {
  // The savepoint of load --spec is Flink 2.x's form; turned into Flink 1.x's (a Kryo List
  // field) and upgraded, it must come back byte for byte, in each keyed layout, with the check's
  // verdict going from fail to ok and the entries dumping the same all along.
  for (ConvertTarget to : {ConvertTarget::kHeap, ConvertTarget::kRocksDb, ConvertTarget::kCanonical}) {
    INFO(convert_target_name(to));
    test::ScratchDir tmp;
    cf_flink1_snapshot(tmp.path(), to);

    auto before = check_upgrade(tmp / "flink1", UpgradeOptions{});
    REQUIRE(before.ok());
    const StateUpgradeCheck* order = cf_checked(*before, "order");
    REQUIRE(order);
    CHECK(order->verdict == UpgradeVerdict::kFail);
    REQUIRE(order->findings.size() == 1);
    CHECK(order->findings[0].rule == "pojo-collection");
    CHECK(order->findings[0].reason.find("upgrade --output rewrites it: value > field items as List<String>") !=
          std::string::npos);

    UpgradeWriteOptions uo;
    uo.output = tmp / "upgraded";
    auto written = upgrade_snapshot(tmp / "flink1", uo);
    REQUIRE(written.ok());
    CHECK(written->rewritten == 1);
    CHECK(written->left == 0);

    auto after = check_upgrade(tmp / "upgraded", UpgradeOptions{});
    REQUIRE(after.ok());
    CHECK(after->problems.empty());
    REQUIRE(cf_checked(*after, "order"));
    CHECK(cf_checked(*after, "order")->verdict == UpgradeVerdict::kOk);
    VerifyOptions v;
    v.deep = true;
    auto verified = verify_snapshot(tmp / "upgraded", v);
    REQUIRE(verified.ok());
    for (const VerifyProblem& p : verified->problems) FAIL(format_problem(p));
    CHECK(verified->complete());

    CHECK(test::dump_set(tmp / "upgraded") == test::dump_set(tmp / "flink1"));
    CHECK(test::dump_set(tmp / "flink1") == test::dump_set(tmp / "flink2"));
    CHECK(cf_order_bytes(tmp / "flink1") != cf_order_bytes(tmp / "flink2"));
    CHECK(cf_order_bytes(tmp / "upgraded") == cf_order_bytes(tmp / "flink2"));
  }
}

TEST_CASE("upgrade leaves a Kryo List field of two element classes as it is or drops it", "[unit][ops]") {
  // A field holding an Integer in one value and a String in another has no one Flink 2.x
  // serializer: the check says why, the rewrite copies the state's bytes unchanged (left), and
  // with --drop-incompatible leaves it out (dropped); the other state is copied either way.
  test::ScratchDir tmp;
  LoadOptions lo;
  lo.spec_text = kCfSpec;
  lo.spec_name = "spec.json";
  lo.output = tmp / "flink2";
  std::istringstream lines(
      R"({"uid":"orders","state":"order","kind":"keyed","key":1,"namespace":"VoidNamespace","value":{"class":"com.acme.Order","fields":{"id":1,"items":["12"],"note":null}}}
{"uid":"orders","state":"order","kind":"keyed","key":2,"namespace":"VoidNamespace","value":{"class":"com.acme.Order","fields":{"id":2,"items":["ab"],"note":null}}}
{"uid":"orders","state":"tags","kind":"keyed","key":2,"namespace":"VoidNamespace","user_key":"k","value":7}
)");
  REQUIRE(load_snapshot(lines, "lines.ndjson", lo).ok());
  CfDowngrade downgrade(true);
  RewriteOptions ro;
  ro.output = tmp / "flink1";
  REQUIRE(rewrite_snapshot(tmp / "flink2", ro, {&downgrade}).ok());

  auto before = check_upgrade(tmp / "flink1", UpgradeOptions{});
  REQUIRE(before.ok());
  REQUIRE(cf_checked(*before, "order"));
  REQUIRE_FALSE(cf_checked(*before, "order")->findings.empty());
  const std::string& reason = cf_checked(*before, "order")->findings[0].reason;
  CHECK(reason.find("upgrade --output cannot rewrite it") != std::string::npos);
  CHECK(reason.find("several types (Integer, String)") != std::string::npos);

  for (bool drop : {false, true}) {
    INFO("drop " << drop);
    UpgradeWriteOptions uo;
    uo.output = tmp / (drop ? "dropped" : "left");
    uo.drop_incompatible = drop;
    auto written = upgrade_snapshot(tmp / "flink1", uo);
    REQUIRE(written.ok());
    CHECK(written->rewritten == 0);
    CHECK(written->left == (drop ? 0u : 1u));
    CHECK(written->dropped == (drop ? 1u : 0u));
    REQUIRE(written->states.size() == 1);
    CHECK(written->states[0].state == "order");
    CHECK(written->states[0].reason.find("several types") != std::string::npos);
    auto after = check_upgrade(uo.output, UpgradeOptions{});
    REQUIRE(after.ok());
    if (drop) {
      CHECK_FALSE(cf_checked(*after, "order"));
    } else {
      REQUIRE(cf_checked(*after, "order"));
      CHECK(cf_checked(*after, "order")->verdict == UpgradeVerdict::kFail);
      CHECK(cf_order_bytes(uo.output) == cf_order_bytes(tmp / "flink1"));
    }
    REQUIRE(cf_checked(*after, "tags"));
    CHECK(cf_checked(*after, "tags")->verdict == UpgradeVerdict::kOk);
  }
}

TEST_CASE("Kryo Lists of every boxed type Kryo registers become Flink 2.x Lists of its serializer", "[unit][ops]") {
  // Per type: one element as Kryo 2 writes it (class id + 2, then DefaultSerializers' bytes:
  // Output.writeFloat / writeChar / writeShort / writeDouble are big-endian) and as Flink 2.x's
  // serializer of that type writes it, and the element's snapshot class.
  struct CfBoxed {
    const char* type;
    std::string kryo;
    std::string flink2;
    const char* snapshot;
  };
  const std::vector<CfBoxed> boxed = {
      {"Integer", std::string("\x02\x05", 2), std::string("\xff\xff\xff\xfd", 4), kCfInt},   // -3
      {"Float", std::string("\x04\x3f\xc0\x00\x00", 5), std::string("\x3f\xc0\x00\x00", 4),  // 1.5f
       "org.apache.flink.api.common.typeutils.base.FloatSerializer$FloatSerializerSnapshot"},
      {"Boolean", std::string("\x05\x01", 2), std::string("\x01", 1),
       "org.apache.flink.api.common.typeutils.base.BooleanSerializer$BooleanSerializerSnapshot"},
      {"Byte", std::string("\x06\xfe", 2), std::string("\xfe", 1),  // -2
       "org.apache.flink.api.common.typeutils.base.ByteSerializer$ByteSerializerSnapshot"},
      {"Character", std::string("\x07\x00\x41", 3), std::string("\x00\x41", 2),  // 'A'
       "org.apache.flink.api.common.typeutils.base.CharSerializer$CharSerializerSnapshot"},
      {"Short", std::string("\x08\x01\x00", 3), std::string("\x01\x00", 2),  // 256
       "org.apache.flink.api.common.typeutils.base.ShortSerializer$ShortSerializerSnapshot"},
      {"Long", std::string("\x09\x80\x01", 3), std::string("\x00\x00\x00\x00\x00\x00\x00\x40", 8),  // 64
       kCfLong},
      {"Double", std::string("\x0a\xc0\x04\x00\x00\x00\x00\x00\x00", 9),  // -2.5
       std::string("\xc0\x04\x00\x00\x00\x00\x00\x00", 8),
       "org.apache.flink.api.common.typeutils.base.DoubleSerializer$DoubleSerializerSnapshot"},
      {"String", std::string("\x03\x01\x61\xe2", 4), std::string("\x03\x61\x62", 3), kCfString},  // "ab"
  };
  const CfSnapshot bag = cf_pojo("com.example.Bag", {{"items", cf_kryo("java.util.List")}});
  for (const CfBoxed& b : boxed) {
    INFO(b.type);
    auto f = CollectionFields::make(cf_state("VALUE", bag), cf_parse(cf_simple(kCfLong)));
    REQUIRE(f.ok());
    // A Bag holding [x, x]: the List's class name, then the element twice (a String the second
    // time by back-reference, as Kryo writes one object twice).
    const bool string = std::string(b.type) == "String";
    std::string kryo = CfKryo().collection("java.util.ArrayList", 2).bytes() + b.kryo + (string ? "\x03\x03" : b.kryo);
    ByteWriter old_value, new_value;
    old_value.u8(2);
    old_value.boolean(false);
    old_value.bytes(kryo);
    new_value.u8(2);
    new_value.boolean(false);
    new_value.i32(2);
    new_value.bytes(b.flink2);
    new_value.bytes(b.flink2);
    auto info = cf_rewrite(**f, {std::string(old_value.buffer())});
    REQUIRE(info.ok());
    const SerializerSnapshot& items = info->value_serializer()->nested[0];
    CHECK(items.snapshot_class == kCfList);
    REQUIRE(items.nested.size() == 1);
    CHECK(items.nested[0].snapshot_class == b.snapshot);
    std::string out;
    REQUIRE((*f)->transcode(std::string(old_value.buffer()), out).ok());
    CHECK(out == std::string(new_value.buffer()));
    CHECK(cf_decode(*info->value_serializer(), out) ==
          cf_decode(*cf_state("VALUE", bag).value_serializer(), std::string(old_value.buffer())));
  }
}

TEST_CASE("upgrade of a Kryo List field refuses a damaged state file and never writes an output that hides it",
          "[unit][ops][corrupt]") {
  // Every byte of the heap state file of the Flink 1.x form flipped in turn: upgrade succeeds
  // only where verify --deep accepts the damaged input (a flip it cannot see, in a string's
  // bytes say), and then its output verifies too; a refusal leaves nothing at the output.
  test::ScratchDir tmp;
  cf_flink1_snapshot(tmp.path(), ConvertTarget::kHeap);
  auto problems = [](const std::string& dir) {
    VerifyOptions v;
    v.deep = true;
    auto r = verify_snapshot(dir, v);
    return !r.ok() || !r->problems.empty();
  };
  std::vector<std::string> state_files;
  for (const auto& f : std::filesystem::recursive_directory_iterator(tmp / "flink1"))
    if (f.is_regular_file() && f.path().filename() != "_metadata") state_files.push_back(f.path().string());
  REQUIRE(!state_files.empty());
  size_t flips = 0, refused = 0;
  for (const std::string& file : state_files) {
    const std::string rel = std::filesystem::relative(file, tmp / "flink1").string();
    const std::string bytes = test::read_file(file);
    for (size_t at = 0; at < bytes.size(); ++at) {
      INFO(rel << " byte " << at);
      test::ScratchDir run;
      std::filesystem::copy(tmp / "flink1", run / "in", std::filesystem::copy_options::recursive);
      std::string damaged = bytes;
      damaged[at] = static_cast<char>(damaged[at] ^ 0xFF);
      test::write_file((std::filesystem::path(run / "in") / rel).string(), damaged);
      UpgradeWriteOptions uo;
      uo.output = run / "out";
      auto written = upgrade_snapshot(run / "in", uo);
      ++flips;
      if (!written.ok()) {
        ++refused;
        CHECK_FALSE(std::filesystem::exists(run / "out"));
        continue;
      }
      CHECK_FALSE(problems(run / "in"));
      CHECK_FALSE(problems(run / "out"));
    }
  }
  CHECK(flips > 100);
  CHECK(refused > 0);
}
