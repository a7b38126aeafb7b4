// tools/jobs_arg.h - `-j,--jobs N`: how many subtasks (or files) a command works on at once. One
// range and one check for every command that has it, so a value one command takes no other
// refuses.
#pragma once

#include <string>

#include "command.h"

namespace ckpt::cli {

// Threads are cheap next to a subtask's work and the pools never start more than they have
// work for, so the bound only keeps a typo (-j 10000) from starting thousands of threads.
inline constexpr int kMaxJobs = 1024;

// Registers -j,--jobs N in [1, kMaxJobs]; `help` says what N counts.
void add_jobs_option(CLI::App& sub, int* jobs, const std::string& help);

}  // namespace ckpt::cli
