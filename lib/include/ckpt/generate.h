// ckpt/generate.h - realistic synthetic snapshots for tests, benchmarks and load tests.
//
// generate_snapshot() writes what a keyed streaming job with String keys would leave behind:
// `operators` keyed operators of `parallelism` subtasks over `max_parallelism` key groups, each
// with the chosen states (value: byte[]; list: 1-3 byte[] elements; map: String user keys to
// byte[]), all in VoidNamespace, `keys` keys per operator distributed to key groups by Flink's
// own hash. Everything is a function of `seed`: the same options give the same state, the same
// files and, but for the session ids RocksDB stamps into its own files, the same bytes.
//
// Without a chain the output is one self-contained snapshot (relative handles), in the layout
// of `backend`: a native RocksDB savepoint, a native heap savepoint, or a canonical savepoint
// (the same writers as `ckpt convert`, so readers see exactly what a conversion produces).
//
// With `chain` N (RocksDB only) the output is a job's checkpoint directory as Flink lays it out:
// chk-1 .. chk-N each with its _metadata and private files (MANIFEST, CURRENT, OPTIONS),
// shared/ with the SST files, taskowned/ (empty). Each subtask is one live RocksDB instance whose
// key groups are split into buckets, one SST per state and bucket; checkpoint c > 1 rewrites a
// `churn` fraction of the buckets (values change, about a tenth of the keys come and go), the
// rewritten bucket's new SST replaces the old one as a compaction would, and every other SST is
// referenced again from chk-c under the same shared/ file, as Flink's incremental checkpoints
// do. Handles are absolute `file:` URIs (type 2) of the final location, as Flink writes them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/progress.h"
namespace ckpt {

enum class GenerateBackend { kRocksDb, kHeap, kCanonical };
CKPT_API Result<GenerateBackend> parse_generate_backend(const std::string& name);  // "rocksdb", "heap", "canonical"

struct CKPT_API GenerateOptions {
  std::string output;  // must not exist, or be an empty directory (unless `force`)
  bool force = false;  // replace an existing output
  GenerateBackend backend = GenerateBackend::kRocksDb;
  int32_t operators = 1;
  int32_t parallelism = 2;
  int32_t max_parallelism = 128;
  uint64_t keys = 1000;    // per operator
  uint32_t value_size = 100;  // bytes per byte[] value
  std::vector<std::string> states = {"value"};  // any of "value", "list", "map"
  uint64_t seed = 1;
  int32_t chain = 0;       // 0: one snapshot; N: chk-1..chk-N (RocksDB)
  double churn = 0.2;      // fraction of buckets rewritten per checkpoint of a chain
  int jobs = 1;            // subtasks written at once
  // Planted skew: each of these key groups gets `hot_factor` times the keys of an average key
  // group (keys/max_parallelism, at least 1), extra keys "user-<n>" with n >= keys whose hash
  // falls there, so a skew report can be checked against a known answer.
  std::vector<int32_t> hot_key_groups{};
  uint32_t hot_factor = 10;
  // TTL states: with a span (ms) > 0 every value (list element, map value) is Flink's TtlValue,
  // its last access spread evenly over [ttl_newest - ttl_span, ttl_newest] (ms since the epoch),
  // as a state with StateTtlConfig writes it; the TTL itself is not in a snapshot.
  int64_t ttl_span = 0;
  int64_t ttl_newest = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
  // RocksDB (single snapshot): a state's SST file is closed at this size, as
  // state.backend.rocksdb.compaction.level.target-file-size-base bounds Flink's (default 64 MiB);
  // small files give tests SSTs that cover few key groups.
  uint64_t sst_bytes = uint64_t{64} << 20;
  // Chain: each rewrite of a bucket writes it as twice the SST files of the last (one per key
  // group at most), so the SST count grows from checkpoint to checkpoint as when compaction
  // falls behind.
  bool fragment_ssts = false;
  // Entries written, and key groups written of all operators' (parts, ckpt/progress.h).
  Progress* progress = nullptr;
};

struct CKPT_API GenerateSummary {
  uint64_t snapshots = 0;
  uint64_t entries = 0;  // RocksDB-layout pairs written (single snapshot; 0 for a chain)
  uint64_t files = 0;    // files written
  uint64_t bytes = 0;    // bytes written
};

CKPT_API Result<GenerateSummary> generate_snapshot(const GenerateOptions& options);

// One entry the generator changed between two consecutive checkpoints of a chain.
struct CKPT_API GeneratedChange {
  std::string what;         // "added", "removed", "changed"
  std::string operator_id;  // 32 hex digits
  std::string state;        // "value-state", "list-state", "map-state"
  int32_t key_group = 0;
  std::string key;       // "user-0000000042"
  std::string user_key;  // map state: "field-1"; else empty
};

struct CKPT_API GeneratedChainDelta {
  std::vector<GeneratedChange> changes;  // grouped by operator and key group
  uint64_t added = 0, removed = 0, changed = 0;
};

// What chk-`checkpoint` + 1 of the chain `options` describes changed over chk-`checkpoint`,
// computed from the generator's model and schedule alone (no file is read or written): the
// truth a diff of the two checkpoints must report. Errors: not a chain, or `checkpoint` not
// in 1 .. chain - 1.
CKPT_API Result<GeneratedChainDelta> generated_chain_delta(const GenerateOptions& options, int32_t checkpoint);

}  // namespace ckpt
