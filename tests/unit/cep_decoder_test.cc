// The CEP library's serializers on bytes laid out as Flink writes them (tests/testlib/cep_bytes.h,
// after NFAStateSerializer, SharedBufferNodeSerializer, Lockable.LockableTypeSerializer,
// NodeId.NodeIdSerializer, EventId.EventIdSerializer and DeweyNumber.DeweyNumberSerializer),
// and on the values Flink's own serializer upgrade tests wrote (../shared/testdata/flink-serializers).
#include <catch2/catch.hpp>

#include "state/backend_meta.h"
#include "state/keyed_state_codec.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/cep_bytes.h"
#include "testlib/decoder_checks.h"
#include "testlib/snapshot_classes.h"
#include "testlib/table_bytes.h"
#include "testlib/test_support.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"

using namespace ckpt;
using namespace ckpt::test;
using nlohmann::json;

namespace {

// A value that must use exactly its bytes; the JSON-text path and skip must agree with read.
json decode_and_skip(const ValueDecoder& d, const std::string& bytes) {
  json v = decode_exactly(d, bytes);
  ByteReader s(bytes);
  d.skip(s);
  CHECK(s.ok());
  CHECK(s.at_end());
  return v;
}

const cep::NodeId kNode{{3, 1700000000000}, "start"};

}  // namespace

TEST_CASE("CEP ids - dewey numbers - edges and locks decode to the documented JSON", "[unit][state]") {
  // Proves DeweyNumberSerializer (i32 n + digits), EventIdSerializer (i32 + i64), NodeIdSerializer
  // (presence byte, EventId, StringValue page), SharedBufferEdgeSerializer and LockableTypeSerializer.
  auto dewey = decodable_decoder(cep::dewey_snapshot());
  CHECK(decode_and_skip(*dewey, cep::dewey({1, 0, 2})) == "1.0.2");
  CHECK(decode_and_skip(*dewey, cep::dewey({})) == "");
  CHECK(decode_and_skip(*dewey, cep::dewey({-7})) == "-7");

  auto event = decodable_decoder(cep::event_id_snapshot());
  CHECK(event->fixed_length() == 12);
  CHECK(decode_and_skip(*event, cep::event_id({3, 1700000000000})) ==
        json::parse(R"({"id":3,"timestamp":1700000000000})"));

  auto node = decodable_decoder(cep::node_id_snapshot());
  CHECK(decode_and_skip(*node, cep::node_id(kNode)) ==
        json::parse(R"({"event_id":{"id":3,"timestamp":1700000000000},"page_name":"start"})"));
  CHECK(decode_and_skip(*node, cep::node_id(std::nullopt)).is_null());
  // Any byte but 0 means present (NodeIdSerializer.deserialize compares with 0 only).
  std::string seven = cep::node_id(kNode);
  seven[0] = 7;
  CHECK(decode_and_skip(*node, seven)["page_name"] == "start");

  auto edge = decodable_decoder(cep::edge_snapshot());
  CHECK(decode_and_skip(*edge, cep::edge(kNode, {1, 1})) ==
        json::parse(R"({"target":{"event_id":{"id":3,"timestamp":1700000000000},"page_name":"start"},
                        "dewey_number":"1.1"})"));
  CHECK(decode_and_skip(*edge, cep::edge(std::nullopt, {1})) == json::parse(R"({"target":null,"dewey_number":"1"})"));

  auto locked = decodable_decoder(cep::lockable_snapshot(
      simple_snapshot("org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot")));
  CHECK(locked->serializer_class() == "org.apache.flink.cep.nfa.sharedbuffer.Lockable$LockableTypeSerializer");
  CHECK(decode_and_skip(*locked, cep::lockable(2, "\x03hi")) == json::parse(R"({"ref_count":2,"element":"hi"})"));
}

TEST_CASE("shared buffer nodes decode in both serializer generations", "[unit][state]") {
  // Proves SharedBufferNodeSerializer (snapshot V2, Flink 1.15+: each edge with its ref count)
  // and the SharedBufferNode$SharedBufferNodeSerializer before it (a ListSerializer of edges).
  auto v2 = decodable_decoder(cep::node_snapshot_v2());
  CHECK(v2->serializer_class() == "org.apache.flink.cep.nfa.sharedbuffer.SharedBufferNodeSerializer");
  CHECK(decode_and_skip(*v2, cep::node_v2({{1, cep::edge(std::nullopt, {1})}, {0, cep::edge(kNode, {1, 0})}})) ==
        json::parse(R"({"edges":[{"ref_count":1,"element":{"target":null,"dewey_number":"1"}},
                                 {"ref_count":0,"element":{"target":{"event_id":{"id":3,"timestamp":1700000000000},
                                                                      "page_name":"start"},"dewey_number":"1.0"}}]})"));

  auto v1 = decodable_decoder(cep::node_snapshot_v1());
  std::string list = std::string("\0\0\0\1", 4) + cep::edge(std::nullopt, {2});
  CHECK(decode_and_skip(*v1, list) == json::parse(R"({"edges":[{"target":null,"dewey_number":"2"}]})"));

  // The whole value of a sharedBuffer-entries state: Lockable<SharedBufferNode>.
  auto entry = decodable_decoder(cep::lockable_snapshot(cep::node_snapshot_v2()));
  CHECK(decode_and_skip(*entry, cep::lockable(4, cep::node_v2({}))) ==
        json::parse(R"({"ref_count":4,"element":{"edges":[]}})"));
}

