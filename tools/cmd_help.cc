// ckpt help [COMMAND]: the --help of the program or of one subcommand (man/ckpt-help.1.md).
#include <memory>

#include "command.h"

namespace ckpt::cli {

Runner setup_help(CLI::App& sub) {
  auto name = std::make_shared<std::string>();
  sub.add_option("COMMAND", *name, "The subcommand whose usage to print");
  CLI::App* app = sub.get_parent();
  return [name, app](Io& io) {
    if (name->empty()) {
      io.out << app->help();
      return kExitOk;
    }
    for (CLI::App* s : app->get_subcommands([](CLI::App*) { return true; }))
      if (s->get_name() == *name) {
        io.out << s->help();
        return kExitOk;
      }
    print_error(io, "no command '" + *name + "'; run 'ckpt --help' for the list");
    return kExitError;
  };
}

}  // namespace ckpt::cli
