// tools/progress_meter.h - one line of progress on standard error while a command works.
//
// The library counts into a ckpt::Progress (ckpt/progress.h); the meter reads it from a thread
// of its own and redraws "ckpt dump: 312.4 MiB of 925.0 MiB (34%), 2104311 entries, 48.0 MiB/s,
// ETA 13 s" in place on a terminal, or prints such a line every few seconds when --progress
// forces it onto a file or pipe. Never on standard output, so a dump piped into jq stays clean.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "ckpt/progress.h"
#include "command.h"

namespace ckpt::cli {

enum class ProgressMode { kAuto, kOn, kOff };

// --progress (show it even when standard error is not a terminal) and --quiet (never).
void add_progress_options(CLI::App& sub, ProgressMode* mode);

class ProgressMeter {
 public:
  // Shown for kOn, and for kAuto when standard error is a terminal; `verb` names the command.
  ProgressMeter(Io& io, std::string verb, ProgressMode mode);
  ~ProgressMeter();  // as finish()
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  // What the library counts into; null when progress is not shown (then nothing is counted).
  Progress* counters() { return shown_ ? &progress_ : nullptr; }
  // Stops the thread; on a terminal clears the line, when forced prints a last summary line.
  // Call before printing the command's own result.
  void finish();
  // The line as it is drawn now (for tests): sizes, entries, rate, ETA. Work counted in parts
  // (generate) shows entries, the share of parts done and an entry rate instead of sizes.
  static std::string render(const std::string& verb, uint64_t done, uint64_t total, uint64_t entries,
                            double seconds, uint64_t parts_done = 0, uint64_t parts_total = 0);

 private:
  void run();

  Io& io_;
  std::string verb_;
  bool shown_ = false;
  bool terminal_ = false;
  Progress progress_;
  std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ckpt::cli