TEST_CASE("NFA states decode both match queues - with the previous timestamp where the snapshot says so",
          "[unit][state]") {
  // Proves NFAStateSerializer.serializeSingleComputationState: name, previous NodeId, version,
  // start timestamp, (previous timestamp,) start event flag + EventId; outer snapshot version 2
  // stores whether the previous timestamp is written, version 1 never wrote it.
  cep::ComputationState running{"middle", kNode, {1, 0}, 1700000000000, 1700000000500, cep::EventId{3, 1700000000000}};
  cep::ComputationState start{"start", std::nullopt, {2}, -1, -1, std::nullopt};

  for (bool previous : {true, false}) {
    INFO("previous timestamp " << previous);
    auto d = decodable_decoder(cep::nfa_state_snapshot(2, previous));
    json v = decode_and_skip(*d, cep::nfa_state({running, start}, {}, previous));
    REQUIRE(v["partial_matches"].size() == 2);
    CHECK(v["completed_matches"] == json::array());
    const json& m = v["partial_matches"][0];
    CHECK(m["state_name"] == "middle");
    CHECK(m["previous_entry"]["page_name"] == "start");
    CHECK(m["version"] == "1.0");
    CHECK(m["start_timestamp"] == 1700000000000);
    CHECK(m["start_event_id"] == json::parse(R"({"id":3,"timestamp":1700000000000})"));
    CHECK(m.contains("previous_timestamp") == previous);
    if (previous) CHECK(m["previous_timestamp"] == 1700000000500);
    CHECK(v["partial_matches"][1] ==
          json::parse(previous ? R"({"state_name":"start","previous_entry":null,"version":"2","start_timestamp":-1,
                                     "previous_timestamp":-1,"start_event_id":null})"
                               : R"({"state_name":"start","previous_entry":null,"version":"2","start_timestamp":-1,
                                     "start_event_id":null})"));
  }

  auto v1 = decodable_decoder(cep::nfa_state_snapshot(1, false));
  CHECK(decode_and_skip(*v1, cep::nfa_state({}, {start}, false))["completed_matches"][0]["state_name"] == "start");
  CHECK(parse_versioned(cep::nfa_state_snapshot(2, true)).nfa_previous_timestamp);
  CHECK_FALSE(parse_versioned(cep::nfa_state_snapshot(1, false)).nfa_previous_timestamp);
}

TEST_CASE("every cut of a CEP value is an error at an offset inside the value", "[unit][corrupt][state]") {
  // Proves no decoder reads past its bytes or succeeds on a prefix: each truncation of an NFA
  // state, a locked shared buffer node and a node id fails, at or before the cut.
  cep::ComputationState running{"middle", kNode, {1, 0}, 1700000000000, 1700000000500, cep::EventId{3, 1700000000000}};
  struct Case {
    std::string snapshot, value;
  };
  const Case cases[] = {
      {cep::nfa_state_snapshot(2, true), cep::nfa_state({running}, {running}, true)},
      {cep::lockable_snapshot(cep::node_snapshot_v2()),
       cep::lockable(1, cep::node_v2({{2, cep::edge(kNode, {1, 2, 3})}}))},
      {cep::node_id_snapshot(), cep::node_id(kNode)},
  };
  constexpr uint64_t kBase = 0x4000;
  for (const auto& c : cases) {
    auto d = decodable_decoder(c.snapshot);
    for (size_t cut = 0; cut < c.value.size(); ++cut) {
      INFO("cut at " << cut << " of " << c.value.size());
      ByteReader r(std::string_view(c.value).substr(0, cut), kBase);
      json v;
      d->read(r, v);
      REQUIRE_FALSE(r.ok());
      REQUIRE(r.error()->offset.has_value());
      CHECK(*r.error()->offset >= kBase);
      CHECK(*r.error()->offset <= kBase + cut);
      ByteReader framed(std::string_view(c.value).substr(0, cut), kBase);
      CHECK_FALSE(decode_framed(*d, framed, cut).ok());
    }
  }
}

