// ckpt query --shell (tools/query_shell.h).
#include "query_shell.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <ostream>

#include "ckpt/query_session.h"

namespace ckpt::cli {

namespace {

namespace fs = std::filesystem;

// `program` on PATH, or "".
std::string on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    fs::path candidate = fs::path(dirs.substr(start, end - start)) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    start = end + 1;
  }
  return "";
}

}  // namespace

std::string sqlite_extension_path() {
  if (const char* e = std::getenv("CKPT_SQLITE_EXTENSION"); e && *e) return e;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  for (const fs::path& dir : {exe.parent_path().parent_path() / CKPT_INSTALL_LIBDIR,  // installed
                              exe.parent_path().parent_path() / "lib"}) {             // the build tree
    const fs::path candidate = dir / "libckpt_sqlite.so";
    if (fs::exists(candidate, ec)) return candidate.string();
  }
  return "";
}

int run_query_shell(Io& io, const std::vector<std::string>& paths, const std::vector<std::string>& module_args) {
  // The paths checked here, so that a mistyped one is this command's error, not the shell's.
  Result<std::unique_ptr<QuerySession>> session = QuerySession::open(paths, {});
  if (!session.ok()) return report_error(io, session.error());
  const std::string extension = sqlite_extension_path();
  if (extension.empty()) {
    print_error(io,
                "the SQLite extension libckpt_sqlite.so is not installed beside ckpt (or name it in "
                "CKPT_SQLITE_EXTENSION)");
    return kExitError;
  }
  const std::string shell = on_path("sqlite3");
  if (shell.empty()) {
    print_error(io, "--shell runs the sqlite3 shell, which is not on PATH (Debian: apt install sqlite3)");
    return kExitError;
  }
  std::string located;
  for (const std::string& p : paths) {
    std::error_code ec;
    located += ", " + sql_literal(fs::absolute(p, ec).string());
  }
  for (const std::string& a : module_args) located += ", " + a;
  std::vector<std::string> args = {shell, "-header", "-cmd", ".load " + sql_literal(extension)};
  for (const std::string& table : (*session)->tables())
    args.insert(args.end(), {"-cmd", "CREATE VIRTUAL TABLE temp." + sql_identifier(table) +
                                         " USING ckpt(table=" + sql_literal(table) + located + ");"});
  args.push_back(":memory:");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const pid_t child = ::fork();
  if (child < 0) {
    print_error(io, "cannot start the sqlite3 shell");
    return kExitError;
  }
  if (child == 0) {
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : kExitError;
}

}  // namespace ckpt::cli
