#include "input_options.h"

#include <algorithm>

#include "ckpt/resolve.h"

namespace ckpt::cli {

const std::vector<GlobalOption>& input_options() {
  static const std::vector<GlobalOption> options = {
      {"--follow-symlinks", "", "Read state files that are symbolic links out of the snapshot"},
  };
  return options;
}

InputOptions::InputOptions(std::vector<std::string>& args) : before_(follow_symlinks()) {
  const auto end = std::find(args.begin(), args.end(), "--");
  const auto kept = std::remove(args.begin(), end, "--follow-symlinks");
  if (kept == end) return;
  args.erase(kept, end);
  set_follow_symlinks(true);
}

InputOptions::~InputOptions() { set_follow_symlinks(before_); }

}  // namespace ckpt::cli
