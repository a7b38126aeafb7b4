// ckpt gc: files under a job's checkpoint directory that nothing references (man/ckpt-gc.1.md).
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "ckpt/gc.h"
#include "ckpt/inspect.h"
#include "ckpt/printable.h"
#include "command.h"
#include "json_output.h"

namespace ckpt::cli {

namespace {
struct GcArgs {
  std::string root;
  std::string older_than = "1d";
  std::vector<std::string> referenced_by;
  std::string entropy_key;
  bool allow_empty = false;
  bool apply = false;
  bool json = false;
};
}  // namespace

Runner setup_gc(CLI::App& sub) {
  auto a = std::make_shared<GcArgs>();
  sub.add_option("ROOT", a->root, "A job's checkpoint directory (holding chk-*/, shared/, taskowned/)")->required();
  sub.add_option("--older-than", a->older_than, "Keep orphans modified within this margin (default 1d)")
      ->type_name("DURATION");
  sub.add_option("--referenced-by", a->referenced_by,
                 "Another job's checkpoint directory, a savepoint directory or a snapshot whose snapshots "
                 "also reference ROOT's files (repeatable)")
      ->type_name("DIR")
      ->allow_extra_args(false);  // one DIR per flag: `--referenced-by B ROOT` must leave ROOT alone
  sub.add_option("--entropy-key", a->entropy_key,
                 "Flink's s3.entropy.key: ROOT (an s3:// URI spelled as state.checkpoints.dir, with the key) has its "
                 "data files under the prefixes the key stands for")
      ->type_name("KEY");
  sub.add_flag("--allow-empty", a->allow_empty, "Run even if no checkpoint or savepoint is retained");
  sub.add_flag("--apply", a->apply, "Delete the orphans older than the margin, logging each");
  sub.add_flag("--json", a->json, "Print a JSON document instead of text");
  return [a](Io& io) {
    Result<int64_t> margin = parse_duration(a->older_than);
    if (!margin.ok()) {
      print_error(io, "--older-than: " + margin.error().to_string());
      return kExitError;
    }
    GcOptions options;
    options.older_than_seconds = *margin;
    options.apply = a->apply;
    options.referenced_by = a->referenced_by;
    options.allow_empty = a->allow_empty;
    options.entropy_key = a->entropy_key;
    options.jobs = io.connections;
    options.on_batch = [&io](const std::vector<const GcFile*>& batch) {
      uint64_t bytes = 0;
      for (const GcFile* f : batch) bytes += f->size;
      io.err << "ckpt: deleting " << batch.size() << " objects (" << human_size(static_cast<int64_t>(bytes))
             << "): " << batch.front()->path << (batch.size() > 1 ? " .. " + batch.back()->path : "") << "\n";
    };
    // Deletions are logged on stderr as they happen, so the log survives an interrupted run.
    options.on_delete = [&io](const GcFile& f) {
      if (f.deleted)
        io.err << "ckpt: deleted " << printable(f.path) << " (" << human_size(static_cast<int64_t>(f.size)) << ")\n";
      else
        print_error(io, "'" + f.path + "': " + f.error);
    };
    Result<GcReport> report = collect_garbage(a->root, options);
    if (!report.ok()) return report_error(io, report.error());
    if (a->json)
      print_json(io, [&](JsonWriter& w) { write_gc_json(*report, w); });
    else write_gc_text(*report, options, io.out);
    io.json_written = a->json;
    return report->failed ? kExitError : kExitOk;
  };
}

}  // namespace ckpt::cli
