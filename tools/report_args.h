// tools/report_args.h - what ckpt report and ckpt advise both take and do: read the snapshots
// into a report and apply the advice rules to it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ckpt/advise.h"
#include "ckpt/report.h"
#include "command.h"
#include "naming_arg.h"
#include "progress_meter.h"

namespace ckpt::cli {

struct ReportRunArgs {
  std::string tm_memory;
  int32_t slots = 1;
  bool fast = false;
  int jobs = 1;
  std::vector<std::string> remap;
  std::vector<std::string> ttls;  // STATE=DURATION
  NamingArgs naming;              // --plan (also the TTLs of its nodes), --uid, --uids
  std::string now;
  ProgressMode progress = ProgressMode::kAuto;
};

// --tm-memory, --slots, --fast, --jobs, --ttl, --plan, --uid, --uids, --now, --remap, --progress, -q.
void add_report_run_options(CLI::App& sub, ReportRunArgs* a);

struct ReportAndAdvice {
  Report report;
  AdviseReport advice;
};

// The report of PATH and its advice; nullopt after printing the error. Warns of uids that
// name no operator.
std::optional<ReportAndAdvice> build_report_and_advice(Io& io, const std::string& path, const ReportRunArgs& a,
                                                       Progress* progress);

}  // namespace ckpt::cli
