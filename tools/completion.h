// tools/completion.h - shell completion scripts written from the CLI11 app itself, so that
// every subcommand and flag the program parses is completed and nothing else.
#pragma once

#include <ostream>
#include <string_view>

#include <CLI/CLI.hpp>

namespace ckpt::cli {

// The script for `shell` ("bash", "zsh" or "fish") completing `app`'s subcommands and their
// flags; false for another shell.
bool write_completion(std::ostream& out, std::string_view shell, const CLI::App& app);

}  // namespace ckpt::cli