TEST_CASE("a count of computation states beyond the bytes left is refused before anything is sized by it",
          "[unit][corrupt][state]") {
  // Proves ByteReader::count guards the NFA state's and the node's counts (no huge reserve).
  auto nfa = decodable_decoder(cep::nfa_state_snapshot(2, true));
  std::string huge("\x7f\xff\xff\xff", 4);
  ByteReader r(huge, 0x10);
  json v;
  nfa->read(r, v);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error()->offset == 0x10u);
  CHECK(r.error()->message.find("computation state count") != std::string::npos);

  auto node = decodable_decoder(cep::node_snapshot_v2());
  const std::string negative("\xff\xff\xff\xfe", 4);
  ByteReader n(negative, 0x20);
  node->read(n, v);
  REQUIRE_FALSE(n.ok());
  CHECK(n.error()->message.find("negative shared buffer edge count") != std::string::npos);
}

TEST_CASE("a CEP snapshot with the wrong number of nested serializers is corruption at the snapshot",
          "[unit][corrupt][state]") {
  // Proves make_decoder checks the composite snapshots against the serializer's fields.
  auto s = parse_versioned(composite_snapshot("org.apache.flink.cep.nfa.NFAStateSerializerSnapshot", 1, "",
                                              {cep::dewey_snapshot(), cep::node_id_snapshot()}));
  auto d = make_decoder(s);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().code == ErrorCode::kCorruption);
  CHECK(d.error().message.find("2 nested serializers, expected 3") != std::string::npos);
}

TEST_CASE("the CEP values of Flink's serializer upgrade tests decode to what their test wrote",
          "[unit][corpus][state]") {
  // Proves the decoders against bytes Flink 1.20's own CEP serializers wrote (the upgrade
  // tests' test-data: DeweyNumber(42), EventId(42, 42), NodeId(EventId(42, 42), "ciao"), ...).
  CKPT_REQUIRE_SHARED();
  auto decode_dir = [](const std::string& name) {
    std::string dir = shared_dir() + "/testdata/flink-serializers/" + name;
    std::string snap = read_file(dir + "/serializer-snapshot");
    ByteReader r(snap);
    auto s = read_serializer_snapshot(r, SnapshotFraming::kProxy);
    REQUIRE(s.ok());
    auto d = make_decoder(*s);
    REQUIRE(d.ok());
    REQUIRE((*d)->decodable());
    return decode_and_skip(**d, read_file(dir + "/test-data"));
  };
  CHECK(decode_dir("dewey-number-serializer-1.20") == "42");
  CHECK(decode_dir("event-id-serializer-1.20") == json::parse(R"({"id":42,"timestamp":42})"));
  CHECK(decode_dir("node-id-serializer-1.20") ==
        json::parse(R"({"event_id":{"id":42,"timestamp":42},"page_name":"ciao"})"));
  CHECK(decode_dir("shared-buffer-edge-serializer-1.20") ==
        json::parse(R"({"target":{"event_id":{"id":42,"timestamp":42},"page_name":"page"},"dewey_number":"42"})"));
  CHECK(decode_dir("lockable-type-serializer-1.20") == json::parse(R"({"ref_count":10,"element":"flink"})"));
  CHECK(decode_dir("nfa-state-serializer-1.20") == json::parse(R"({"partial_matches":[],"completed_matches":[]})"));
}

namespace {

// A CepOperator's keyed state as its StateMetaInfo records it: VoidNamespace and the state's
// whole serializer (a MapSerializer for map states).
StateMetaInfo cep_state(const std::string& name, const std::string& type, const std::string& value_snapshot) {
  StateMetaInfo m;
  m.name = name;
  m.backend_type = 0;
  m.options.emplace_back("KEYED_STATE_TYPE", type);
  m.serializers.emplace_back(
      "NAMESPACE_SERIALIZER",
      parse_versioned(
          simple_snapshot("org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot")));
  m.serializers.emplace_back("VALUE_SERIALIZER", parse_versioned(value_snapshot));
  return m;
}

std::string map_snapshot(const std::string& key, const std::string& value) {
  return composite_snapshot("org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot", 1, "", {key, value});
}

std::vector<StateEntry> rocks_entries(const StateMetaInfo& info, const ValueDecoder& key, const std::string& k,
                                      const std::string& v) {
  auto codec = KeyedStateCodec::make(info, key, 128);
  REQUIRE(codec.ok());
  std::vector<StateEntry> out;
  Status s = (*codec)->read_rocks_entry(k, 0x100, v, 0x200, [&](StateEntry&& e) {
    out.push_back(std::move(e));
    return Status::OK();
  });
  if (!s.ok()) FAIL(s.error().to_string());
  return out;
}

}  // namespace

