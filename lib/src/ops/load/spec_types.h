// ops/load/spec_types.h - the serializer snapshots Flink writes for the types a load spec names.
//
// A bootstrap from a spec (formats/load-spec.md) has no snapshot to take serializers from: each
// state names its type as text (`BIGINT`, `LIST<STRING>`, `TUPLE<BIGINT, STRING>`,
// `POJO com.acme.Order {id: BIGINT}`, `ROW<id BIGINT, name STRING>`), and this writes the
// snapshot bytes Flink's own serializer for that type writes, so that Flink restores the result
// and ckpt reads it as it reads Flink's.
#pragma once

#include <string_view>

#include "ckpt/error.h"
#include "types/serializer_snapshot.h"

namespace ckpt {

// The versioned snapshot (formats/keyed-state.md §2.2) of the serializer Flink uses for `type`.
// Errors (kInvalidArgument) name the offset in `type` and what was expected there.
Result<SerializerSnapshot> spec_type_snapshot(std::string_view type);

}  // namespace ckpt
