// tools/query_shell.h - `ckpt query --shell`: the sqlite3 shell (its line editing, dot commands
// and output modes) with libckpt_sqlite.so loaded and the query's tables made in it.
#pragma once

#include <string>
#include <vector>

#include "command.h"

namespace ckpt::cli {

// Where the SQLite extension is: $CKPT_SQLITE_EXTENSION, else beside this program's libckpt
// (installed: <prefix>/<libdir>; built: build/lib). "" when found nowhere.
std::string sqlite_extension_path();

// Runs `sqlite3` on the terminal with each table of a session over `paths` (ckpt_sqlite.cc's
// `ckpt` module), and returns its exit status; kExitError, said on io.err, when the paths hold
// no snapshot or the shell or the extension cannot be found.
// `module_args` go to each table as the `ckpt` module takes them (`plan='FILE'`, `jobs=2`).
int run_query_shell(Io& io, const std::vector<std::string>& paths, const std::vector<std::string>& module_args);

}  // namespace ckpt::cli
