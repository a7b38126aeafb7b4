// tools/remap_arg.h - the repeatable PREFIX=DIR options (--remap, relocate's --map) shared by
// the subcommands that read snapshots.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ckpt/resolve.h"
#include "command.h"

namespace ckpt::cli {

// Registers `--remap PREFIX=DIR` (repeatable), collecting the raw specs into `specs`.
void add_remap_option(CLI::App& sub, std::vector<std::string>* specs);

// Registers `--key-serializers-from SNAPSHOT`: another snapshot of the job whose keyed proxies
// name the key serializers changelog handles lack (found through --remap too). `when` prefixes
// the help where the flag only matters with another one ("With --keys: ").
void add_key_serializers_option(CLI::App& sub, std::string* snapshot, const std::string& when = "");

// The parsed rules; on a malformed spec prints "ckpt: error: ..." and returns nullopt, after
// which the caller exits with kExitError.
// With `snapshots`, a rule that matches no file reference of any of them is reported as a
// warning (a typo would otherwise only show as files not found); snapshots that cannot be read
// are left to the command, which reports them.
std::optional<std::vector<PrefixRule>> prefix_rules_or_report(Io& io, const std::vector<std::string>& specs,
                                                              const char* flag = "--remap",
                                                              const std::vector<std::string>& snapshots = {});

}  // namespace ckpt::cli
