// tests/testlib/legacy_proxy_bytes.h - the backend proxies of Flink 1.2-1.6 built as Flink's
// writers laid them out: KeyedBackendSerializationProxy versions 1-5, OperatorBackendSerializationProxy
// versions 1-4, with TypeSerializerSerializationProxy's Java-serialized serializers and the
// offset-indexed blocks of TypeSerializerSerializationUtil.writeSerializersAndConfigsWithResilience.
// For the unit tests and the fuzz seeds; no test framework.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ckpt::test::legacy {

inline constexpr std::string_view kBase = "org.apache.flink.api.common.typeutils.base.";
inline const std::string kLong = std::string(kBase) + "LongSerializer";
inline const std::string kString = std::string(kBase) + "StringSerializer";
inline const std::string kVoid = "org.apache.flink.runtime.state.VoidNamespaceSerializer";
inline const std::string kJava = "org.apache.flink.runtime.state.JavaSerializer";

// InstantiationUtil.serializeObject of a field-less singleton serializer: its class, then the
// serializable superclasses TypeSerializerSingleton and TypeSerializer, none with fields.
std::string java_serializer(const std::string& cls);
// TypeSerializerSerializationProxy.write: i32 version 1, i32 length, the Java bytes.
std::string serializer_proxy(const std::string& cls);
// TypeSerializerConfigSnapshotSerializationProxy (Flink 1.3-1.6): i32 1, utf class, then the
// config's VersionedIOReadableWritable version and its payload.
std::string config_v1(const std::string& cls, int32_t version, std::string_view payload = {});
// ParameterlessTypeSerializerConfig of a serializer: its class as the payload's utf.
std::string parameterless_config(const std::string& serializer);
// writeSerializersAndConfigsWithResilience: i32 n, n x (serializer offset, config offset),
// i32 total, then the block; each pair a serializer class and its config snapshot's bytes.
std::string resilient(const std::vector<std::pair<std::string, std::string>>& serializer_and_config);
std::pair<std::string, std::string> pair_of(const std::string& serializer);
// A meta info record of format 5 (Flink 1.6): today's with the roles before one resilient block.
std::string v5_record(const std::string& name, int32_t backend_type,
                      const std::vector<std::pair<std::string, std::string>>& options,
                      const std::vector<std::pair<std::string, std::string>>& role_and_serializer);

// Whole proxies. keyed_v1(1 or 2): Flink 1.2 / 1.3, one VALUE state "count". keyed_v3(3 or 4):
// Flink 1.4 / 1.5 (4 with compression on), one MAP state "by-name". keyed_v5(): Flink 1.6, a
// REDUCING state "sum" and a timer queue.
std::string keyed_v1(int32_t version);
std::string keyed_v3(int32_t version);
std::string keyed_v5();
// operator_v1(): Flink 1.2's `_default_` state of a JavaSerializer. operator_v2(2 or 3): a
// UNION state "offsets" (and, version 3, a broadcast state "rules"). operator_v4(): Flink 1.6.
std::string operator_v1();
std::string operator_v2(int32_t version);
std::string operator_v4();

}  // namespace ckpt::test::legacy
