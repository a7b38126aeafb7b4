// ckpt verify: would Flink restore this snapshot? (man/ckpt-verify.1.md)
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "ckpt/verify.h"
#include "command.h"
#include "jobs_arg.h"
#include "json_output.h"
#include "naming_arg.h"
#include "progress_meter.h"
#include "remap_arg.h"
#include "shard_arg.h"

namespace ckpt::cli {

namespace {
struct VerifyArgs {
  std::string snapshot;
  bool deep = false;
  bool json = false;
  int jobs = 1;
  std::vector<std::string> remap;
  NamingArgs naming;
  ProgressMode progress = ProgressMode::kAuto;
  std::string shard;
  bool allow_unread = false;
};
}  // namespace

Runner setup_verify(CLI::App& sub) {
  auto a = std::make_shared<VerifyArgs>();
  sub.add_option("SNAPSHOT", a->snapshot, "Snapshot directory or its _metadata file")->required();
  sub.add_flag("--deep", a->deep, "Also read every byte: decode every stream, checksum every SST");
  sub.add_flag("--json", a->json, "Print the report as JSON");
  add_jobs_option(sub, &a->jobs, "With --deep, check N subtasks and SST files at once");
  sub.add_flag("--allow-unread", a->allow_unread,
               "With --deep, exit 0 even when parts could not be read (listed as 'not checked')");
  add_shard_option(sub, &a->shard, "its subtasks' checks; the parts' problems together are those of one run");
  add_remap_option(sub, &a->remap);
  add_naming_options(sub, &a->naming);
  add_progress_options(sub, &a->progress);
  return [a](Io& io) {
    std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a->remap, "--remap", {a->snapshot});
    if (!remap) return kExitError;
    std::optional<OperatorNames> names = names_or_report(io, a->naming);
    if (!names) return kExitError;
    VerifyOptions options;
    options.deep = a->deep;
    if (!shard_or_report(io, a->shard, &options.shard)) return kExitError;
    options.jobs = a->jobs;
    options.remap = std::move(*remap);
    options.names = std::move(*names);
    ProgressMeter meter(io, "verify", a->deep ? a->progress : ProgressMode::kOff);
    options.progress = meter.counters();
    Result<VerifyReport> report = verify_snapshot(a->snapshot, options);
    meter.finish();
    if (!report.ok()) return report_error(io, report.error());
    if (a->json)
      print_json(io, [&](JsonWriter& w) { write_verify_json(*report, w); });
    else write_verify_text(*report, io.out);
    io.json_written = a->json;
    warn_unmatched_uids(io, report->unmatched_uids);
    if (!report->clean()) return kExitProblems;
    if (report->complete() || a->allow_unread) return kExitOk;
    // A gate must not pass on what it did not check: each part is listed with the reason.
    print_warning(io, fmt::format("{} part{} could not be read and {} not checked (--allow-unread accepts that)",
                                  report->unchecked.size(), report->unchecked.size() == 1 ? "" : "s",
                                  report->unchecked.size() == 1 ? "was" : "were"));
    return kExitProblems;
  };
}

}  // namespace ckpt::cli
