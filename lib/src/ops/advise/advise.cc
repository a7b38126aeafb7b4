// ops/advise/advise.cc - the rules of ckpt-advise(1), each over numbers a report measured.
// Every rule either has its evidence and speaks, or names in `silent` what it lacked.
#include "ckpt/advise.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace ckpt {
namespace {

bool has_kind(const ReportOperator& op, std::string_view kind) {
  return std::find(op.kinds.begin(), op.kinds.end(), kind) != op.kinds.end();
}

// "rocksdb" when any keyed handle is a native RocksDB one, "heap" for heap key-group streams of
// a checkpoint or native savepoint, "" when the layout does not say (canonical savepoints).
std::string backend_of(const Report& r) {
  bool rocks = false, heap = false;
  for (const ReportOperator& op : r.operators) {
    if (has_kind(op, "keyed-rocksdb-incremental")) rocks = true;
    if (has_kind(op, "keyed-full")) heap = true;
  }
  if (rocks) return "rocksdb";
  // keyed-full is what the heap backend writes, and also RocksDB's full checkpoints: only a
  // native savepoint or checkpoint without any RocksDB handle is taken as heap.
  if (heap && r.snapshot_kind != "savepoint-canonical") return "heap";
  return "";
}

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
  const int64_t per_slot_memory = *o.tm_memory / std::max(o.slots, 1);
  const int64_t per_slot = state_per_slot(r);
  const double share = static_cast<double>(per_slot) / static_cast<double>(per_slot_memory);
  Advice a;
  a.rule = "state-backend";
  a.evidence = {{"state per slot", human_size(per_slot)},
                {"memory per slot", human_size(per_slot_memory)},
                {"share", ratio(share)},
                {"backend in the snapshot", backend}};
  if (backend == "heap" && share > o.thresholds.rocksdb_share) {
    a.recommendation =
        "the heap backend keeps state as objects on the JVM heap, several times its serialized size: this state "
        "does not fit a slot's memory with room to spare; use RocksDB, which keeps it serialized off-heap";
    a.settings = {{"state.backend.type", "rocksdb"},
                  {"state.backend.rocksdb.memory.managed", "true"},
                  {"execution.checkpointing.incremental", "true"}};
  } else if (backend == "rocksdb" && share < o.thresholds.heap_share) {
    a.recommendation =
        "the state is a small share of a slot's memory: the heap backend avoids RocksDB's serialization on "
        "every access and would hold it with ease";
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
    a.evidence = {{"checkpoints compared", std::to_string(n)},
                  {"checkpoints sharing no file with the one before", std::to_string(full)},
                  {"largest full size", human_size(largest)}};
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
    a.evidence = {{"checkpoints compared", std::to_string(n)},
                  {"mean upload per checkpoint / full size", ratio(churn)},
                  {"SST and other files, first to last", fmt::format("{} -> {}", first_files, last_files)}};
    a.settings = {{"state.backend.changelog.enabled", "true"}, {"state.backend.changelog.storage", "filesystem"}};
    out->advice.push_back(std::move(a));
  }
}

void local_recovery(const Report& r, const AdviseOptions& o, AdviseReport* out) {
  int64_t largest = 0;
  std::string where;
  for (const ReportOperator& op : r.operators)
    for (const ReportSubtask& s : op.subtasks)
      if (s.state_size > largest) {
        largest = s.state_size;
        where = op.id;
      }
  if (largest < o.thresholds.local_recovery_bytes) return;
  Advice a;
  a.rule = "local-recovery";
  a.operator_id = where;
  a.recommendation =
      "a subtask holds enough state that downloading it after a failure dominates recovery: local recovery "
      "keeps a secondary copy on the TaskManager's disk";
  a.evidence = {{"largest subtask state", human_size(largest)}};
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
  a.evidence = {{"channel state handles", std::to_string(r.channel_state_handles)},
                {"channel state", human_size(r.channel_state_bytes)}};
  a.settings = {{"execution.checkpointing.unaligned.enabled", "true"},
                {"execution.checkpointing.aligned-checkpoint-timeout", "30 s"}};
  out->advice.push_back(std::move(a));
}

void max_parallelism(const Report& r, const AdviseOptions& o, AdviseReport* out) {
  for (const ReportOperator& op : r.operators) {
    if (op.max_parallelism <= 0 || op.key_groups.empty()) continue;  // keyed operators only
    const double share = static_cast<double>(op.parallelism) / op.max_parallelism;
    if (share <= o.thresholds.parallelism_share && op.hot_key_groups.empty()) continue;
    Advice a;
    a.rule = "max-parallelism";
    a.operator_id = op.id;
    a.evidence = {{"parallelism", std::to_string(op.parallelism)},
                  {"max parallelism", std::to_string(op.max_parallelism)}};
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
      a.evidence.push_back({"hot key groups", hot});
      a.evidence.push_back({"median key group", human_size(static_cast<int64_t>(op.median_key_group_bytes))});
    }
    out->advice.push_back(std::move(a));
  }
}

}  // namespace

AdviseReport advise(const Report& report, const AdviseOptions& options) {
  AdviseReport out;
  state_backend(report, options, &out);
  incremental(report, options, &out);
  local_recovery(report, options, &out);
  unaligned(report, &out);
  max_parallelism(report, options, &out);
  out.silent.push_back("ttl: expired entries are not measured");
  return out;
}

Result<int64_t> parse_memory_size(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  std::string number = text.substr(0, i), unit = text.substr(i);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!unit.empty() && unit.back() == 'b' && unit.size() > 1) unit.pop_back();
  int shift = 0;
  if (unit == "" || unit == "b") shift = 0;
  else if (unit == "k") shift = 10;
  else if (unit == "m") shift = 20;
  else if (unit == "g") shift = 30;
  else if (unit == "t") shift = 40;
  else shift = -1;
  char* end = nullptr;
  double v = number.empty() ? -1 : std::strtod(number.c_str(), &end);
  if (shift < 0 || number.empty() || end != number.c_str() + number.size() || !(v > 0) || v * std::ldexp(1.0, shift) > 9e18)
    return Error(ErrorCode::kInvalidArgument, "a size such as 512m, 4g or 2048 was expected, found '" + text + "'");
  return static_cast<int64_t>(v * std::ldexp(1.0, shift));
}

}  // namespace ckpt
