// The shared --remap option and its parsing.
#include "remap_arg.h"

namespace ckpt::cli {

void add_remap_option(CLI::App& sub, std::vector<std::string>* specs) {
  sub.add_option("--remap", *specs, "Look for files under URI prefix PREFIX in local directory DIR (repeatable)")
      ->type_name("PREFIX=DIR");
}

std::optional<std::vector<PrefixRule>> prefix_rules_or_report(Io& io, const std::vector<std::string>& specs,
                                                              const char* flag) {
  Result<std::vector<PrefixRule>> rules = parse_prefix_rules(specs, flag);
  if (!rules.ok()) {
    print_error(io, rules.error().to_string());
    return std::nullopt;
  }
  return std::move(*rules);
}

}  // namespace ckpt::cli
