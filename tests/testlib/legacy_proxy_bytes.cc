// Flink 1.2-1.6 backend proxies written field by field as Flink's writers wrote them.
#include "testlib/legacy_proxy_bytes.h"

#include "format/java/java_object_stream.h"
#include "support/byte_writer.h"
#include "testlib/java_streams.h"

namespace ckpt::test::legacy {

// InstantiationUtil.serializeObject of a field-less singleton serializer: its class, then the
// serializable superclasses TypeSerializerSingleton and TypeSerializer, none with fields.
std::string java_serializer(const std::string& cls) {
  JavaStreamBuilder b;
  b.header().object().class_desc(cls, 1, java::kScSerializable, {});
  b.class_desc(std::string(kBase) + "TypeSerializerSingleton", 1, java::kScSerializable, {});
  b.class_desc("org.apache.flink.api.common.typeutils.TypeSerializer", 1, java::kScSerializable, {});
  b.null();
  return b.bytes();
}

// TypeSerializerSerializationProxy.write: i32 version 1, i32 length, the Java bytes.
std::string serializer_proxy(const std::string& cls) {
  std::string java = java_serializer(cls);
  ByteWriter w;
  w.i32(1);
  w.i32(static_cast<int32_t>(java.size()));
  w.bytes(java);
  return w.take();
}

// TypeSerializerConfigSnapshotSerializationProxy (Flink 1.3-1.6): i32 1, utf class, then the
// config's VersionedIOReadableWritable version and its payload.
std::string config_v1(const std::string& cls, int32_t version, std::string_view payload) {
  ByteWriter w;
  w.i32(1);
  w.utf(cls);
  w.i32(version);
  w.bytes(payload);
  return w.take();
}

std::string parameterless_config(const std::string& serializer) {
  ByteWriter payload;
  payload.utf(serializer);  // ParameterlessTypeSerializerConfig.write: its serialization format identifier
  return config_v1("org.apache.flink.api.common.typeutils.ParameterlessTypeSerializerConfig", 1, payload.buffer());
}

// writeSerializersAndConfigsWithResilience: i32 n, n x (serializer offset, config offset),
// i32 total, then the block.
std::string resilient(const std::vector<std::pair<std::string, std::string>>& serializer_and_config) {
  ByteWriter head, block;
  head.i32(static_cast<int32_t>(serializer_and_config.size()));
  for (const auto& [serializer, config] : serializer_and_config) {
    head.i32(static_cast<int32_t>(block.size()));
    block.bytes(serializer_proxy(serializer));
    head.i32(static_cast<int32_t>(block.size()));
    block.bytes(config);
  }
  head.i32(static_cast<int32_t>(block.size()));
  head.bytes(block.buffer());
  return head.take();
}

std::pair<std::string, std::string> pair_of(const std::string& serializer) {
  return {serializer, parameterless_config(serializer)};
}

// Keyed proxy versions 1 and 2 (Flink 1.2, 1.3): the key serializer's proxy, then per state
// the StateDescriptor.Type ordinal, the name and the namespace and state serializers' proxies.
std::string keyed_v1(int32_t version) {
  ByteWriter w;
  w.i32(version);
  w.bytes(serializer_proxy(kLong));
  w.i16(1);
  w.i32(1);  // VALUE
  w.utf("count");
  w.bytes(serializer_proxy(kVoid));
  w.bytes(serializer_proxy(kLong));
  return w.take();
}

// Versions 3 and 4 (Flink 1.4, 1.5): the serializers with their config snapshots, resiliently;
// version 4 adds the compression flag.
std::string keyed_v3(int32_t version) {
  ByteWriter w;
  w.i32(version);
  if (version >= 4) w.u8(1);
  w.bytes(resilient({pair_of(kString)}));
  w.i16(1);
  w.i32(6);  // MAP
  w.utf("by-name");
  // MapSerializerConfigSnapshot is a CompositeTypeSerializerConfigSnapshot: its payload is the
  // key and value serializers with their configs, in a resilient block of its own.
  std::string map_config = config_v1("org.apache.flink.api.common.typeutils.base.MapSerializerConfigSnapshot", 1,
                                     resilient({pair_of(kString), pair_of(kLong)}));
  w.bytes(resilient({pair_of(kVoid), {std::string(kBase) + "MapSerializer", map_config}}));
  return w.take();
}

std::string v5_record(const std::string& name, int32_t backend_type,
                      const std::vector<std::pair<std::string, std::string>>& options,
                      const std::vector<std::pair<std::string, std::string>>& role_and_serializer) {
  ByteWriter w;
  w.utf(name);
  w.i32(backend_type);
  w.i32(static_cast<int32_t>(options.size()));
  for (const auto& [k, v] : options) {
    w.utf(k);
    w.utf(v);
  }
  w.i32(static_cast<int32_t>(role_and_serializer.size()));
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& [role, serializer] : role_and_serializer) {
    w.utf(role);
    pairs.push_back(pair_of(serializer));
  }
  w.bytes(resilient(pairs));
  return w.take();
}

std::string keyed_v5() {
  ByteWriter w;
  w.i32(5);
  w.u8(0);
  w.bytes(resilient({pair_of(kLong)}));
  w.i16(2);
  w.bytes(v5_record("sum", 0, {{"KEYED_STATE_TYPE", "REDUCING"}},
                    {{"NAMESPACE_SERIALIZER", kVoid}, {"VALUE_SERIALIZER", kLong}}));
  w.bytes(v5_record("_timer_state/event_user-timers", 3, {}, {{"VALUE_SERIALIZER", kLong}}));
  return w.take();
}

// Operator proxy version 1 (Flink 1.2): name, mode byte and the serializer as one Java stream.
std::string operator_v1() {
  ByteWriter w;
  w.i32(1);
  w.i16(1);
  w.utf("_default_");
  w.u8(0);
  JavaStreamBuilder b;
  b.header().object().class_desc(kJava, 1, java::kScSerializable, {});
  b.class_desc("org.apache.flink.api.common.typeutils.TypeSerializer", 1, java::kScSerializable, {});
  b.null();
  w.bytes(b.bytes());
  return w.take();
}

// Versions 2 and 3 (Flink 1.3-1.5): a resilient block per state; version 3 adds broadcast states,
// with key and value serializers.
std::string operator_v2(int32_t version) {
  ByteWriter w;
  w.i32(version);
  w.i16(1);
  w.utf("offsets");
  w.u8(1);  // UNION
  w.bytes(resilient({pair_of(kLong)}));
  if (version >= 3) {
    w.i16(1);
    w.utf("rules");
    w.u8(2);  // BROADCAST
    w.bytes(resilient({pair_of(kString), pair_of(kLong)}));
  }
  return w.take();
}

std::string operator_v4() {
  ByteWriter w;
  w.i32(4);
  w.i16(1);
  w.bytes(v5_record("buffer", 1, {{"OPERATOR_STATE_DISTRIBUTION_MODE", "SPLIT_DISTRIBUTE"}},
                    {{"VALUE_SERIALIZER", kString}}));
  w.i16(0);
  return w.take();
}

}  // namespace ckpt::test::legacy
