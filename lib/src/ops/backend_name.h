// ops/backend_name.h - which state backend wrote a snapshot, as its handle kinds show it.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace ckpt {

// "rocksdb" when any keyed handle is a native RocksDB one, "heap" for heap key-group streams of
// a checkpoint or native savepoint, "" when the layout does not say (canonical savepoints, and
// snapshots whose `_metadata` does not say its kind).
// `operators` hold inspect's `kinds` (OperatorSummary, ReportOperator); `snapshot_kind` is
// snapshot_kind_name()'s.
template <class Operators>
std::string backend_of_kinds(const Operators& operators, std::string_view snapshot_kind) {
  bool rocks = false, heap = false;
  for (const auto& op : operators) {
    auto has = [&](std::string_view kind) {
      return std::find(op.kinds.begin(), op.kinds.end(), kind) != op.kinds.end();
    };
    if (has("keyed-rocksdb-incremental")) rocks = true;
    if (has("keyed-full")) heap = true;
  }
  if (rocks) return "rocksdb";
  // keyed-full is what the heap backend writes, and also RocksDB's full checkpoints: only a
  // native savepoint or checkpoint without any RocksDB handle is taken as heap. A `_metadata`
  // that does not say its kind (V1-V3 without a savepoint handle: "unknown") may be a
  // canonical savepoint of either backend, as Flink 1.3's RocksDB savepoints are.
  if (heap && (snapshot_kind == "checkpoint" || snapshot_kind == "savepoint-native")) return "heap";
  return "";
}

}  // namespace ckpt
