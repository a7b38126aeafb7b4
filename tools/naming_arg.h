// tools/naming_arg.h - --plan, --uid and --uids: names for the operators of the snapshots read
// by inspect, dump, diff, verify, report, advise and edit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ckpt/names.h"
#include "command.h"

namespace ckpt::cli {

struct NamingArgs {
  std::string plan;               // --plan FILE
  std::vector<std::string> uids;  // --uid NAME (repeatable)
  std::string uids_file;          // --uids FILE
};

// `plan_help` replaces --plan's description where the plan does more than name (report, edit).
void add_naming_options(CLI::App& sub, NamingArgs* args, const std::string& plan_help = "");

// The names the flags give; on an unreadable file prints "ckpt: error: ..." and returns nullopt,
// after which the caller exits with kExitError.
std::optional<OperatorNames> names_or_report(Io& io, const NamingArgs& args);

// "ckpt: warning: 2 uids name no operator: a, b" when `unmatched` is not empty.
void warn_unmatched_uids(Io& io, const std::vector<std::string>& unmatched);

}  // namespace ckpt::cli
