// The subcommand table: one row per subcommand, in the order `ckpt --help` lists them, which is
// also the order of the README's table and of ckpt(1) (tests/docs/command_order_test.cc): reading
// a snapshot (inspect, dump, verify), working it in parts and restoring it, rewriting it
// (convert, edit, upgrade), making and comparing snapshots, housekeeping, reports, then the shell's.
#include "command.h"

namespace ckpt::cli {

Runner setup_inspect(CLI::App& sub);
Runner setup_relocate(CLI::App& sub);
Runner setup_dump(CLI::App& sub);
Runner setup_convert(CLI::App& sub);
Runner setup_edit(CLI::App& sub);
Runner setup_upgrade(CLI::App& sub);
Runner setup_load(CLI::App& sub);
Runner setup_generate(CLI::App& sub);
Runner setup_diff(CLI::App& sub);
Runner setup_gc(CLI::App& sub);
Runner setup_report(CLI::App& sub);
Runner setup_advise(CLI::App& sub);
Runner setup_compact(CLI::App& sub);
Runner setup_verify(CLI::App& sub);
Runner setup_plan(CLI::App& sub);
Runner setup_query(CLI::App& sub);
Runner setup_ls(CLI::App& sub);
Runner setup_restore(CLI::App& sub);
Runner setup_completion(CLI::App& sub);
Runner setup_help(CLI::App& sub);

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"inspect", "Show what a checkpoint or savepoint holds", setup_inspect},
      {"dump", "Print every state entry of a snapshot, decoded", setup_dump},
      {"verify", "Check that a snapshot is complete and readable", setup_verify},
      {"plan", "Cut a snapshot's subtasks into N parts balanced by bytes, for a job runner", setup_plan},
      {"restore", "Write each subtask's keyed state as a RocksDB instance", setup_restore},
      {"convert", "Rewrite a snapshot for another state backend", setup_convert},
      {"edit", "Change a savepoint offline: operators, states, keys, max parallelism", setup_edit},
      {"upgrade", "Check whether Flink 2.x restores each state of a 1.x snapshot, and why not", setup_upgrade},
      {"load", "Write a savepoint from dump's entries, shaped like a template", setup_load},
      {"generate", "Write realistic synthetic snapshots", setup_generate},
      {"query", "Run SQL over the state of snapshots: entries, operators, states, files", setup_query},
      {"ls", "List the jobs, checkpoints and savepoints under a path", setup_ls},
      {"diff", "Show what changed between two snapshots", setup_diff},
      {"compact", "Rewrite a RocksDB snapshot as a compact native savepoint", setup_compact},
      {"gc", "Find (and delete) files no retained checkpoint references", setup_gc},
      {"relocate", "Rewrite file paths in a _metadata file", setup_relocate},
      {"report", "Draw a job's state as one HTML page: sizes, skew, history", setup_report},
      {"advise", "Recommend a state backend and checkpoint settings, with evidence", setup_advise},
      {"completion", "Print a shell completion script (bash, zsh or fish)", setup_completion},
      {"help", "Print the usage of ckpt or of one command", setup_help},
  };
  return table;
}

}  // namespace ckpt::cli
