// ckpt ls: the jobs, checkpoints and savepoints under a path (man/ckpt-ls.1.md).
#include <memory>
#include <ostream>

#include "ckpt/query.h"
#include "command.h"
#include "json_output.h"
#include "remap_arg.h"

namespace ckpt::cli {

namespace {

struct LsArgs {
  std::string path;
  bool json = false;
  std::vector<std::string> remap;
};

}  // namespace

Runner setup_ls(CLI::App& sub) {
  auto a = std::make_shared<LsArgs>();
  sub.add_option("PATH", a->path, "A snapshot, a job's checkpoint directory or a directory of jobs or snapshots")->required();
  sub.add_flag("--json", a->json, "Print a JSON document instead of text");
  add_remap_option(sub, &a->remap);
  return [a](Io& io) {
    std::optional<std::vector<PrefixRule>> remap = prefix_rules_or_report(io, a->remap);
    if (!remap) return kExitError;
    ListOptions options;
    options.remap = std::move(*remap);
    Result<std::vector<ListedSnapshot>> found = list_snapshots(a->path, options);
    if (!found.ok()) return report_error(io, found.error());
    if (a->json)
      print_json(io, [&](JsonWriter& w) { write_ls_json(a->path, *found, w); });
    else
      io.out << ls_text(*found);
    for (const ListedSnapshot& s : *found)
      if (!s.problem.empty()) return kExitProblems;
    return kExitOk;
  };
}

}  // namespace ckpt::cli
