// ckpt diff: what changed between two snapshots (man/ckpt-diff.1.md).
#include <memory>
#include <ostream>

#include "choices.h"
#include "ckpt/diff.h"
#include "command.h"
#include "jobs_arg.h"
#include "json_output.h"
#include "naming_arg.h"
#include "remap_arg.h"

namespace ckpt::cli {

namespace {

struct DiffArgs {
  std::string a, b;
  bool keys = false;
  std::string state;
  bool json = false;
  std::string format;
  int jobs = 1;
  std::vector<std::string> remap;
  NamingArgs naming;
  std::string key_serializers_from;
};

class NdjsonChanges : public KeyChangeSink {
 public:
  explicit NdjsonChanges(std::ostream& out) : out_(out) {}
  void change(const KeyChange& c) override { out_ << to_ndjson(c) << '\n'; }

 private:
  std::ostream& out_;
};

}  // namespace

Runner setup_diff(CLI::App& sub) {
  auto a = std::make_shared<DiffArgs>();
  sub.add_option("A", a->a, "The older snapshot (directory or _metadata)")->required();
  sub.add_option("B", a->b, "The newer snapshot (directory or _metadata)")->required();
  sub.add_flag("--keys", a->keys, "Also compare state entries (reads all state of both)");
  sub.add_option("--state", a->state, "With --keys: only the state with this name")->type_name("NAME");
  sub.add_flag("--json", a->json, "Print a JSON document instead of text");
  sub.add_option("--format", a->format, "With --keys: ndjson prints each differing entry instead of the report")
      ->type_name("ndjson")
      ->check(CLI::IsMember(option_choices("diff", "--format")).description(""));
  add_jobs_option(sub, &a->jobs, "With --keys: decode N subtasks of each side at once");
  add_key_serializers_option(sub, &a->key_serializers_from, "With --keys: ");
  add_remap_option(sub, &a->remap);
  add_naming_options(sub, &a->naming);
  return [a](Io& io) {
    std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a->remap, "--remap", {a->a, a->b});
    if (!remap) return kExitError;
    std::optional<OperatorNames> names = names_or_report(io, a->naming);
    if (!names) return kExitError;
    bool ndjson = a->format == "ndjson";
    if (ndjson && !a->keys) {
      print_error(io, "--format ndjson lists entry changes and needs --keys");
      return kExitError;
    }
    if (ndjson && a->json) {
      print_error(io, "--json and --format ndjson exclude each other");
      return kExitError;
    }
    DiffOptions options;
    options.keys = a->keys;
    options.state = a->state;
    options.jobs = a->jobs;
    options.remap = std::move(*remap);
    options.names = std::move(*names);
    options.key_serializers_from = a->key_serializers_from;
    NdjsonChanges changes(io.out);
    Result<DiffReport> report = diff_snapshots(a->a, a->b, options, ndjson ? &changes : nullptr);
    if (!report.ok()) return report_error(io, report.error());
    if (a->json)
      print_json(io, [&](JsonWriter& w) { write_diff_json(*report, w); });
    else if (!ndjson) write_diff_text(*report, io.out);
    io.json_written = a->json;
    warn_unmatched_uids(io, report->unmatched_uids);
    return report->differs() ? kExitProblems : kExitOk;
  };
}

}  // namespace ckpt::cli
