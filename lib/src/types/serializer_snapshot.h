// types/serializer_snapshot.h - Flink's TypeSerializerSnapshot trees, parsed without a JVM.
//
// A serializer snapshot is the only type information Flink stores beside state bytes: a class
// name, a version and a class-defined body with no length prefix (formats/keyed-state.md §2).
// The parser therefore has to know every body layout it walks through; what it does not know it
// keeps as raw bytes after resynchronising on the next plausible item
// (formats/keyed-state.md §2.7), and says so. Every parsed snapshot keeps its exact bytes, so
// writers copy them back verbatim and a read-then-write round trip is the identity.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"

namespace ckpt {

// How a snapshot's body was understood.
enum class SnapshotForm : uint8_t {
  kSimple,        // SimpleTypeSerializerSnapshot: empty body (v3) or one utf class name (v2, Flink <= 1.7)
  kComposite,     // CompositeTypeSerializerSnapshot (formats/keyed-state.md §2.4): outer version, data, nested
  kPojo,          // PojoSerializerSnapshot: class, fields, registered / non-registered subclasses
  kKryo,          // KryoSerializerSnapshot: type class + three LinkedOptionalMaps (kept raw)
  kEnum,          // EnumSerializerSnapshot: class + constant names
  kRowData,       // RowDataSerializerSnapshot: Java-serialized LogicalTypes + nested field snapshots
  kClassOnly,     // body is one utf class name (Value, CopyableValue, Writable, JavaSerializer...)
  kOpaqueKnown,   // a known, self-delimiting layout whose content is not modelled (e.g. Avro schema)
  kLegacyConfig,  // TypeSerializerConfigSnapshot (version 0x7A53C4F0, formats/keyed-state.md §2.6)
  kUnknown,       // unknown class, body found by resynchronising (formats/keyed-state.md §2.7): `resynced`
  kParameters,    // a fixed number of i32 parameters (DecimalData, TimestampData, BinaryRowData)
  kJavaTypes,     // Java-serialized LogicalTypes and serializers (ArrayData, MapData)
};
const char* snapshot_form_name(SnapshotForm f);  // "simple", "composite", ...

// The version value that marks a legacy TypeSerializerConfigSnapshot (formats/keyed-state.md §2.6).
inline constexpr int32_t kLegacyConfigSnapshotVersion = 0x7A53C4F0;

// A SQL logical type from RowDataSerializerSnapshot, as far as decoding values needs it.
struct LogicalType {
  std::string root;          // LogicalTypeRoot name: "INTEGER", "VARCHAR", "DECIMAL", "ROW", ...
  bool nullable = true;
  int32_t length = -1;       // CHAR / VARCHAR / BINARY / VARBINARY
  int32_t precision = -1;    // DECIMAL, TIMESTAMP*, TIME
  int32_t scale = -1;        // DECIMAL
  std::string timestamp_kind;  // TIMESTAMP and TIMESTAMP_LTZ: REGULAR, or ROWTIME / PROCTIME (time attributes)
  std::vector<LogicalType> children;       // ARRAY / MULTISET element, MAP key + value, ROW and
                                           // STRUCTURED_TYPE fields, DISTINCT_TYPE source type
  std::vector<std::string> field_names;    // ROW fields, STRUCTURED_TYPE attributes
  std::string class_name;    // STRUCTURED_TYPE: implementation class or catalog name; RAW: value class
  std::string serializer;    // RAW: the class of its Java-serialized TypeSerializer
  std::string java_class;    // the serialized class, e.g. org.apache.flink.table.types.logical.IntType
};

// One parsed versioned snapshot (formats/keyed-state.md §2.2): class name, version and body.
struct SerializerSnapshot {
  std::string snapshot_class;    // as stored, e.g. "...LongSerializer$LongSerializerSnapshot"
  // The serializer it describes: for nested-class snapshots the outer class
  // ("...base.LongSerializer"); for the legacy v2 simple form the stored class name; otherwise
  // the snapshot class with a trailing "Snapshot" removed. Informational only.
  std::string serializer_class;
  int32_t version = 0;
  SnapshotForm form = SnapshotForm::kUnknown;

