// ckpt compact: a RocksDB snapshot rewritten as a compact native savepoint (man/ckpt-compact.1.md).
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "choices.h"
#include "ckpt/compact.h"
#include "ckpt/inspect.h"
#include "command.h"
#include "jobs_arg.h"
#include "json_output.h"
#include "progress_meter.h"
#include "remap_arg.h"

namespace ckpt::cli {

namespace {
struct CompactArgs {
  std::string snapshot;
  std::string output;
  std::string compression = "zstd";
  int jobs = 1;
  bool force = false;
  bool json = false;
  std::vector<std::string> remap;
  ProgressMode progress = ProgressMode::kAuto;
};
}  // namespace

Runner setup_compact(CLI::App& sub) {
  auto a = std::make_shared<CompactArgs>();
  sub.add_option("SNAPSHOT", a->snapshot, "RocksDB checkpoint or native savepoint (directory or _metadata)")->required();
  sub.add_option("-o,--output", a->output, "Directory to write the savepoint to (must not exist or be empty)")
      ->required()
      ->type_name("DIR");
  sub.add_option("--compression", a->compression, "Compression of the compacted SSTs (default zstd)")
      ->type_name("zstd|lz4|snappy|none")
      ->check(CLI::IsMember(option_choices("compact", "--compression")).description(""));
  add_jobs_option(sub, &a->jobs, "Compact N subtasks at once");
  sub.add_flag("--force", a->force, "Replace an existing output directory");
  sub.add_flag("--json", a->json, "Describe what was written as JSON");
  add_remap_option(sub, &a->remap);
  add_progress_options(sub, &a->progress);
  return [a](Io& io) {
    std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a->remap, "--remap", {a->snapshot});
    if (!remap) return kExitError;
    CompactOptions options;
    options.compression = *parse_compact_compression(a->compression);
    options.jobs = a->jobs;
    options.force = a->force;
    options.remap = std::move(*remap);
    ProgressMeter meter(io, "compact", a->progress);
    options.progress = meter.counters();
    Result<CompactReport> r = compact_snapshot(a->snapshot, a->output, options);
    meter.finish();
    if (!r.ok()) return report_error(io, r.error());
    if (a->json) {
      print_json(io, [&](JsonWriter& w) { write_compact_json(*r, w); });
      return kExitOk;
    }
    io.out << fmt::format("{}: {} compacted\n", r->output,
                          counted(r->instances, "RocksDB instance", "RocksDB instances"));
    io.out << fmt::format("before: {} ({}), {}\n", counted(r->files_before, "file", "files"),
                          counted(r->sst_files_before, "SST", "SSTs"),
                          human_size(static_cast<int64_t>(r->bytes_before)));
    io.out << fmt::format("after:  {} ({}), {}\n", counted(r->files_after, "file", "files"),
                          counted(r->sst_files_after, "SST", "SSTs"), human_size(static_cast<int64_t>(r->bytes_after)));
    return kExitOk;
  };
}

}  // namespace ckpt::cli
