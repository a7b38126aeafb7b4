// ops/query/state_columns.h - the columns of one state's table in `ckpt query`: its key, user
// key and value split into typed, named columns where the serializer names their fields.
//
// The split follows the serializer snapshot alone (never the values seen): a POJO's fields by
// name, a Tuple's f0.., a Row's and a SQL RowData's fields by position (named from the plan's key
// columns where given), an Avro record's fields, a STRUCTURED_TYPE's attributes, a TTL value's
// timestamp beside its user value. Anything else, and every serializer whose values need the
// job's classes, is one column holding the whole field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/entries.h"
#include "ckpt/query.h"
#include "state/backend_meta.h"
#include "types/serializer_snapshot.h"

namespace ckpt::query_detail {

// Which part of an entry a column comes from.
enum class EntryField : uint8_t { kKey, kNamespace, kUserKey, kValue, kListIndex };

// One step into a decoded value: an object's member, or (member empty) an array's element.
struct PathStep {
  std::string member;
  size_t index = 0;
};

struct StateColumn {
  std::string name;
  EntryField field = EntryField::kValue;
  std::vector<PathStep> path;  // into the field's value; empty: the whole field
  std::string type;            // declared SQL type: INTEGER, REAL, TEXT or JSON
};

// How a state's entries become rows: the columns between `key_group` and `entry_bytes`.
struct StateLayout {
  StateKind kind = StateKind::kUnknown;
  bool keyed = false;  // rows have a key group
  bool list = false;   // a keyed LIST state: one row per element, the value columns per element
  std::vector<StateColumn> columns;
};

// The layout of state `info`. `keyed_key` is the keyed backend's key serializer (null for
// operator and broadcast state); `key_names` the plan's names of a SQL key row's fields (may
// be null). Column names are unique and none is snapshot, subtask, key_group or entry_bytes.
StateLayout state_layout(const StateMetaInfo& info, const SerializerSnapshot* keyed_key,
                         const std::vector<std::string>* key_names);

// The value at `path` inside `v`, or nullptr where there is none.
const Value* value_at(const Value& v, const std::vector<PathStep>& path);

// A value as a cell: null NULL, booleans and integers INTEGER, doubles REAL, strings TEXT,
// arrays and objects their JSON text.
QueryCell value_cell(const Value* v);

}  // namespace ckpt::query_detail
