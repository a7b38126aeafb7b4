// ckpt/advise.h - which state backend and checkpoint settings suit a job, from its snapshots.
//
// advise() applies the rules of ckpt-advise(1) to a report (ckpt/report.h): each rule that has
// the evidence it needs and finds something to change returns a recommendation with the
// measured numbers and the Flink configuration keys to set; a rule without its evidence (no
// --tm-memory, a single snapshot where a chain is needed) says nothing. Thresholds are in
// AdviseThresholds, documented with their sources in the man page.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/export.h"
#include "ckpt/report.h"

namespace ckpt {

struct CKPT_API AdviseThresholds {
  // state-backend: heap state per slot above this share of the task heap per slot -> RocksDB;
  // RocksDB state per slot below `heap_share` of it -> the heap backend would do.
  double rocksdb_share = 0.3;
  double heap_share = 0.02;
  // state-backend: a keyed value, list, reducing or aggregating state whose entries average
  // this many bytes or more is deserialized whole on every RocksDB access.
  int64_t large_value_bytes = int64_t{16} << 10;
  // incremental: full checkpoints (no file shared with the one before) of at least this size.
  int64_t incremental_min_bytes = int64_t{64} << 20;
  // changelog: incremental checkpoints whose uploads average this share of the full size.
  double changelog_churn = 0.5;
  // local-recovery: a subtask with at least this much state.
  int64_t local_recovery_bytes = int64_t{1} << 30;
  // max-parallelism: parallelism above this share of the max parallelism.
  double parallelism_share = 0.5;
  // sst-growth: over a chain of at least `sst_growth_checkpoints`, the last checkpoint references
  // this many times the SST files of the first, having grown at most checkpoints.
  double sst_growth = 1.5;
  size_t sst_growth_checkpoints = 3;
  // ttl: a TTL state whose expired values are at least this share of its TTL values.
  double ttl_expired_share = 0.1;
};

// A TaskManager's memory as Flink derives it from `taskmanager.memory.process.size` alone, with
// every other memory option at its default (Flink's TaskExecutorProcessUtils and
// TaskManagerOptions): JVM overhead 0.1 of the process size within [192m, 1g], JVM metaspace
// 256m; of the rest (total Flink memory) managed memory 0.4, network 0.1 within [64m, no max],
// framework heap and off-heap 128m each, task off-heap 0; task heap is what remains.
struct CKPT_API TaskManagerMemory {
  int64_t process = 0;
  int64_t jvm_overhead = 0, jvm_metaspace = 0;
  int64_t flink = 0;  // total Flink memory
  int64_t framework_heap = 0, framework_off_heap = 0, task_off_heap = 0;
  int64_t managed = 0, network = 0;
  int64_t task_heap = 0;  // <= 0: Flink refuses a process size this small
};
CKPT_API TaskManagerMemory task_manager_memory(int64_t process_size);

struct CKPT_API AdviseOptions {
  std::optional<int64_t> tm_memory;  // bytes of a TaskManager's memory (taskmanager.memory.process.size)
  int32_t slots = 1;                 // taskmanager.numberOfTaskSlots
  AdviseThresholds thresholds;
};

struct CKPT_API AdviceEvidence {
  std::string name;
  std::string value;  // as measured, human-readable ("1.2 GiB", "0.83"); a time in ISO 8601
  // The measured number in `unit` ("bytes", "count", "ratio", "ms", "ms_since_epoch" for a
  // time); nullopt with unit "" for evidence that is not a number (a backend, a list).
  std::optional<double> number;
  std::string unit;
};

struct CKPT_API AdviceSetting {
  std::string key;    // a Flink configuration key
  std::string value;  // the value to set
};

struct CKPT_API Advice {
  // "state-backend", "incremental", "changelog", "sst-growth", "local-recovery", "unaligned",
  // "max-parallelism", "ttl"
  std::string rule;
  std::string recommendation;
  std::string operator_id;  // where the rule is about one operator; else ""
  std::string operator_uid;  // its uid where known (the report's names, V5+ `_metadata`)
  std::vector<AdviceEvidence> evidence;
  std::vector<AdviceSetting> settings;
};

struct CKPT_API AdviseReport {
  std::vector<Advice> advice;
  // Rules that lacked their evidence, each with why ("state-backend: --tm-memory not given").
  std::vector<std::string> silent;
};

CKPT_API AdviseReport advise(const Report& report, const AdviseOptions& options);

// The `ckpt.advise/1` document (ckpt-advise(1)).
CKPT_API std::string advise_json(const Report& report, const AdviseReport& a);
// The text: one paragraph per recommendation.
CKPT_API std::string advise_text(const AdviseReport& a);

}  // namespace ckpt