  // kComposite: outer version (= version for composite snapshot versions 1-2, which store none),
  // whether the 911108 magic was present, and the outer snapshot data as raw bytes.
  int32_t outer_version = 0;
  bool has_outer_magic = false;
  std::string outer_data;
  // kComposite, kPojo, kRowData: nested snapshots in the serializer's natural order (Tuple,
  // Row and RowData fields; List element; Map key, value; Timer key, namespace; TTL Long, user
  // value; Either left, right; POJO fields in snapshot order, a removed field's slot holding a
  // snapshot whose form is kUnknown and snapshot_class empty).
  std::vector<SerializerSnapshot> nested;
  // kPojo: one name per nested field ("" if the field no longer exists); kRowData: empty.
  std::vector<std::string> field_names;

  // Class-specific outer data, decoded: Tuple / case class / POJO / Kryo / Enum / generic array
  // component / Value / Writable / Avro runtime class. Empty when not stored.
  std::string type_class;
  std::vector<std::string> enum_constants;           // kEnum, in ordinal order
  // kKryo: the classes the job gave a default Kryo serializer of its own (its default
  // serializers and default serializer classes, ExecutionConfig.addDefaultKryoSerializer).
  std::vector<std::string> kryo_default_serializers;
  std::vector<std::string> pojo_registered_subclasses;  // kPojo, tag order
  std::vector<SerializerSnapshot> pojo_registered_snapshots;      // kPojo, same order
  std::vector<std::string> pojo_nonregistered_subclasses;         // kPojo
  std::vector<SerializerSnapshot> pojo_nonregistered_snapshots;   // kPojo, same order
  int32_t null_padding = 0;                          // NullableSerializer
  bool row_kind = false;                             // RowSerializer: RowKind bits in the mask
  bool has_null_mask = false;                        // table LinkedListSerializer (outer v3+)
  bool nullable_pending_txn = false;                 // TwoPhaseCommitSinkFunction state (outer v3+)
  bool nfa_previous_timestamp = false;               // NFAStateSerializer (outer v2+): states carry it
  // kRowData: one per field; kJavaTypes: the ArrayData element or MapData key and value type;
  // ExternalSerializer (kComposite): the logical type of its DataType.
  std::vector<LogicalType> logical_types;
  bool logical_types_decoded = false;                // false if the Java stream was not understood
  std::vector<int32_t> parameters;                   // kParameters, in stored order
  std::string avro_schema;                           // Avro snapshots
  uint64_t avro_schema_offset = 0;                   // Avro: absolute offset of the schema string

  // kLegacyConfig: the Java-serialized serializer (the bytes of the TypeSerializerSerializationProxy
  // payload) and the config snapshot's own version.
  std::string legacy_java_serializer;
  int32_t legacy_config_version = 0;

  // The body could not be parsed strictly; its extent was guessed by scanning (formats/keyed-state.md §2.7).
  bool resynced = false;

  // The exact bytes of this snapshot from the first byte of the class name to the end of the
  // body (no proxy version), and the absolute offset of that first byte.
  std::string raw;
  uint64_t offset = 0;
  // The body alone (everything after the version field), a suffix of `raw`.
  std::string_view body() const;

  // Short name for display: the serializer class without package ("LongSerializer",
  // "PojoSerializer<com.example.Event>", "TupleSerializer<Tuple2>").
  std::string display_name() const;
};

// Where a snapshot sits: the top-level "proxy" form starts with i32 proxy version 2 (formats/keyed-state.md §2.1); the
// nested form is the bare versioned snapshot (formats/keyed-state.md §2.2).
enum class SnapshotFraming : uint8_t { kProxy, kVersioned };

struct SnapshotReadOptions {
  // Allow resynchronising past unknown snapshot classes (formats/keyed-state.md §2.7) instead of failing with
  // kNotSupported. The scan looks for, in order of position: a role key ("..._SERIALIZER")
  // followed by proxy version 2, a class name ending in "Snapshot" followed by a plausible
  // version, the start of the next state meta info record, or the end of the data.
  bool resync_unknown = true;
  // Nesting depth limit (a corrupt or hostile input cannot recurse without bound).
  int max_depth = 64;
};

// Read one snapshot at r's position; on success r is positioned after it. Errors carry the
// absolute offset (kCorruption for bytes that contradict a known layout, kNotSupported for an
// unknown class when resync_unknown is false or finds nothing, a proxy version other than 2).
Result<SerializerSnapshot> read_serializer_snapshot(ByteReader& r, SnapshotFraming framing,
                                                    const SnapshotReadOptions& options = {});

// Append the snapshot's bytes (the proxy version 2 first for kProxy). Copies `raw`, so the
// result is byte-identical to what was read.
void write_serializer_snapshot(ByteWriter& w, const SerializerSnapshot& s, SnapshotFraming framing);

}  // namespace ckpt
