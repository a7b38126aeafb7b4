// ckpt completion SHELL: print the completion script of this program (man/ckpt-completion.1.md).
#include <memory>

#include "choices.h"
#include "command.h"
#include "completion.h"

namespace ckpt::cli {

Runner setup_completion(CLI::App& sub) {
  auto shell = std::make_shared<std::string>();
  sub.add_option("SHELL", *shell, "bash, zsh or fish")
      ->required()
      ->type_name("bash|zsh|fish")
      ->check(CLI::IsMember(option_choices("completion", "SHELL")).description(""));
  const CLI::App* app = sub.get_parent();
  return [shell, app](Io& io) {
    if (!write_completion(io.out, *shell, *app)) {
      print_error(io, "no completion for shell '" + *shell + "': bash, zsh or fish");
      return kExitError;
    }
    return kExitOk;
  };
}

}  // namespace ckpt::cli
