// ckpt inspect: what a checkpoint or savepoint holds (man/ckpt-inspect.1.md).
#include <memory>
#include <mutex>

#include "ckpt/inspect.h"
#include "command.h"
#include "jobs_arg.h"
#include "json_output.h"
#include "naming_arg.h"
#include "progress_meter.h"
#include "remap_arg.h"

namespace ckpt::cli {

namespace {
struct InspectArgs {
  std::string snapshot;
  bool verbose = false;
  bool json = false;
  std::vector<std::string> remap;
  bool count = false;
  int jobs = 1;
  NamingArgs naming;
  ProgressMode progress = ProgressMode::kAuto;
  bool allow_unread = false;
};

// The process ends after the command: freeing a report of millions of files one string at a
// time is time the user waits for. The last report stays reachable (LeakSanitizer does not
// count it) and goes when the next command of the same process (a test) keeps its own.
struct KeepReportUntilExit {
  Result<InspectReport>& report;
  ~KeepReportUntilExit() {
    if (!report.ok()) return;
    static std::mutex mu;
    static InspectReport* kept = nullptr;
    auto* next = new InspectReport(std::move(*report));
    std::lock_guard<std::mutex> lock(mu);
    delete kept;
    kept = next;
  }
};
}  // namespace

Runner setup_inspect(CLI::App& sub) {
  auto a = std::make_shared<InspectArgs>();
  sub.add_option("SNAPSHOT", a->snapshot, "Snapshot directory or its _metadata file")->required();
  sub.add_flag("-v,--verbose", a->verbose, "Also list subtasks, handles and their files");
  sub.add_flag("--json", a->json, "Print a JSON document instead of text");
  add_remap_option(sub, &a->remap);
  sub.add_flag("--count", a->count, "Also count the entries of every state (reads all state data)");
  add_jobs_option(sub, &a->jobs, "Decode N subtasks at once for --count");
  sub.add_flag("--allow-unread", a->allow_unread, "Exit 0 even when the states of some operators could not be read");
  add_naming_options(sub, &a->naming);
  add_progress_options(sub, &a->progress);
  return [a](Io& io) {
    std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a->remap, "--remap", {a->snapshot});
    if (!remap) return kExitError;
    std::optional<OperatorNames> names = names_or_report(io, a->naming);
    if (!names) return kExitError;
    InspectOptions options;
    options.names = std::move(*names);
    options.remap = std::move(*remap);
    options.count = a->count;
    options.jobs = a->jobs;
    ProgressMeter meter(io, "inspect", a->count ? a->progress : ProgressMode::kOff);
    options.progress = meter.counters();
    Result<InspectReport> report = inspect_snapshot(a->snapshot, options);
    KeepReportUntilExit keep{report};
    meter.finish();
    if (!report.ok()) return report_error(io, report.error());
    if (a->json)
      print_json(io, [&](JsonWriter& w) { write_inspect_json(*report, a->verbose, w); });
    else write_inspect_text(*report, a->verbose, io.out);
    io.json_written = a->json;
    warn_unmatched_uids(io, report->unmatched_uids);
    // Not a fault of the snapshot: Flink stores absolute paths into storage that may have moved.
    if (size_t n = report->outside_files)
      print_warning(io, std::to_string(n) + (n == 1 ? " file is" : " files are") +
                            " read from outside the job directory " + report->job_directory +
                            " (see the report; --remap maps storage that moved)");
    size_t unread = 0;
    for (const OperatorSummary& op : report->operators) unread += op.states_error.empty() ? 0 : 1;
    if (!report->files_ok()) {
      print_warning(io, std::to_string(report->missing_files) + " missing and " +
                            std::to_string(report->short_files) + " short files");
      return kExitProblems;
    }
    // What inspect did not read, it cannot vouch for: a CI gate must not pass there unless the
    // user accepts it. The reasons are in the report ("states not read:").
    if (!unread) return kExitOk;
    print_warning(io, "the states of " + std::to_string(unread) + " operators could not all be read" +
                          (a->allow_unread ? "" : " (--allow-unread accepts that)"));
    return a->allow_unread ? kExitOk : kExitProblems;
  };
}

}  // namespace ckpt::cli
