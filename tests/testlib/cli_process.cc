// The ckpt binary run as a child process with its output captured in files.
#include "testlib/cli_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "testlib/test_support.h"

extern char** environ;

namespace ckpt::test {

CliResult run_cli_process(const std::vector<std::string>& args, int seconds) {
  std::vector<std::string> argv = {CKPT_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, seconds);
}

CliResult run_shell(const std::string& script, int seconds) { return run_program({"sh", "-c", script}, seconds); }

std::string build_dir() { return CKPT_BUILD_DIR; }

CliResult run_program(const std::vector<std::string>& program, int seconds) {
  ScratchDir scratch;
  const std::string out = scratch / "out", err = scratch / "err";
  std::vector<std::string> argv = {"timeout", "-k", "5", std::to_string(seconds)};
  argv.insert(argv.end(), program.begin(), program.end());
  std::vector<char*> raw;
  for (std::string& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CliResult r;
  pid_t pid = -1;
  int spawned = posix_spawnp(&pid, "timeout", &actions, nullptr, raw.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return r;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

}  // namespace ckpt::test
