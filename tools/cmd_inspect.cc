// Placeholder until the subcommand lands.
#include "command.h"

namespace ckpt::cli {
Runner setup_inspect(CLI::App& sub) {
  return [](Io& io) { print_error(io, "inspect: not implemented yet"); return kExitError; };
}
}  // namespace ckpt::cli