TEST_CASE("a CepOperator's keyed states decode whole in the RocksDB and heap layouts", "[unit][state]") {
  // Proves the decoders inside the states CepOperator and SharedBuffer register (formats/serializers.md §14):
  // nfaStateName (VALUE of NFAState), sharedBuffer-entries (MAP NodeId -> Lockable<SharedBufferNode>),
  // sharedBuffer-events (MAP EventId -> Lockable<event>), sharedBuffer-events-count (MAP Long -> Integer),
  // with RocksDB keys (key group, key, namespace, user key) and values (null flag + value for maps).
  auto key = decodable_decoder(simple_snapshot(kStringSnapshot));
  const std::string user = "\x07user-7";  // StringValue of the key "user-7"
  auto rocks_key = [&](std::string_view user_key) {
    return std::string("\x2a", 1) + user + std::string("\0", 1) + std::string(user_key);
  };

  cep::ComputationState running{"middle", kNode, {1, 0}, 1700000000000, 1700000000500, cep::EventId{3, 1700000000000}};
  auto nfa = rocks_entries(cep_state("nfaStateName", "VALUE", cep::nfa_state_snapshot(2, true)), *key, rocks_key(""),
                           cep::nfa_state({running}, {}, true));
  REQUIRE(nfa.size() == 1);
  CHECK(nfa[0].key_group == 42);
  CHECK(nfa[0].key == "user-7");
  CHECK(nfa[0].value["partial_matches"][0]["previous_timestamp"] == 1700000000500);

  auto entries_info = cep_state("sharedBuffer-entries", "MAP",
                                map_snapshot(cep::node_id_snapshot(), cep::lockable_snapshot(cep::node_snapshot_v2())));
  auto entries =
      rocks_entries(entries_info, *key, rocks_key(cep::node_id(kNode)),
                    std::string("\0", 1) + cep::lockable(1, cep::node_v2({{1, cep::edge(std::nullopt, {1})}})));
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].user_key == json::parse(R"({"event_id":{"id":3,"timestamp":1700000000000},"page_name":"start"})"));
  CHECK(entries[0].value ==
        json::parse(
            R"({"ref_count":1,"element":{"edges":[{"ref_count":1,"element":{"target":null,"dewey_number":"1"}}]}})"));

  auto events_info =
      cep_state("sharedBuffer-events", "MAP",
                map_snapshot(cep::event_id_snapshot(), cep::lockable_snapshot(simple_snapshot(kStringSnapshot))));
  auto events = rocks_entries(events_info, *key, rocks_key(cep::event_id({3, 1700000000000})),
                              std::string("\0", 1) + cep::lockable(2,
                                                                   "\x06"
                                                                   "click"));
  REQUIRE(events.size() == 1);
  CHECK(events[0].user_key == json::parse(R"({"id":3,"timestamp":1700000000000})"));
  CHECK(events[0].value == json::parse(R"({"ref_count":2,"element":"click"})"));

  // The heap layout of the same map state: namespace, key, then the whole map
  // (MapSerializer: i32 n, then key, null flag, value per entry).
  auto codec = KeyedStateCodec::make(events_info, *key, 128);
  REQUIRE(codec.ok());
  REQUIRE((*codec)->heap_walkable());
  ByteWriter heap;
  heap.u8(0);  // VoidNamespace
  heap.bytes(user);
  heap.i32(2);
  for (int32_t id : {3, 4}) {
    heap.bytes(cep::event_id({id, 1700000000000}));
    heap.u8(0);
    heap.bytes(cep::lockable(id - 2, "\x03id"));
  }
  ByteReader r(heap.buffer(), 0x400);
  std::vector<StateEntry> seen;
  REQUIRE((*codec)
              ->read_heap_entry(r, 42,
                                [&](StateEntry&& e) {
                                  seen.push_back(std::move(e));
                                  return Status::OK();
                                })
              .ok());
  CHECK(r.at_end());
  REQUIRE(seen.size() == 2);
  CHECK(seen[1].user_key == json::parse(R"({"id":4,"timestamp":1700000000000})"));
  CHECK(seen[1].value == json::parse(R"({"ref_count":2,"element":"id"})"));

  auto count = rocks_entries(
      cep_state(
          "sharedBuffer-events-count", "MAP",
          map_snapshot(simple_snapshot(kLongSnapshot), simple_snapshot("org.apache.flink.api.common.typeutils."
                                                                       "base.IntSerializer$IntSerializerSnapshot"))),
      *key, rocks_key(std::string("\0\0\x01\x8b\xcf\xe5\x68\x00", 8)), std::string("\0\0\0\0\x05", 5));
  REQUIRE(count.size() == 1);
  CHECK(count[0].value == 5);
}
