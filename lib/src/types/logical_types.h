// types/logical_types.h - SQL LogicalTypes from their Java-serialized form.
#pragma once

#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "types/serializer_snapshot.h"
#include "support/byte_reader.h"

namespace ckpt {

// `n` Java-serialized LogicalType objects back to back, as RowDataSerializerSnapshot writes
// them; `base` is the absolute offset of bytes[0]. Every byte must be used.
Result<std::vector<LogicalType>> read_logical_types(std::string_view bytes, uint64_t base, int32_t n);

// `types` Java-serialized LogicalTypes, then as many Java-serialized serializers (read and
// dropped: the binary layout follows from the types), each its own object stream, as
// ArrayDataSerializerSnapshot and MapDataSerializerSnapshot write them. r ends after the last.
Result<std::vector<LogicalType>> read_java_type_config(ByteReader& r, int types);

// One Java-serialized DataType (ExternalSerializerSnapshot's outer data): its LogicalType.
Result<LogicalType> read_data_type(ByteReader& r);

// A table runtime serializer Java-serialized whole, as the legacy TypeSerializerConfigSnapshot
// form stores it: the logical type of the values it writes (RowData, ArrayData, MapData,
// StringData, DecimalData and TimestampData serializers; kNotSupported for other classes).
Result<LogicalType> read_java_table_serializer(ByteReader& r);

// One Java object stream of any content (a SortedMap comparator), read and dropped.
Status skip_java_object(ByteReader& r);

}  // namespace ckpt
