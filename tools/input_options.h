// tools/input_options.h - the options about what a command may read (ckpt(1) OPTIONS), which any
// command takes anywhere on its command line, as the object-store options.
#pragma once

#include <string>
#include <vector>

#include "store_options.h"

namespace ckpt::cli {

const std::vector<GlobalOption>& input_options();

// Takes --follow-symlinks off `args` (up to a `--`) and sets the library's follow_symlinks()
// for as long as it lives: a command run in-process (the tests) leaves the setting as it was.
class InputOptions {
 public:
  explicit InputOptions(std::vector<std::string>& args);
  ~InputOptions();
  InputOptions(const InputOptions&) = delete;
  InputOptions& operator=(const InputOptions&) = delete;

 private:
  bool before_;
};

}  // namespace ckpt::cli
