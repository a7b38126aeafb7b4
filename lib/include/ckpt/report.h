// ckpt/report.h - a job's state in numbers: size per operator and state, skew over subtasks
// and key groups, and the history of the retained checkpoints.
//
// build_report() takes a snapshot or a job's checkpoint directory (`chk-*`, `shared/`,
// `taskowned/`). Sizes come from inspect_snapshot() (Flink's state_size and checkpointed_size
// per operator and subtask), history from diff_metadata() between consecutive checkpoints,
// skew from the entry engine (ckpt/entries.h) over the newest snapshot: every entry is counted
// into its operator, subtask, state and key group, so memory is one counter pair per key group
// whatever the state's size. With `fast` no entry is read: per-subtask bytes are the handles'
// state sizes, and key groups get them from where the files place them (heap streams' key-group
// offsets exactly; RocksDB SSTs spread over the key groups of their first to last key); a key
// group is named hot from that only where the bounds the files give prove it (ckpt-report(1)).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/error.h"
#include "ckpt/export.h"
#include "ckpt/inspect.h"
#include "ckpt/names.h"
#include "ckpt/progress.h"
#include "ckpt/resolve.h"

namespace ckpt {

struct CKPT_API ReportOptions {
  bool fast = false;  // skew from key-group offsets and SST key ranges instead of counting entries
  int jobs = 1;       // subtasks decoded at once while counting
  std::vector<PrefixRule> remap;
  Progress* progress = nullptr;  // bytes read and entries counted (ckpt/progress.h)
  size_t largest_key_groups = 10;  // how many of the largest key groups each operator names
  // A key group is hot when its bytes exceed this many times the median of the operator's
  // non-empty key groups (and the operator has at least 8 of them to take a median over).
  double hot_factor = 4.0;
  // TTL states (ckpt-advise(1), ttl; not with `fast`): the TTL of each state named here (ms),
  // and of the TTL states of every operator a compiled SQL plan gives a state TTL (as `ckpt edit
  // --expire` and `--plan` take them). Values are counted as expired at `now` (ms since the
  // epoch); without it, at the newest last access of any TTL value in the snapshot, a time the
  // snapshot was taken at or after (Flink's _metadata stores no checkpoint time).
  std::vector<std::pair<std::string, int64_t>> ttls;
  std::string plan;
  std::optional<int64_t> now;
  // Names for the operators, as inspect takes them (ckpt/names.h): the plan's uids and node
  // descriptions, uids given by the user.
  OperatorNames names;
};

struct CKPT_API ReportState {
  std::string name;
  std::string kind;  // as inspect's StateSummary::kind
  bool keyed = false;
  std::string value_type;
  uint64_t entry_count = 0;  // counted (not with `fast`)
  uint64_t bytes = 0;        // serialized key, namespace, user key and value bytes of its entries
  // A TTL state (its values are Flink's TtlValue, counted only): the TtlValues read (a list's
  // elements each) and their oldest and newest last access (ms since the epoch); with a TTL
  // (ReportOptions::ttls or plan), those whose last access + ttl <= Report::ttl_now.
  bool ttl_state = false;
  uint64_t ttl_values = 0;
  int64_t oldest_access = 0, newest_access = 0;
  std::optional<int64_t> ttl = std::nullopt;
  uint64_t expired = 0;
};

struct CKPT_API ReportKeyGroup {
  int32_t key_group = 0;
  int32_t subtask = 0;
  uint64_t bytes = 0;
  uint64_t entry_count = 0;
};

struct CKPT_API ReportSubtask {
  int32_t index = 0;
  KeyGroupRange key_groups;  // empty for operators without keyed state
  int64_t state_size = 0;    // the subtask's handles, as Flink declares them
  uint64_t bytes = 0;        // counted entry bytes (fast: state_size)
  uint64_t entry_count = 0;
};

struct CKPT_API ReportOperator {
  std::string id, uid, name;
  std::string description;  // the compiled plan's node (ReportOptions::names); "" otherwise
  // A Flink SQL operator: a compiled plan names it, or its state is held by the table
  // runtime's serializers (its TTL is set in SQL, not in code).
  bool sql = false;
  int32_t parallelism = 0, max_parallelism = 0;
  std::vector<std::string> kinds;
  int64_t state_size = 0, checkpointed_size = 0;
  size_t file_count = 0;
  std::vector<ReportState> states;
  std::vector<ReportSubtask> subtasks;
  // Every key group of 0 .. max_parallelism - 1 an entry was counted in (fast: every key group
  // of a keyed subtask, its bytes estimated), ascending.
  std::vector<ReportKeyGroup> key_groups;
  std::vector<int32_t> largest_key_groups;  // by bytes, largest first
  std::vector<int32_t> hot_key_groups;      // ascending; with `fast` only where the files' bounds prove it
  uint64_t median_key_group_bytes = 0;      // of the non-empty key groups
};

// One retained checkpoint, oldest first.
struct CKPT_API ReportCheckpoint {
  std::string name;  // "chk-7", or the snapshot's directory name
  int64_t checkpoint_id = 0;
  int64_t state_size = 0, checkpointed_size = 0;
  size_t file_count = 0;
  size_t sst_count = 0;  // of file_count, RocksDB SST files (`*.sst`)
  // Against the checkpoint before (the first: every file added).
  size_t files_added = 0, files_shared = 0, files_dropped = 0;
  int64_t added_bytes = 0, dropped_bytes = 0;
  std::vector<std::pair<std::string, int64_t>> operator_sizes;  // operator id, state_size
};

struct CKPT_API ReportGrowth {
  std::string operator_id;
  int64_t first_state_size = 0, last_state_size = 0;
  int64_t growth_bytes() const { return last_state_size - first_state_size; }
};

struct CKPT_API Report {
  std::string path;       // as given
  bool job_directory = false;  // PATH held chk-* directories
  std::string snapshot;   // the newest snapshot's `_metadata`, the one sizes and skew describe
  int64_t checkpoint_id = 0;
  std::string snapshot_kind;  // snapshot_kind_name()
  int64_t state_size = 0, checkpointed_size = 0;
  size_t file_count = 0, missing_file_count = 0;
  bool counted = false;  // skew counted from entries (not `fast`)
  uint64_t entry_count = 0;
  std::vector<ReportOperator> operators;
  std::vector<ReportCheckpoint> history;
  std::vector<ReportGrowth> growth;  // per operator, first to last checkpoint (history of 2+)
  std::string most_grown;            // operator id with the largest growth; "" without history
  size_t channel_state_handles = 0;  // unaligned checkpoints' in-flight data, in the newest
  int64_t channel_state_bytes = 0;
  // The time TTL values were measured against (ReportOptions::now, else the newest last
  // access); nullopt when no state has a TTL to measure.
  std::optional<int64_t> ttl_now;
  bool ttl_now_given = false;
  // The newest snapshot's inspect report, for rules that need more (ckpt/advise.h).
  InspectReport inspect;
  std::vector<std::string> problems;  // parts skipped while counting, as Error::to_string()
  std::vector<std::string> unmatched_uids;  // uids of ReportOptions::names that name no operator
};

// Errors: PATH is neither a snapshot nor a directory holding `chk-*/_metadata`, a `_metadata`
// cannot be read, or (counting) the state cannot be opened.
CKPT_API Result<Report> build_report(const std::string& path, const ReportOptions& options);

// The `ckpt.report/1` document (ckpt-report(1), formats/schemas/ckpt.report.schema.json).
CKPT_API std::string report_json(const Report& r, const std::string& advice_json);
// The self-contained page: `chart_js` is Chart.js's UMD build, `json` report_json()'s output.
CKPT_API std::string report_html(const Report& r, const std::string& json, const std::string& chart_js);

}  // namespace ckpt
