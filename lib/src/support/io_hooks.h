// support/io_hooks.h - test seams of the output layer (ckpt/io.h).
//
// Empty in production. Tests set them to see which paths were synced, and to act in the window
// between an output's last sync and the rename that publishes it, where another process
// writing into the output directory would strike. Set them before an operation starts and
// clear them after: `synced` may be called from the operation's worker threads.
#pragma once

#include <functional>
#include <string>

namespace ckpt {

struct IoHooks {
  std::function<void(const std::string& path)> synced;  // after each successful fsync
  std::function<void(const std::string& temp, const std::string& final_path)> before_commit;
};

IoHooks& io_hooks();

}  // namespace ckpt
