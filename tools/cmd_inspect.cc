// ckpt inspect: what a checkpoint or savepoint holds (man/ckpt-inspect.1.md).
#include <memory>

#include "ckpt/inspect.h"
#include "command.h"

namespace ckpt::cli {

namespace {
struct InspectArgs {
  std::string snapshot;
  bool verbose = false;
  bool json = false;
  std::vector<std::string> remap;
};
}  // namespace

Runner setup_inspect(CLI::App& sub) {
  auto a = std::make_shared<InspectArgs>();
  sub.add_option("SNAPSHOT", a->snapshot, "Snapshot directory or its _metadata file")->required();
  sub.add_flag("-v,--verbose", a->verbose, "Also list subtasks, handles and their files");
  sub.add_flag("--json", a->json, "Print a JSON document instead of text");
  sub.add_option("--remap", a->remap, "Look for files under URI prefix PREFIX in local directory DIR (repeatable)")
      ->type_name("PREFIX=DIR");
  return [a](Io& io) {
    Result<std::vector<PrefixRule>> remap = parse_prefix_rules(a->remap, "--remap");
    if (!remap.ok()) {
      print_error(io, remap.error().to_string());
      return kExitError;
    }
    Result<InspectReport> report = inspect_snapshot(a->snapshot, InspectOptions{std::move(*remap)});
    if (!report.ok()) {
      print_error(io, report.error().to_string());
      return kExitError;
    }
    if (a->json) write_inspect_json(*report, a->verbose, io.out);
    else write_inspect_text(*report, a->verbose, io.out);
    if (!report->files_ok()) {
      print_warning(io, std::to_string(report->missing_files) + " missing and " +
                            std::to_string(report->short_files) + " short files");
      return kExitProblems;
    }
    return kExitOk;
  };
}

}  // namespace ckpt::cli
