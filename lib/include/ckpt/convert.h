// ckpt/convert.h - rewrite a snapshot's keyed state for another state backend, offline.
//
// Flink switches a job between HashMapStateBackend and RocksDB only through a canonical
// savepoint taken by the running job. convert_snapshot() does it from the files: every keyed
// handle is rewritten in the target layout, values copied as the job's serializers wrote them
// (never decoded and re-encoded: Kryo, Avro and POJO values convert too); only keys,
// namespaces and framing change. The output is a self-contained directory (every file copied in,
// every handle relative, type 6), written under a temporary name and renamed into place; the
// input is never touched.
//
// What each target writes, as Flink itself does for that kind of snapshot:
//   rocksdb    a native savepoint: per subtask one RocksDB instance (column family per state,
//              Flink's merge operator, Flink's key layout) built with RocksDB's API, listed in
//              an incremental RocksDB handle (type 11, or 5 for pre-1.15 files) whose private
//              files are every SST, MANIFEST, CURRENT and OPTIONS under their RocksDB names and
//              whose meta data stream is the keyed proxy. The instance of subtask n of operator
//              X is the directory rocksdb-X-n/, which `ldb --db=` opens as is.
//   heap       a native savepoint in HashMapStateBackend's checkpoint layout: key-groups handles
//              (type 12, or 3 for pre-1.15 files) over heap streams.
//   canonical  a canonical savepoint: savepoint key-groups handles (type 7) over the unified
//              stream both backends restore.
// Native savepoints because only savepoints are self-contained with relative handles; Flink
// restores a native savepoint only into the backend that wrote its layout, which is the point.
// V1-V3 files (Flink < 1.16) carry no properties; their kind is told by the handles alone.
// Operator state, raw keyed state, channel state and coordinator state are carried over byte
// for byte. Subtasks are converted in parallel (`jobs`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/plan.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"

namespace ckpt {

enum class ConvertTarget { kRocksDb, kHeap, kCanonical };
CKPT_API const char* convert_target_name(ConvertTarget t);  // "rocksdb", "heap", "canonical"
CKPT_API Result<ConvertTarget> parse_convert_target(std::string_view name);

struct CKPT_API ConvertOptions {
  ConvertTarget to = ConvertTarget::kCanonical;
  std::string output;  // must not exist, or be an empty directory (unless `force`)
  bool force = false;  // replace an existing output (never one that is or holds the input)
  int jobs = 1;        // subtasks converted at once
  std::vector<PrefixRule> remap;  // as ckpt-inspect's --remap, for the input's files
  // Another snapshot of the same job (its files found through `remap` too) whose keyed
  // proxies supply, per operator, the key serializer a changelog-backend handle may lack
  // (Flink's restore takes it from the job). Empty: such handles are refused.
  std::string key_serializers_from;
  // The input's bytes read (checked first, then converted: twice its state size) and the
  // entries written (ckpt/progress.h).
  Progress* progress = nullptr;
  // Only part K of N of the subtasks (ckpt/plan.h), written beside `output` as the directory
  // "<output>.part-K-of-N" (published atomically, as an output is); `finish` then assembles
  // them. Parts run anywhere that sees the same file system, in any order, at once.
  std::optional<ShardSpec> shard;
  // Assemble `output` from all its parts (every one present and complete, or nothing is
  // written), copy the coordinator state, write `_metadata` last and remove the parts: the
  // output of one run in one go, byte for byte (the file names are the same).
  bool finish = false;
};

struct CKPT_API ConvertSummary {
  uint64_t subtasks = 0;     // subtasks whose keyed state was converted
  uint64_t entries = 0;      // entries written as dump counts them: keyed pairs, operator-state elements
  uint64_t files = 0;        // files written, _metadata included
  uint64_t bytes = 0;        // bytes written
  // The most key and value bytes handed to one subtask's writer at once: one key group's pairs
  // (all its states). What convert and edit hold grows with a key group, never with the state
  // (subtasks written at once each hold their own; a --finish of parts leaves it 0).
  uint64_t peak_buffered_bytes = 0;
  std::string kind;          // snapshot kind of the output ("savepoint-native", ...)
  std::string output;        // the directory published: the output, or a part's ("<output>.part-K-of-N")
};

// Errors name the operator, subtask and file that could not be converted; nothing is left
// behind at `options.output` then.
CKPT_API Result<ConvertSummary> convert_snapshot(const std::string& snapshot, const ConvertOptions& options);

}  // namespace ckpt
