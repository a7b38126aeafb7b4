// tools/report_args.cc - the options and the run ckpt report and ckpt advise share.
#include "report_args.h"

#include "jobs_arg.h"
#include "memory_size_arg.h"
#include "remap_arg.h"
#include "ttl_args.h"

namespace ckpt::cli {

void add_report_run_options(CLI::App& sub, ReportRunArgs* a) {
  sub.add_option("--tm-memory", a->tm_memory, "A TaskManager's memory (512m, 4g), for the state backend rule")
      ->type_name("SIZE");
  sub.add_option("--slots", a->slots, "Task slots per TaskManager (default 1)")->type_name("N")->check(CLI::Range(1, 4096));
  sub.add_flag("--fast", a->fast,
               "Estimate skew from key-group offsets and SST key ranges instead of counting entries");
  add_jobs_option(sub, &a->jobs, "Count N subtasks at once");
  sub.add_option("--ttl", a->ttls, "The time-to-live of TTL state STATE, for the ttl rule (repeatable)")
      ->type_name("STATE=DURATION");
  add_naming_options(sub, &a->naming,
                     "Name operators from Flink's compiled SQL plan (JSON) of the job, and take its nodes' state "
                     "TTLs for the ttl rule");
  sub.add_option("--now", a->now, "The time TTLs are measured at (default: the newest last access in the snapshot)")
      ->type_name("TIMESTAMP");
  add_remap_option(sub, &a->remap);
  add_progress_options(sub, &a->progress);
}

std::optional<ReportAndAdvice> build_report_and_advice(Io& io, const std::string& path, const ReportRunArgs& a,
                                                       Progress* progress) {
  AdviseOptions ao;
  ao.slots = a.slots;
  if (!a.tm_memory.empty()) {
    Result<int64_t> m = parse_memory_size(a.tm_memory);
    if (!m.ok()) {
      report_error(io, Error(m.error().code, "--tm-memory: " + m.error().message));
      return std::nullopt;
    }
    ao.tm_memory = *m;
  }
  std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a.remap, "--remap", {path});
  if (!remap) return std::nullopt;
  ReportOptions ro;
  ro.fast = a.fast;
  ro.jobs = a.jobs;
  ro.remap = std::move(*remap);
  ro.progress = progress;
  std::optional<OperatorNames> names = names_or_report(io, a.naming);
  if (!names) return std::nullopt;
  ro.names = std::move(*names);
  ro.plan = a.naming.plan;
  if (!parse_state_ttls(io, a.ttls, "--ttl", &ro.ttls) || !parse_now(io, a.now, &ro.now)) return std::nullopt;
  Result<Report> r = build_report(path, ro);
  if (!r.ok()) {
    report_error(io, r.error());
    return std::nullopt;
  }
  warn_unmatched_uids(io, r->unmatched_uids);
  ReportAndAdvice out{std::move(*r), {}};
  out.advice = advise(out.report, ao);
  return out;
}

}  // namespace ckpt::cli
