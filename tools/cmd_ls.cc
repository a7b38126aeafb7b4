// ckpt ls: the jobs, checkpoints and savepoints under a path (man/ckpt-ls.1.md).
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "ckpt/inspect.h"
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

void write_ls_text(Io& io, const std::vector<ListedSnapshot>& found) {
  const std::string row = "{:<20} {:<32} {:<10} {:>8} {:<20} {:>10} {:<9} {:<8} {}\n";
  io.out << fmt::format(fmt::runtime(row), "JOB", "NAME", "KIND", "ID", "TIME", "SIZE", "BACKEND", "GC", "STATUS");
  for (const ListedSnapshot& s : found) {
    const bool read = s.complete && s.problem.empty();
    std::string status = !s.complete          ? "in progress (no _metadata)"
                         : !s.problem.empty() ? "unreadable: " + s.problem
                                              : "complete";
    io.out << fmt::format(fmt::runtime(row), s.job, s.name, s.kind, s.id ? std::to_string(*s.id) : "-",
                          s.time.empty() ? "-" : s.time, read ? human_size(s.state_size) : "-",
                          s.backend.empty() ? "-" : s.backend, s.gc, status);
  }
}

}  // namespace

Runner setup_ls(CLI::App& sub) {
  auto a = std::make_shared<LsArgs>();
  sub.add_option("PATH", a->path, "A snapshot, a job's checkpoint directory or a directory of jobs")->required();
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
      write_ls_text(io, *found);
    for (const ListedSnapshot& s : *found)
      if (!s.problem.empty()) return kExitProblems;
    return kExitOk;
  };
}

}  // namespace ckpt::cli
