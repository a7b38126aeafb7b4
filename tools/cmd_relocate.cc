// Placeholder until the subcommand lands.
#include "command.h"

namespace ckpt::cli {
Runner setup_relocate(CLI::App& sub) {
  return [](Io& io) { print_error(io, "relocate: not implemented yet"); return kExitError; };
}
}  // namespace ckpt::cli
