// ops/advise/advise.cc - the rules of ckpt-advise(1), each over numbers a report measured.
// Every rule either has its evidence and speaks, or names in `silent` what it lacked.
#include "ckpt/advise.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "ops/backend_name.h"

namespace ckpt {
namespace {

std::string backend_of(const Report& r) { return backend_of_kinds(r.operators, r.snapshot_kind); }

// A slot runs one subtask of every operator (default slot sharing): the largest subtask of
// each operator, summed.
int64_t state_per_slot(const Report& r) {
  int64_t total = 0;
  for (const ReportOperator& op : r.operators) {
    int64_t largest = 0;
    for (const ReportSubtask& s : op.subtasks) largest = std::max(largest, s.state_size);
    total += largest;
  }
  return total;
}

std::string ratio(double x) { return fmt::format("{:.2f}", x); }

// Evidence as a number with its unit, and the text people read.
AdviceEvidence bytes_evidence(std::string name, int64_t b) {
  return {std::move(name), human_size(b), static_cast<double>(b), "bytes"};
}
AdviceEvidence count_evidence(std::string name, uint64_t n) {
  return {std::move(name), std::to_string(n), static_cast<double>(n), "count"};
}
AdviceEvidence ratio_evidence(std::string name, double x) { return {std::move(name), ratio(x), x, "ratio"}; }
AdviceEvidence ms_evidence(std::string name, int64_t ms) {
  return {std::move(name), fmt::format("{} ms", ms), static_cast<double>(ms), "ms"};
}
AdviceEvidence text_evidence(std::string name, std::string text) {
  return {std::move(name), std::move(text), std::nullopt, ""};
}

// "2026-01-01T00:00:00.000Z": ms since the epoch in ISO 8601, UTC.
std::string iso8601(int64_t ms) {
  using namespace std::chrono;
  const sys_time<milliseconds> t{milliseconds{ms}};
  const sys_days day = floor<days>(t);
  const year_month_day ymd{day};
  const auto in_day = duration_cast<milliseconds>(t - day).count();
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}Z", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), in_day / 3'600'000,
                     in_day / 60'000 % 60, in_day / 1000 % 60, in_day % 1000);
}
AdviceEvidence time_evidence(std::string name, int64_t ms) {
  return {std::move(name), iso8601(ms), static_cast<double>(ms), "ms_since_epoch"};
}

// An operator as a rule names it: its uid where known, else its id.
std::string operator_text(const ReportOperator& op) {
  return op.uid.empty() ? "operator " + op.id : fmt::format("operator '{}' ({})", op.uid, op.id);
}

Advice about(const ReportOperator& op) {
  Advice a;
  a.operator_id = op.id;
  a.operator_uid = op.uid;
  return a;
}

// The counted keyed state whose entries RocksDB (de)serializes whole on each access (a value,
// a whole list, a reduced or aggregated value; a map's entries are read one by one) with the
// largest mean entry; nullptr when none was counted.
struct WholeValueState {
  const ReportOperator* op = nullptr;
  const ReportState* state = nullptr;
  int64_t mean = 0;
};
WholeValueState largest_whole_values(const Report& r) {
  WholeValueState out;
  if (!r.counted) return out;
  for (const ReportOperator& op : r.operators)
    for (const ReportState& s : op.states) {
      if (!s.keyed || s.entry_count == 0) continue;
      if (s.kind != "VALUE" && s.kind != "LIST" && s.kind != "REDUCING" && s.kind != "AGGREGATING") continue;
      const auto mean = static_cast<int64_t>(s.bytes / s.entry_count);
      if (!out.state || mean > out.mean) out = {&op, &s, mean};
    }
  return out;
}

void state_backend(const Report& r, const AdviseOptions& o, AdviseReport* out) {
  if (!o.tm_memory || *o.tm_memory <= 0) {
    out->silent.push_back("state-backend: --tm-memory not given");
    return;
  }
  const std::string backend = backend_of(r);
  if (backend.empty()) {
    out->silent.push_back("state-backend: the snapshot's layout does not show the backend");
    return;
  }
  // Heap state lives on the task heap, RocksDB's in managed memory (its block cache and write
  // buffers) and on disk: each is a share of what Flink derives from the process size.
  const TaskManagerMemory mem = task_manager_memory(*o.tm_memory);
  if (mem.task_heap <= 0) {
    out->silent.push_back(fmt::format(
        "state-backend: --tm-memory {} leaves no task heap in Flink's memory model (JVM overhead {}, metaspace {}, "
        "framework {}, managed {}, network {}); Flink refuses to start with it",
        human_size(mem.process), human_size(mem.jvm_overhead), human_size(mem.jvm_metaspace),
        human_size(mem.framework_heap + mem.framework_off_heap), human_size(mem.managed), human_size(mem.network)));
    return;
  }
  const int32_t slots = std::max(o.slots, 1);
  const int64_t heap_per_slot = mem.task_heap / slots, managed_per_slot = mem.managed / slots;
  const int64_t per_slot = state_per_slot(r);
  const double share = static_cast<double>(per_slot) / static_cast<double>(heap_per_slot);
  Advice a;
  a.rule = "state-backend";
  a.evidence = {bytes_evidence("state per slot", per_slot), bytes_evidence("task heap per slot", heap_per_slot),
                bytes_evidence("managed memory per slot", managed_per_slot),
                ratio_evidence("state per slot / task heap per slot", share),
                text_evidence("backend in the snapshot", backend)};
  const WholeValueState whole = largest_whole_values(r);
  if (whole.state)
    a.evidence.push_back({"largest mean entry read whole per access",
                          fmt::format("{} ({}, state '{}' of {})", human_size(whole.mean), whole.state->kind,
                                      whole.state->name, operator_text(*whole.op)),
                          static_cast<double>(whole.mean), "bytes"});
  if (backend == "heap" && share > o.thresholds.rocksdb_share) {
    a.recommendation = fmt::format(
        "the heap backend keeps state as objects on the task heap ({} per slot of the {} process: Flink's memory "
        "model gives the rest to JVM overhead, metaspace, the framework, network buffers and {} of managed memory "
        "that heap state does not use), several times its serialized size: this state does not fit with room to "
        "spare; use RocksDB, which keeps it serialized in managed memory and on disk",
        human_size(heap_per_slot), human_size(mem.process), human_size(mem.managed));
    a.settings = {{"state.backend.type", "rocksdb"},
                  {"state.backend.rocksdb.memory.managed", "true"},
                  {"execution.checkpointing.incremental", "true"}};
  } else if (backend == "rocksdb" && share < o.thresholds.heap_share) {
    a.recommendation = fmt::format(
        "the state is a small share of a slot's task heap ({}): the heap backend avoids RocksDB's serialization on "
        "every access and would hold it with ease; the {} of managed memory per slot RocksDB uses could then be "
        "given to the task heap (taskmanager.memory.managed.fraction)",
        human_size(heap_per_slot), human_size(managed_per_slot));
    a.settings = {{"state.backend.type", "hashmap"}};
  } else if (backend == "rocksdb" && share <= o.thresholds.rocksdb_share && whole.state &&
             whole.mean >= o.thresholds.large_value_bytes) {
    a.operator_id = whole.op->id;
    a.operator_uid = whole.op->uid;
    a.recommendation = fmt::format(
        "RocksDB deserializes a {} state's whole entry on every read and serializes it on every write, and the "
        "entries of state '{}' average {}: that costs more per access than the state's size saves; the state fits a "
        "slot's task heap, so the heap backend, which reads objects in place, suits it (or keep RocksDB and make it a "
        "MapState, whose entries are read one by one)",
        whole.state->kind, whole.state->name, human_size(whole.mean));
    a.settings = {{"state.backend.type", "hashmap"}};
  } else {
    return;
  }
  out->advice.push_back(std::move(a));
}

void incremental(const Report& r, const AdviseOptions& o, AdviseReport* out) {
  if (r.history.size() < 2) {
    out->silent.push_back("incremental, changelog: a chain of at least two checkpoints is needed");
    return;
  }
  size_t full = 0;
  int64_t largest = 0;
  double churn = 0;
  for (size_t i = 1; i < r.history.size(); ++i) {
    const ReportCheckpoint& c = r.history[i];
    if (c.files_shared == 0) ++full;
    largest = std::max(largest, c.state_size);
    churn += c.state_size > 0 ? static_cast<double>(c.added_bytes) / static_cast<double>(c.state_size) : 0;
  }
  const size_t n = r.history.size() - 1;
  churn /= static_cast<double>(n);
  const size_t first_files = r.history.front().file_count, last_files = r.history.back().file_count;
  if (full == n) {
    if (largest < o.thresholds.incremental_min_bytes) return;
    Advice a;
    a.rule = "incremental";
    a.recommendation =
        "every checkpoint uploads the whole state again (no file is shared with the checkpoint before): "
        "incremental RocksDB checkpoints upload only the new SST files";
    a.evidence = {count_evidence("checkpoints compared", n),
                  count_evidence("checkpoints sharing no file with the one before", full),
                  bytes_evidence("largest full size", largest)};
    a.settings = {{"state.backend.type", "rocksdb"}, {"execution.checkpointing.incremental", "true"}};
    out->advice.push_back(std::move(a));
    return;
  }
  if (churn > o.thresholds.changelog_churn) {
    Advice a;
    a.rule = "changelog";
    a.recommendation =
        "incremental checkpoints upload most of the state each time (compactions rewrite the SST files): the "
        "changelog backend uploads the changes continuously and makes checkpoints small and fast";
    a.evidence = {
        count_evidence("checkpoints compared", n), ratio_evidence("mean upload per checkpoint / full size", churn),
        text_evidence("SST and other files, first to last", fmt::format("{} -> {}", first_files, last_files))};
    // The filesystem storage has no default location: without dstl.dfs.base-path the job fails.
    a.settings = {{"state.backend.changelog.enabled", "true"},
                  {"state.backend.changelog.storage", "filesystem"},
                  {"dstl.dfs.base-path", "a durable directory for the change logs, e.g. s3://BUCKET/changelog"}};
    out->advice.push_back(std::move(a));
  }
}

void sst_growth(const Report& r, const AdviseOptions& o, AdviseReport* out) {
  if (r.history.size() < o.thresholds.sst_growth_checkpoints) {
    out->silent.push_back(
        fmt::format("sst-growth: a chain of at least {} checkpoints is needed", o.thresholds.sst_growth_checkpoints));
    return;
  }
  const size_t first = r.history.front().sst_count, last = r.history.back().sst_count;
  if (first == 0) {
    out->silent.push_back("sst-growth: the first checkpoint holds no RocksDB SST file");
    return;
  }
  size_t grew = 0;
  for (size_t i = 1; i < r.history.size(); ++i) grew += r.history[i].sst_count > r.history[i - 1].sst_count ? 1 : 0;
  const size_t steps = r.history.size() - 1;
  const double growth = static_cast<double>(last) / static_cast<double>(first);
  if (growth < o.thresholds.sst_growth || 2 * grew <= steps) return;
  Advice a;
  a.rule = "sst-growth";
  a.recommendation =
      "each checkpoint references more SST files than the one before: compaction does not keep up with the writes, "
      "so reads search more files and every incremental checkpoint and restore handles more of them; give RocksDB "
      "more background threads and let level sizes follow the data (or larger target files)";
  a.evidence = {count_evidence("checkpoints compared", r.history.size()),
                text_evidence("SST files, first to last", fmt::format("{} -> {}", first, last)),
                ratio_evidence("growth", growth),
                text_evidence("checkpoints that added SST files", fmt::format("{} of {}", grew, steps))};
  a.settings = {{"state.backend.rocksdb.thread.num", "4"},
                {"state.backend.rocksdb.compaction.level.use-dynamic-size", "true"},
                {"state.backend.rocksdb.compaction.level.target-file-size-base", "128mb"}};
  out->advice.push_back(std::move(a));
}

void local_recovery(const Report& r, const AdviseOptions& o, AdviseReport* out) {
  int64_t largest = 0;
  const ReportOperator* where = nullptr;
  for (const ReportOperator& op : r.operators)
    for (const ReportSubtask& s : op.subtasks)
      if (s.state_size > largest) {
        largest = s.state_size;
        where = &op;
      }
  if (!where || largest < o.thresholds.local_recovery_bytes) return;
  Advice a = about(*where);
  a.rule = "local-recovery";
  a.recommendation =
      "a subtask holds enough state that downloading it after a failure dominates recovery: local recovery "
      "keeps a secondary copy on the TaskManager's disk";
  a.evidence = {bytes_evidence("largest subtask state", largest)};
  a.settings = {{"execution.state-recovery.from-local", "true"}};
  out->advice.push_back(std::move(a));
}

void unaligned(const Report& r, AdviseReport* out) {
  if (r.channel_state_handles == 0) {
    out->silent.push_back("unaligned: no channel state in the snapshot (aligned, or no backpressure then)");
    return;
  }
  Advice a;
  a.rule = "unaligned";
  a.recommendation =
      "the snapshot holds in-flight data: unaligned checkpoints are on and met backpressure; keep them, and let "
      "checkpoints start aligned and switch only when alignment takes long";
  a.evidence = {count_evidence("channel state handles", r.channel_state_handles),
                bytes_evidence("channel state", r.channel_state_bytes)};
  a.settings = {{"execution.checkpointing.unaligned.enabled", "true"},
                {"execution.checkpointing.aligned-checkpoint-timeout", "30 s"}};
  out->advice.push_back(std::move(a));
}

void max_parallelism(const Report& r, const AdviseOptions& o, AdviseReport* out) {
  for (const ReportOperator& op : r.operators) {
    if (op.max_parallelism <= 0 || op.key_groups.empty()) continue;  // keyed operators only
    const double share = static_cast<double>(op.parallelism) / op.max_parallelism;
    if (share <= o.thresholds.parallelism_share && op.hot_key_groups.empty()) continue;
    Advice a = about(op);
    a.rule = "max-parallelism";
    a.evidence = {count_evidence("parallelism", static_cast<uint64_t>(op.parallelism)),
                  count_evidence("max parallelism", static_cast<uint64_t>(op.max_parallelism))};
    if (share > o.thresholds.parallelism_share) {
      a.recommendation =
          "parallelism is near the max parallelism: the job can scale out little further, and key groups spread "
          "unevenly over subtasks; raise the max parallelism (ckpt edit --max-parallelism rewrites a savepoint)";
      a.settings = {{"pipeline.max-parallelism", std::to_string(std::min(32768, op.max_parallelism * 4))}};
    } else {
      std::string hot;
      for (int32_t kg : op.hot_key_groups) hot += (hot.empty() ? "" : ",") + std::to_string(kg);
      a.recommendation =
          "some key groups are much larger than the others: rescaling moves whole key groups and cannot split "
          "them; the skew is in the keys (a hot key), to fix in the job (e.g. salting the key)";
      a.evidence.push_back(text_evidence("hot key groups", hot));
      a.evidence.push_back(bytes_evidence("median key group", static_cast<int64_t>(op.median_key_group_bytes)));
    }
    out->advice.push_back(std::move(a));
  }
}

void ttl(const Report& r, const AdviseOptions& o, AdviseReport* out) {
  if (!r.counted) {
    out->silent.push_back("ttl: --fast reads no entries, so no last-access time");
    return;
  }
  bool ttl_states = false, with_ttl = false;
  for (const ReportOperator& op : r.operators)
    for (const ReportState& s : op.states) {
      ttl_states |= s.ttl_state && s.ttl_values > 0;
      with_ttl |= s.ttl_state && s.ttl_values > 0 && s.ttl.has_value();
    }
  if (!ttl_states) {
    out->silent.push_back("ttl: no state with TTL values in the snapshot");
    return;
  }
  if (!with_ttl || !r.ttl_now) {
    out->silent.push_back(
        "ttl: no TTL given (--ttl STATE=DURATION or --plan FILE): a snapshot stores last-access times, not the TTL");
    return;
  }
  for (const ReportOperator& op : r.operators)
    for (const ReportState& s : op.states) {
      if (!s.ttl || s.ttl_values == 0) continue;
      const double share = static_cast<double>(s.expired) / static_cast<double>(s.ttl_values);
      if (s.expired == 0 || share < o.thresholds.ttl_expired_share) continue;
      Advice a = about(op);
      a.rule = "ttl";
      const std::string expire = fmt::format("ckpt edit --expire {}={}ms --now {}", s.name, *s.ttl, *r.ttl_now);
      if (op.sql) {
        // A SQL operator's TTL config is made by the planner (StateConfigUtil / StateTtlConfigUtil):
        // the TTL from table.exec.state.ttl or a STATE_TTL hint, cleanup Flink's defaults.
        a.recommendation = fmt::format(
            "state '{}' of SQL {} still holds values whose TTL had expired: the planner gives SQL state Flink's "
            "default background cleanup, which drops a value only when it is read, when the heap backend's "
            "incremental cleanup reaches it (5 entries per state access, none per record) or when a RocksDB "
            "compaction rewrites its file; a SQL job sets the TTL, not the cleanup: table.exec.state.ttl for the "
            "job or a /*+ STATE_TTL(...) */ hint per join or aggregation, and on RocksDB a shorter periodic "
            "compaction makes old files pass the TTL filter sooner; or drop them from a savepoint with {}",
            s.name, operator_text(op), expire);
        a.settings = {{"table.exec.state.ttl", fmt::format("{} ms", *s.ttl)},
                      {"STATE_TTL hint", fmt::format("/*+ STATE_TTL('<table or alias>' = '{} ms') */", *s.ttl)},
                      {"state.backend.rocksdb.compaction.filter.periodic-compaction-time", "1 d"}};
      } else {
        a.recommendation = fmt::format(
            "state '{}' still holds values whose TTL had expired: Flink drops them only when they are read or when a "
            "cleanup strategy reaches them, and until then they take space in every checkpoint; background cleanup "
            "is on by default but slow (the heap backend checks 5 entries per state access and none per record, "
            "RocksDB only files a compaction rewrites): set a faster strategy in the state's StateTtlConfig, or drop "
            "them from a savepoint with {}",
            s.name, expire);
        // TTL cleanup is set per state in the job's code (StateTtlConfig.Builder), not by a key;
        // Flink's defaults are cleanupIncrementally(5, false) and cleanupInRocksdbCompactFilter(1000).
        a.settings = {{"StateTtlConfig.Builder (RocksDB)", "cleanupInRocksdbCompactFilter(1000)"},
                      {"state.backend.rocksdb.compaction.filter.periodic-compaction-time", "1 d"},
                      {"StateTtlConfig.Builder (heap)", "cleanupIncrementally(100, true)"},
                      {"StateTtlConfig.Builder (full snapshots)", "cleanupFullSnapshot()"}};
      }
      a.evidence = {
          text_evidence("state", s.name),
          count_evidence("TTL values", s.ttl_values),
          count_evidence("expired", s.expired),
          ratio_evidence("expired share", share),
          ms_evidence("ttl", *s.ttl),
          time_evidence(r.ttl_now_given ? "measured at (--now)" : "measured at (newest last access)", *r.ttl_now),
          time_evidence("oldest last access", s.oldest_access)};
      out->advice.push_back(std::move(a));
    }
}

}  // namespace

