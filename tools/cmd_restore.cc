// ckpt restore: each subtask's keyed state as a RocksDB instance (man/ckpt-restore.1.md).
#include <limits>
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "ckpt/restore.h"
#include "command.h"
#include "jobs_arg.h"
#include "json_output.h"
#include "key_group_arg.h"
#include "progress_meter.h"
#include "remap_arg.h"
#include "shard_arg.h"

namespace ckpt::cli {

namespace {
struct RestoreArgs {
  std::string snapshot;
  std::string output;
  std::string operator_filter;
  int subtask = -1;
  std::string key_groups;
  bool link = false;
  bool full_check = false;
  int jobs = 1;
  bool force = false;
  bool json = false;
  std::vector<std::string> remap;
  std::string key_serializers_from;
  ProgressMode progress = ProgressMode::kAuto;
  std::string shard;
};
}  // namespace

Runner setup_restore(CLI::App& sub) {
  auto a = std::make_shared<RestoreArgs>();
  sub.add_option("SNAPSHOT", a->snapshot, "Snapshot directory or its _metadata file")->required();
  sub.add_option("-o,--output", a->output, "Directory to write the instances into (absent or empty)")
      ->required()
      ->type_name("DIR");
  sub.add_option("--operator", a->operator_filter, "Only the operator with this id (32 hex digits), id prefix, uid or name")
      ->type_name("ID|UID");
  // -1, the unset default, must not be typed: it would mean every subtask.
  sub.add_option("--subtask", a->subtask, "Only this subtask")
      ->type_name("N")
      ->check(CLI::Range(0, std::numeric_limits<int32_t>::max()));
  sub.add_option("--key-groups", a->key_groups, "Keep only key groups A to B, as a rescaled restore clips")
      ->type_name("A[-B]");
  sub.add_flag("--link", a->link, "Hard-link SST files instead of copying them where the file system allows");
  sub.add_flag("--full-check", a->full_check,
               "Checksum every SST block and read every entry back before reporting success");
  add_jobs_option(sub, &a->jobs, "Restore N subtasks at once");
  sub.add_flag("--force", a->force, "Replace a non-empty output directory");
  sub.add_flag("--json", a->json, "Describe what was written as JSON");
  add_key_serializers_option(sub, &a->key_serializers_from);
  add_shard_option(sub, &a->shard, "its subtasks' instances, into this part's own output");
  add_remap_option(sub, &a->remap);
  add_progress_options(sub, &a->progress);
  return [a](Io& io) {
    RestoreOptions options;
    options.output = a->output;
    options.operator_filter = a->operator_filter;
    if (a->subtask >= 0) options.subtask = a->subtask;
    if (!a->key_groups.empty()) {
      std::pair<int32_t, int32_t> range;
      if (!parse_key_group_range(a->key_groups, &range)) {
        print_error(io, "--key-groups: expected A or A-B with 0 <= A <= B, found '" + a->key_groups + "'");
        return kExitError;
      }
      options.key_groups = range;
    }
    options.link = a->link;
    options.full_check = a->full_check;
    options.jobs = a->jobs;
    options.force = a->force;
    if (!shard_or_report(io, a->shard, &options.shard)) return kExitError;
    options.key_serializers_from = a->key_serializers_from;
    std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a->remap, "--remap", {a->snapshot});
    if (!remap) return kExitError;
    options.remap = std::move(*remap);
    ProgressMeter meter(io, "restore", a->progress);
    options.progress = meter.counters();
    Result<RestoreReport> report = restore_snapshot(a->snapshot, options);
    meter.finish();
    if (!report.ok()) return report_error(io, report.error());
    if (a->json)
      print_json(io, [&](JsonWriter& w) { write_restore_json(*report, w); });
    else write_restore_text(*report, io.out);
    io.json_written = a->json;
    return kExitOk;
  };
}

}  // namespace ckpt::cli
