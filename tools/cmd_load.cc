// ckpt load: write a savepoint from dump's NDJSON, shaped like a template (man/ckpt-load.1.md).
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "ckpt/file_system.h"
#include "ckpt/io.h"
#include "ckpt/load.h"
#include "command.h"
#include "jobs_arg.h"
#include "json_output.h"
#include "progress_meter.h"
#include "remap_arg.h"
#include "written_counts.h"

namespace ckpt::cli {

namespace {
struct LoadArgs {
  std::string input = "-";
  std::string like;
  std::string spec;
  std::string output;
  std::string to;
  bool force = false;
  bool json = false;
  int jobs = 1;
  std::vector<std::string> remap;
  ProgressMode progress = ProgressMode::kAuto;
};
}  // namespace

Runner setup_load(CLI::App& sub) {
  auto a = std::make_shared<LoadArgs>();
  sub.add_option("FILE", a->input, "NDJSON entries as ckpt dump prints them (- or none: standard input)");
  auto* like =
      sub.add_option("--like", a->like, "Template snapshot: its operators, parallelism, states and serializers")
          ->type_name("SNAPSHOT");
  auto* spec = sub.add_option("--spec", a->spec,
                              "Bootstrap without a template: operators, parallelism, states and their Flink types "
                              "from a JSON spec (formats/load-spec.md)")
                   ->type_name("SPEC.json");
  like->excludes(spec);
  spec->excludes(like);
  sub.add_option("-o,--output", a->output, "Directory to create (must not exist or be empty)")
      ->required()
      ->type_name("DIR");
  sub.add_option("--to", a->to,
                 "Layout of keyed state: rocksdb, heap (or hashmap) or canonical (default: the template's)")
      ->type_name("KIND");
  sub.add_flag("--force", a->force, "Replace an existing output directory");
  sub.add_flag("--json", a->json, "Describe what was written as JSON");
  add_jobs_option(sub, &a->jobs, "Threads encoding lines and subtasks written at once");
  add_remap_option(sub, &a->remap);
  add_progress_options(sub, &a->progress);
  return [a](Io& io) {
    if (a->like.empty() == a->spec.empty())
      return report_error(
          io, Error(ErrorCode::kInvalidArgument, "expected a template (--like SNAPSHOT) or a spec (--spec SPEC.json)"));
    LoadOptions options;
    options.jobs = a->jobs;
    if (!a->to.empty()) {
      Result<ConvertTarget> to = parse_convert_target(a->to);
      if (!to.ok()) return report_error(io, to.error());
      options.to = *to;
    }
    std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a->remap, "--remap", {a->like});
    if (!remap) return kExitError;
    options.like = a->like;
    if (!a->spec.empty()) {
      Result<std::string> text = read_whole_file(a->spec, uint64_t{16} << 20);
      if (!text.ok()) return report_error(io, text.error());
      options.spec_text = std::move(*text);
      options.spec_name = a->spec;
    }
    options.output = a->output;
    options.force = a->force;
    options.remap = std::move(*remap);
    std::ifstream file;
    std::istream* in = &std::cin;
    std::shared_ptr<ReadableFile> stored;  // an input not on the disk (s3://...), downloaded while it is read
    if (a->input != "-") {
      file.open(a->input, std::ios::binary);
      if (!file) {
        Result<std::string> local = Error(ErrorCode::kNotFound, "");
        if (Result<std::shared_ptr<FileSystem>> files = file_system_for(a->input); files.ok())
          if (Result<std::shared_ptr<ReadableFile>> opened = (*files)->open(a->input); opened.ok()) {
            stored = *opened;
            local = stored->local_path();
          }
        if (local.ok()) file.open(*local, std::ios::binary);
        if (!file)
          return report_error(io, Error(ErrorCode::kNotFound, fmt::format("'{}': cannot open the entries", a->input)));
      }
      in = &file;
    }
    ProgressMeter meter(io, "load", a->progress);
    options.progress = meter.counters();
    Result<LoadSummary> s = load_snapshot(*in, a->input, options);
    meter.finish();
    if (!s.ok()) return report_error(io, s.error());
    if (a->json) {
      print_json(io, [&](JsonWriter& w) { write_load_json(a->spec.empty() ? a->like : a->spec, a->input, *s, w); });
      return kExitOk;
    }
    io.out << fmt::format("{}: {} from {} entries ({} keyed, {} timers, {} operator state), {}\n", s->written.output,
                          s->written.kind, s->lines, s->keyed, s->timers, s->operator_entries,
                          written_counts(s->written));
    return kExitOk;
  };
}

}  // namespace ckpt::cli
