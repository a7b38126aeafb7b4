// ckpt: the program. Everything happens in the library and in tools/cmd_*.cc.
#include <unistd.h>

#include <iostream>

#include "command.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  ckpt::cli::Io io{std::cout, std::cerr, ::isatty(1) == 1, ::isatty(2) == 1};
  int status = ckpt::cli::run(argc, argv, io);
  std::cout.flush();
  return status;
}
