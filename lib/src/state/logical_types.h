// state/logical_types.h - SQL LogicalTypes from their Java-serialized form.
#pragma once

#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "state/serializer_snapshot.h"

namespace ckpt {

// `n` Java-serialized LogicalType objects back to back, as RowDataSerializerSnapshot writes
// them; `base` is the absolute offset of bytes[0]. Every byte must be used.
Result<std::vector<LogicalType>> read_logical_types(std::string_view bytes, uint64_t base, int32_t n);

}  // namespace ckpt
