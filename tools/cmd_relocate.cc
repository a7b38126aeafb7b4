// ckpt relocate: rewrite the file paths of a _metadata into a new file (man/ckpt-relocate.1.md).
#include <memory>

#include <fmt/format.h>

#include "ckpt/inspect.h"
#include "ckpt/relocate.h"
#include "command.h"
#include "json_output.h"
#include "remap_arg.h"

namespace ckpt::cli {

namespace {
struct RelocateArgs {
  std::string snapshot;
  std::string output;
  std::vector<std::string> maps;
  bool relative = false;
  bool force = false;
  bool json = false;
};
}  // namespace

Runner setup_relocate(CLI::App& sub) {
  auto a = std::make_shared<RelocateArgs>();
  sub.add_option("SNAPSHOT", a->snapshot, "Snapshot directory or its _metadata file")->required();
  sub.add_option("-o,--output", a->output, "Where to write the new _metadata (never the input)")
      ->required()
      ->type_name("FILE");
  sub.add_option("--map", a->maps, "Replace path prefix OLD by NEW in every file reference (repeatable)")
      ->type_name("OLD=NEW");
  sub.add_flag("--relative", a->relative,
               "Make absolute file references that point into the snapshot directory relative");
  sub.add_flag("--force", a->force, "Replace an existing output file");
  sub.add_flag("--json", a->json, "Describe what was written as JSON");
  return [a](Io& io) {
    std::optional<std::vector<PrefixRule>> maps = prefix_rules_or_report(io, a->maps, "--map");
    if (!maps) return kExitError;
    Result<RelocateStats> stats = relocate_snapshot(a->snapshot, a->output, RelocateOptions{std::move(*maps), a->relative, a->force});
    if (!stats.ok()) return report_error(io, stats.error());
    if (a->json) {
      print_json(io, [&](JsonWriter& w) { write_relocate_json(a->snapshot, a->output, *stats, w); });
      return kExitOk;
    }
    io.out << fmt::format("{}: {} rewritten, {} made relative{}\n", a->output,
                          counted(stats->rewritten, "path", "paths"), stats->made_relative,
                          stats->changed() ? "" : " (a byte-for-byte copy)");
    return kExitOk;
  };
}

}  // namespace ckpt::cli
