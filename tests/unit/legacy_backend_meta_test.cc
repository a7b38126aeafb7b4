// The backend proxies of Flink 1.2-1.6 on hand-built bytes laid out as Flink's writers laid
// them out: KeyedBackendSerializationProxy versions 1-5, OperatorBackendSerializationProxy
// versions 1-4, with the Java-serialized serializers of TypeSerializerSerializationProxy and the
// offset-indexed blocks of TypeSerializerSerializationUtil.writeSerializersAndConfigsWithResilience.
#include <catch2/catch.hpp>

#include "format/java/java_object_stream.h"
#include "state/backend_meta.h"
#include "state/legacy_backend_meta.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/java_streams.h"
#include "testlib/legacy_proxy_bytes.h"
#include "types/value_decoder.h"

using namespace ckpt;
using namespace ckpt::test;
using namespace ckpt::test::legacy;

namespace {

KeyedBackendMeta read_keyed(const std::string& bytes) {
  ByteReader r(bytes);
  auto m = read_keyed_backend_meta(r);
  if (!m.ok()) FAIL(m.error().to_string());
  CHECK(r.at_end());
  auto out = write_keyed_backend_meta(*m);
  REQUIRE(out.ok());
  CHECK(*out == bytes);
  return std::move(m).value();
}

OperatorBackendMeta read_operator(const std::string& bytes) {
  ByteReader r(bytes);
  auto m = read_operator_backend_meta(r);
  if (!m.ok()) FAIL(m.error().to_string());
  CHECK(r.at_end());
  auto out = write_operator_backend_meta(*m);
  REQUIRE(out.ok());
  CHECK(*out == bytes);
  return std::move(m).value();
}

}  // namespace

TEST_CASE("keyed proxies of versions 1 and 2 name their states and keep the Java-serialized serializers",
          "[unit][state]") {
  // Proves KeyedBackendStateMetaInfoReaderV1V2 (Flink 1.2 and 1.3): the type ordinal becomes
  // KEYED_STATE_TYPE, and the serializers' classes are read from their Java streams.
  for (int32_t version : {1, 2}) {
    INFO("version " << version);
    KeyedBackendMeta m = read_keyed(keyed_v1(version));
    CHECK(m.version == version);
    CHECK_FALSE(m.compression);
    CHECK(m.key_serializer.form == SnapshotForm::kLegacyConfig);
    CHECK(m.key_serializer.serializer_class == kLong);
    REQUIRE(m.states.size() == 1);
    CHECK(m.states[0].name == "count");
    CHECK(m.states[0].kind() == StateKind::kValue);
    REQUIRE(m.states[0].namespace_serializer());
    CHECK(m.states[0].namespace_serializer()->serializer_class == kVoid);
    CHECK(m.states[0].value_serializer()->serializer_class == kLong);
    CHECK(m.states[0].value_serializer()->legacy_java_serializer == java_serializer(kLong));
    // A Java-serialized singleton is what its class says: its values decode.
    auto d = make_decoder(*m.states[0].value_serializer());
    REQUIRE(d.ok());
    REQUIRE((*d)->decodable());
    const std::string bytes("\0\0\0\0\0\0\1\x2c", 8);
    ByteReader v(bytes);
    auto value = decode_framed(**d, v, 8);
    REQUIRE(value.ok());
    CHECK(*value == 300);
  }
}

TEST_CASE("keyed proxies of versions 3 and 4 read serializers and config snapshots from their offset-indexed blocks",
          "[unit][state]") {
  // Proves KeyedBackendStateMetaInfoReaderV3V4 and readSerializersAndConfigsWithResilience
  // (Flink 1.4, 1.5); version 4's compression flag.
  for (int32_t version : {3, 4}) {
    INFO("version " << version);
    KeyedBackendMeta m = read_keyed(keyed_v3(version));
    CHECK(m.compression == (version == 4));
    CHECK(m.key_serializer.serializer_class == kString);
    CHECK(m.key_serializer.snapshot_class == "org.apache.flink.api.common.typeutils.ParameterlessTypeSerializerConfig");
    CHECK(m.key_serializer.legacy_config_version == 1);
    REQUIRE(m.states.size() == 1);
    CHECK(m.states[0].kind() == StateKind::kMap);
    CHECK(m.states[0].value_serializer()->snapshot_class ==
          "org.apache.flink.api.common.typeutils.base.MapSerializerConfigSnapshot");
  }
}

TEST_CASE("a keyed proxy of version 5 reads the Flink 1.6 record with its roles before its serializers",
          "[unit][state]") {
  // Proves StateMetaInfoSnapshotReadersWriters.V5ReaderImpl: options as today, roles listed,
  // then one resilient block in the roles' order; timers as PRIORITY_QUEUE states.
  KeyedBackendMeta m = read_keyed(keyed_v5());
  REQUIRE(m.states.size() == 2);
  CHECK(m.states[0].kind() == StateKind::kReducing);
  CHECK(m.states[0].namespace_serializer()->serializer_class == kVoid);
  CHECK(m.states[0].value_serializer()->serializer_class == kLong);
  CHECK(m.states[1].kind() == StateKind::kPriorityQueue);
  CHECK(m.states[1].name == "_timer_state/event_user-timers");
}

