// state/legacy_backend_meta.h - the backend proxies Flink 1.2 to 1.6 wrote (formats/keyed-state.md §4.1, §14.1).
//
// Before Flink 1.7 the proxies stored serializers themselves, Java-serialized, beside (from
// 1.3) their TypeSerializerConfigSnapshots, in layouts that changed with nearly every release:
// keyed proxy versions 1-5, operator proxy versions 1-4. These readers turn them into the same
// model as the current versions (names, kinds by Flink's own mapping of the old fields, one
// SerializerSnapshot per role in the legacy-config form), and keep the proxy's bytes so that a
// writer gives them back unchanged.
#pragma once

#include "state/backend_meta.h"

namespace ckpt {

// r is positioned after the proxy's version (`version`, read at absolute offset `at`).
Result<KeyedBackendMeta> read_legacy_keyed_backend_meta(ByteReader& r, int32_t version, uint64_t at);
Result<OperatorBackendMeta> read_legacy_operator_backend_meta(ByteReader& r, int32_t version, uint64_t at);

// TypeSerializerSerializationUtil.readSerializersAndConfigsWithResilience (Flink 1.3-1.6, also
// timer snapshots version 1): i32 n, n x (i32 serializer offset, i32 config offset), i32 total,
// then the block the offsets point into. `expected` pairs, or any number if 0; `what` names
// them in errors.
Result<std::vector<SerializerSnapshot>> read_serializers_and_configs(ByteReader& r, size_t expected, const char* what);

// A Java-serialized TypeSerializer (what TypeSerializerSerializationProxy wraps) as a snapshot
// in the legacy-config form: its class from the stream when the stream can be read.
SerializerSnapshot legacy_serializer_snapshot(std::string_view java_bytes, uint64_t offset);

}  // namespace ckpt
