// ckpt convert: rewrite a snapshot for another state backend (man/ckpt-convert.1.md).
#include <memory>

#include <fmt/format.h>

#include "ckpt/convert.h"
#include "ckpt/inspect.h"
#include "command.h"
#include "jobs_arg.h"
#include "json_output.h"
#include "progress_meter.h"
#include "remap_arg.h"
#include "shard_arg.h"
#include "written_counts.h"

namespace ckpt::cli {

namespace {
struct ConvertArgs {
  std::string snapshot;
  std::string to;
  std::string output;
  int jobs = 1;
  bool force = false;
  bool json = false;
  std::vector<std::string> remap;
  std::string key_serializers_from;
  ProgressMode progress = ProgressMode::kAuto;
  std::string shard;
  bool finish = false;
};
}  // namespace

Runner setup_convert(CLI::App& sub) {
  auto a = std::make_shared<ConvertArgs>();
  sub.add_option("SNAPSHOT", a->snapshot, "Snapshot directory or its _metadata file")->required();
  sub.add_option("--to", a->to, "Target layout: rocksdb, heap (or hashmap) or canonical")
      ->required()
      ->type_name("KIND");
  sub.add_option("-o,--output", a->output, "Directory to create (must not exist or be empty)")
      ->required()
      ->type_name("DIR");
  sub.add_flag("--force", a->force, "Replace an existing output directory");
  sub.add_flag("--json", a->json, "Describe what was written as JSON");
  add_jobs_option(sub, &a->jobs, "Subtasks converted at once");
  add_part_options(sub, &a->shard, &a->finish);
  add_key_serializers_option(sub, &a->key_serializers_from);
  add_remap_option(sub, &a->remap);
  add_progress_options(sub, &a->progress);
  return [a](Io& io) {
    Result<ConvertTarget> to = parse_convert_target(a->to);
    if (!to.ok()) return report_error(io, to.error());
    std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a->remap, "--remap", {a->snapshot});
    if (!remap) return kExitError;
    ConvertOptions options;
    options.to = *to;
    options.output = a->output;
    options.jobs = a->jobs;
    options.force = a->force;
    options.remap = std::move(*remap);
    options.key_serializers_from = a->key_serializers_from;
    if (!shard_or_report(io, a->shard, &options.shard)) return kExitError;
    options.finish = a->finish;
    ProgressMeter meter(io, "convert", a->progress);
    options.progress = meter.counters();
    Result<ConvertSummary> s = convert_snapshot(a->snapshot, options);
    meter.finish();
    if (!s.ok()) return report_error(io, s.error());
    if (a->json) {
      print_json(io, [&](JsonWriter& w) { write_convert_json(a->snapshot, *to, *s, w); });
      return kExitOk;
    }
    io.out << fmt::format("{}: {} ({}), {}\n", s->output, s->kind, convert_target_name(*to), written_counts(*s));
    return kExitOk;
  };
}

}  // namespace ckpt::cli
