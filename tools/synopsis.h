// tools/synopsis.h - the usage line of a subcommand, generated from its CLI11 options.
//
// The rule (enforced against man/ckpt-<cmd>.1.md by tests/docs/man_help_test.cc): "ckpt
// <cmd>", then the positionals by name (in [ ] when optional), then the options in the order
// they were added: a flag as its short name if it has one, else its long name; an option with
// a value as "--long VALUE" (VALUE = its type name without validator descriptions), or
// "-s VALUE" if it has no long name; optional ones in [ ]; repeatable ones followed by "...".
// `--help` is left out.
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

namespace ckpt::cli {

std::string synopsis(const CLI::App& sub);

// A formatter whose "Usage:" line is synopsis(); installed on every subcommand.
std::shared_ptr<CLI::Formatter> synopsis_formatter();

}  // namespace ckpt::cli
