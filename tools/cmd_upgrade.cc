// ckpt upgrade: will Flink 2.x restore this 1.x snapshot's states? (man/ckpt-upgrade.1.md)
#include <memory>
#include <ostream>

#include "ckpt/upgrade.h"
#include "command.h"
#include "json_output.h"
#include "remap_arg.h"

namespace ckpt::cli {

namespace {
struct UpgradeArgs {
  std::string snapshot;
  std::string to;
  bool check = false;
  std::string output;
  bool force = false;
  bool drop_incompatible = false;
  bool json = false;
  std::string key_serializers_from;
  std::vector<std::string> remap;
};
}  // namespace

Runner setup_upgrade(CLI::App& sub) {
  auto a = std::make_shared<UpgradeArgs>();
  sub.add_option("SNAPSHOT", a->snapshot, "Snapshot directory or its _metadata file")->required();
  sub.add_option("--to", a->to, "Target Flink version: 2.x")->required()->type_name("KIND");
  sub.add_flag("--check", a->check, "Say for every state whether the target restores it, and why not");
  sub.add_option("-o,--output", a->output,
                 "Write the snapshot with its legacy serializer snapshots and POJO collection fields rewritten to DIR")
      ->type_name("DIR");
  sub.add_flag("--force", a->force, "Replace an existing output directory");
  sub.add_flag("--drop-incompatible", a->drop_incompatible,
               "With --output: leave out the states that cannot be rewritten");
  sub.add_flag("--json", a->json, "Print the check or the rewrite as one JSON document");
  add_key_serializers_option(sub, &a->key_serializers_from, "With --output: ");
  add_remap_option(sub, &a->remap);
  return [a](Io& io) {
    if (a->check == !a->output.empty()) {
      print_error(io, "ckpt upgrade needs one of --check (judge every state) and --output DIR (rewrite them)");
      return kExitError;
    }
    if (a->output.empty() && (a->force || a->drop_incompatible || !a->key_serializers_from.empty())) {
      print_error(io, "--force, --drop-incompatible and --key-serializers-from go with --output");
      return kExitError;
    }
    std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a->remap, "--remap", {a->snapshot});
    if (!remap) return kExitError;
    if (!a->output.empty()) {
      UpgradeWriteOptions w;
      w.target = a->to;
      w.output = a->output;
      w.force = a->force;
      w.drop_incompatible = a->drop_incompatible;
      w.key_serializers_from = a->key_serializers_from;
      w.remap = std::move(*remap);
      Result<UpgradeWriteReport> written = upgrade_snapshot(a->snapshot, w);
      if (!written.ok()) return report_error(io, written.error());
      if (a->json)
        print_json(io, [&](JsonWriter& w) { write_upgrade_output_json(a->snapshot, *written, w); });
      else
        io.out << upgrade_write_text(*written);
      // States copied unchanged will still not restore in Flink 2.x.
      return written->left > 0 ? kExitProblems : kExitOk;
    }
    UpgradeOptions options;
    options.target = a->to;
    options.remap = std::move(*remap);
    Result<UpgradeCheckReport> report = check_upgrade(a->snapshot, options);
    if (!report.ok()) return report_error(io, report.error());
    if (a->json)
      print_json(io, [&](JsonWriter& w) { write_upgrade_json(*report, w); });
    else
      io.out << upgrade_check_text(*report);
    for (const std::string& p : report->problems) print_warning(io, p);
    // States that could not be read were not judged: the answer is incomplete.
    if (!report->problems.empty()) return kExitError;
    return report->fail_count + report->unknown_count > 0 ? kExitProblems : kExitOk;
  };
}

}  // namespace ckpt::cli
