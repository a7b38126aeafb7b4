// tools/shard_arg.h - `--shard K/N`, shared by the subcommands that run one part of a snapshot
// for a job runner (ckpt/plan.h).
#pragma once

#include <optional>
#include <string>

#include "ckpt/plan.h"
#include "command.h"

namespace ckpt::cli {

// Registers `--shard K/N` (`what` ends its help: what the part does).
void add_shard_option(CLI::App& sub, std::string* spec, const std::string& what);

// convert's and edit's `--shard K/N` (the part's files beside the output) and `--finish` (the
// last step, assembling the output from every part).
void add_part_options(CLI::App& sub, std::string* spec, bool* finish);

// Parses `spec` into `*shard` (left unset when `spec` is empty); on a malformed spec reports it
// and returns false, after which the caller exits with kExitError.
bool shard_or_report(Io& io, const std::string& spec, std::optional<ShardSpec>* shard);

}  // namespace ckpt::cli
