// ckpt advise: which state backend and checkpoint settings suit a job (man/ckpt-advise.1.md).
#include <memory>
#include <ostream>
#include <string>

#include "ckpt/advise.h"
#include "command.h"
#include "report_args.h"

namespace ckpt::cli {

namespace {
struct AdviseArgs {
  std::string path;
  bool json = false;
  ReportRunArgs run;
};
}  // namespace

Runner setup_advise(CLI::App& sub) {
  auto a = std::make_shared<AdviseArgs>();
  sub.add_option("PATH", a->path, "A snapshot, or a job's checkpoint directory (chk-*, shared/, taskowned/)")
      ->required();
  sub.add_flag("--json", a->json, "Print a JSON document instead of text");
  add_report_run_options(sub, &a->run);
  return [a](Io& io) {
    ProgressMeter meter(io, "advise", a->run.progress);
    std::optional<ReportAndAdvice> built = build_report_and_advice(io, a->path, a->run, meter.counters());
    meter.finish();
    if (!built) return kExitError;
    if (a->json) {
      io.out << advise_json(built->report, built->advice) << "\n";
      io.json_written = true;
    } else {
      io.out << advise_text(built->advice);
    }
    for (const std::string& p : built->report.problems) print_warning(io, p);
    return kExitOk;
  };
}

}  // namespace ckpt::cli