TaskManagerMemory task_manager_memory(int64_t process_size) {
  // MemorySize.multiply(fraction) of Flink's float options: (long) (bytes * (double) 0.1f).
  auto fraction = [](int64_t bytes, float f) {
    return static_cast<int64_t>(static_cast<double>(bytes) * static_cast<double>(f));
  };
  constexpr int64_t kMiB = int64_t{1} << 20;
  TaskManagerMemory m;
  m.process = process_size;
  m.jvm_overhead = std::clamp(fraction(process_size, 0.1f), 192 * kMiB, 1024 * kMiB);
  m.jvm_metaspace = 256 * kMiB;
  m.flink = process_size - m.jvm_overhead - m.jvm_metaspace;
  m.framework_heap = m.framework_off_heap = 128 * kMiB;
  m.task_off_heap = 0;
  m.managed = std::max<int64_t>(0, fraction(m.flink, 0.4f));
  m.network = std::max(fraction(m.flink, 0.1f), 64 * kMiB);
  m.task_heap = m.flink - m.framework_heap - m.framework_off_heap - m.task_off_heap - m.managed - m.network;
  return m;
}

AdviseReport advise(const Report& report, const AdviseOptions& options) {
  AdviseReport out;
  state_backend(report, options, &out);
  incremental(report, options, &out);
  sst_growth(report, options, &out);
  local_recovery(report, options, &out);
  unaligned(report, &out);
  max_parallelism(report, options, &out);
  ttl(report, options, &out);
  return out;
}

}  // namespace ckpt