TEST_CASE("operator proxies of versions 1 to 4 give list - union and broadcast states", "[unit][state]") {
  // Proves OperatorBackendStateMetaInfoReaderV1 (a whole Java stream per serializer), V2V3 (one
  // serializer: a list state, two: broadcast), broadcast states from version 3 on, and version
  // 4's meta infos in the 1.6 layout.
  OperatorBackendMeta v1 = read_operator(operator_v1());
  REQUIRE(v1.list_states.size() == 1);
  CHECK(v1.list_states[0].name == "_default_");
  CHECK(v1.list_states[0].kind() == StateKind::kOperatorList);
  CHECK(v1.list_states[0].value_serializer()->serializer_class == kJava);
  // Flink 1.2's _default_ state is Java-serialized values: the JavaSerializer decodes them.
  auto d = make_decoder(*v1.list_states[0].value_serializer());
  REQUIRE(d.ok());
  CHECK((*d)->decodable());

  OperatorBackendMeta v2 = read_operator(operator_v2(2));
  REQUIRE(v2.list_states.size() == 1);
  CHECK(v2.list_states[0].kind() == StateKind::kOperatorUnion);
  CHECK(v2.broadcast_states.empty());

  OperatorBackendMeta v3 = read_operator(operator_v2(3));
  REQUIRE(v3.broadcast_states.size() == 1);
  CHECK(v3.broadcast_states[0].kind() == StateKind::kBroadcast);
  CHECK(v3.broadcast_states[0].key_serializer()->serializer_class == kString);
  CHECK(v3.broadcast_states[0].value_serializer()->serializer_class == kLong);
  CHECK(v3.find("rules") == &v3.broadcast_states[0]);

  OperatorBackendMeta v4 = read_operator(operator_v4());
  REQUIRE(v4.list_states.size() == 1);
  CHECK(v4.list_states[0].kind() == StateKind::kOperatorList);
  CHECK(v4.list_states[0].value_serializer()->serializer_class == kString);
}

TEST_CASE("a config snapshot that a Flink 1.7 writer put in a resilient block is read as a current snapshot",
          "[unit][state]") {
  // Proves readSerializerSnapshot's dispatch on the proxy version inside the block: 2 is the
  // current form (formats/keyed-state.md §2.1).
  ByteWriter config;
  config.i32(2);
  config.utf(std::string(kBase) + "LongSerializer$LongSerializerSnapshot");
  config.i32(3);
  ByteWriter w;
  w.i32(3);
  w.bytes(resilient({{kLong, config.buffer()}}));
  w.i16(0);
  KeyedBackendMeta m = read_keyed(w.buffer());
  CHECK(m.key_serializer.form == SnapshotForm::kSimple);
  CHECK(m.key_serializer.serializer_class == std::string(kBase) + "LongSerializer");
}

TEST_CASE("every cut of a legacy proxy is an error at an offset inside it", "[unit][corrupt][state]") {
  // Proves no legacy reader reads past its bytes or accepts a prefix (each has a last field).
  const std::string keyed[] = {keyed_v1(1), keyed_v3(4), keyed_v5()};
  for (const auto& bytes : keyed) {
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      INFO("keyed cut at " << cut << " of " << bytes.size());
      ByteReader r(std::string_view(bytes).substr(0, cut), 0x100);
      auto m = read_keyed_backend_meta(r);
      REQUIRE_FALSE(m.ok());
      REQUIRE(m.error().offset.has_value());
      CHECK(*m.error().offset >= 0x100u);
      CHECK(*m.error().offset <= 0x100u + cut);
    }
  }
  const std::string op[] = {operator_v1(), operator_v2(3), operator_v4()};
  for (const auto& bytes : op) {
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      INFO("operator cut at " << cut << " of " << bytes.size());
      ByteReader r(std::string_view(bytes).substr(0, cut), 0x100);
      auto m = read_operator_backend_meta(r);
      REQUIRE_FALSE(m.ok());
      REQUIRE(m.error().offset.has_value());
      CHECK(*m.error().offset <= 0x100u + cut);
    }
  }
}

TEST_CASE("broken legacy proxies are refused at the field that is wrong", "[unit][corrupt][state]") {
  // Proves the checks: a type ordinal past MAP, offsets out of order, a serializer proxy version
  // other than 1, a mode byte past BROADCAST, and that a legacy proxy is never written from scratch.
  std::string bad_type = keyed_v1(1);
  size_t type_at = 4 + serializer_proxy(kLong).size() + 2;
  bad_type[type_at + 3] = 7;
  ByteReader t(bad_type);
  auto m = read_keyed_backend_meta(t);
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code == ErrorCode::kCorruption);
  CHECK(m.error().offset == type_at);
  CHECK(m.error().message.find("unknown state descriptor type 7") != std::string::npos);

  std::string swapped = keyed_v3(3);
  swapped[4 + 4] = 0x7f;  // the key serializer's offset points past its config
  ByteReader s(swapped);
  auto o = read_keyed_backend_meta(s);
  REQUIRE_FALSE(o.ok());
  CHECK(o.error().code == ErrorCode::kCorruption);
  CHECK(o.error().offset == 8u);

  std::string proxy3 = keyed_v1(2);
  proxy3[4 + 3] = 3;
  ByteReader p(proxy3);
  auto v = read_keyed_backend_meta(p);
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().code == ErrorCode::kNotSupported);
  CHECK(v.error().offset == 4u);

  std::string mode = operator_v2(2);
  mode[4 + 2 + 2 + 7] = 3;
  ByteReader md(mode);
  auto mo = read_operator_backend_meta(md);
  REQUIRE_FALSE(mo.ok());
  CHECK(mo.error().message.find("unknown distribution mode 3") != std::string::npos);
  CHECK(mo.error().offset == 4u + 2 + 2 + 7);

  KeyedBackendMeta fresh;
  fresh.version = 3;
  auto w = write_keyed_backend_meta(fresh);
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().code == ErrorCode::kInvalidArgument);
}
