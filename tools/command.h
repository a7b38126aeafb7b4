// tools/command.h - the subcommand table, in the manner of git.c's commands[].
//
// Adding a subcommand: write tools/cmd_<name>.cc with a setup_<name>() that registers its
// flags on the CLI11 sub-app and returns the function to run; add a row to commands.cc; write
// man/ckpt-<name>.1.md (tests/docs checks it against --help); add tests.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ckpt/error.h"

namespace ckpt::cli {

// Exit statuses shared by every subcommand (documented in man/ckpt.1.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1;  // ran, found problems (verify, diff: differences)
inline constexpr int kExitError = 2;     // could not run: bad input, usage, I/O

// Where a subcommand writes; tests pass string streams.
struct Io {
  std::ostream& out;
  std::ostream& err;
  bool out_is_terminal = false;
  bool err_is_terminal = false;
  // Set by run() when the command line has --json: a failure is then also a JSON object on
  // `out` (formats/json.md §3), so a script reading stdout learns what went wrong.
  bool json = false;
  // A JSON document or error object is on `out`: run() adds no error object of its own.
  bool json_written = false;
  std::string last_error = {};  // print_error's last message, for the error object of a failure
  int connections = 8;  // --connections
  std::string command = {};  // the subcommand run, for the hints of its errors
};

using Runner = std::function<int(Io&)>;

struct Command {
  const char* name;
  const char* summary;
  Runner (*setup)(CLI::App& sub);
};

const std::vector<Command>& commands();

// Parse argv and run one subcommand. Never throws; returns the exit status.
int run(int argc, const char* const* argv, Io& io);
int run(const std::vector<std::string>& args, Io& io);  // args without argv[0]

// "ckpt: error: <message>" on io.err.
void print_error(Io& io, const std::string& message);
// A command's failure: print_error(e.to_string()) and, under --json, the error object with
// e's code, file and offset on io.out. Returns kExitError.
int report_error(Io& io, const Error& e);
void print_warning(Io& io, const std::string& message);

}  // namespace ckpt::cli
