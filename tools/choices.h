// tools/choices.h - the words an option takes, where it takes a fixed set of them: one table
// that the commands check values against and that shell completion offers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ckpt::cli {

// The words option `option` (a long flag "--to", or a positional's name "SHELL") of subcommand
// `command` takes; empty when any value goes (a path, a number).
const std::vector<std::string>& option_choices(std::string_view command, std::string_view option);

}  // namespace ckpt::cli
