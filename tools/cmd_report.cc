// ckpt report: a job's state as one self-contained HTML page, or JSON (man/ckpt-report.1.md).
#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ckpt/advise.h"
#include "ckpt/inspect.h"
#include "ckpt/io.h"
#include "ckpt/report.h"
#include "command.h"
#include "progress_meter.h"
#include "remap_arg.h"
#include "report_args.h"

#ifndef CKPT_CHARTJS_PATH
#define CKPT_CHARTJS_PATH ""
#endif

namespace ckpt::cli {

namespace {
struct ReportArgs {
  std::string path;
  std::string output;
  bool json = false;
  bool force = false;
  ReportRunArgs run;
};

// Chart.js from its installed package (libjs-chart.js), found when ckpt was built.
Result<std::string> chart_js() {
  const std::string path = CKPT_CHARTJS_PATH;
  if (path.empty())
    return Error(ErrorCode::kNotFound,
                 "Chart.js was not found when ckpt was built (install libjs-chart.js, or configure with "
                 "-DCKPT_CHARTJS=/path/to/chart.umd.js)");
  std::ifstream in(path, std::ios::binary);
  std::string js((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof())
    return Error(ErrorCode::kNotFound, "Chart.js is missing or unreadable (install libjs-chart.js)").with_file(path);
  if (js.empty()) return Error(ErrorCode::kNotFound, "Chart.js is missing (install libjs-chart.js)").with_file(path);
  // Embedded in a <script> element: the text must not end it.
  if (js.find("</script") != std::string::npos)
    return Error(ErrorCode::kNotSupported, "Chart.js contains \"</script\" and cannot be embedded").with_file(path);
  return js;
}
}  // namespace

Runner setup_report(CLI::App& sub) {
  auto a = std::make_shared<ReportArgs>();
  sub.add_option("PATH", a->path, "A snapshot, or a job's checkpoint directory (chk-*, shared/, taskowned/)")
      ->required();
  sub.add_option("-o,--output", a->output, "Write the HTML page to FILE")->type_name("FILE");
  sub.add_flag("--json", a->json, "Print the report's data as JSON on standard output");
  sub.add_flag("--force", a->force, "Replace an existing FILE");
  add_report_run_options(sub, &a->run);
  return [a](Io& io) {
    if (a->output.empty() && !a->json) {
      print_error(io, "--output FILE or --json is required");
      return kExitError;
    }
    std::optional<std::string> js;
    if (!a->output.empty()) {
      Result<std::string> r = chart_js();
      if (!r.ok()) return report_error(io, r.error());
      js = std::move(*r);
    }
    ProgressMeter meter(io, "report", a->run.progress);
    std::optional<ReportAndAdvice> built = build_report_and_advice(io, a->path, a->run, meter.counters());
    meter.finish();
    if (!built) return kExitError;
    const std::string json = report_json(built->report, advise_json(built->report, built->advice));
    if (js) {
      const std::string html = report_html(built->report, json, *js);
      Status s = publish_file(a->output, html, a->force);
      if (!s.ok()) return report_error(io, s.error());
      // As every writer says what it wrote; with --json, standard output is the document's.
      if (!a->json)
        io.out << fmt::format("{}: HTML report of {}, {}, {}\n", a->output,
                              counted(built->report.operators.size(), "operator", "operators"),
                              counted(std::max<size_t>(built->report.history.size(), 1), "snapshot", "snapshots"),
                              counted(html.size(), "byte", "bytes"));
    }
    if (a->json) {
      io.out << json << "\n";
      io.json_written = true;
    }
    for (const std::string& p : built->report.problems) print_warning(io, p);
    return kExitOk;
  };
}

}  // namespace ckpt::cli
