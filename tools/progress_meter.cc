// One line of progress on standard error (tools/progress_meter.h).
#include "progress_meter.h"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "ckpt/inspect.h"

namespace ckpt::cli {

namespace {
// Redraws on a terminal; lines into a file or pipe are for a log, a few per minute is enough.
constexpr auto kTerminalPeriod = std::chrono::milliseconds(250);
constexpr auto kLogPeriod = std::chrono::seconds(5);
}  // namespace

void add_progress_options(CLI::App& sub, ProgressMode* mode) {
  sub.add_flag_callback(
      "--progress", [mode] { *mode = ProgressMode::kOn; },
      "Show progress on standard error even when it is not a terminal");
  sub.add_flag_callback(
      "-q,--quiet", [mode] { *mode = ProgressMode::kOff; }, "Show no progress, even on a terminal");
}

ProgressMeter::ProgressMeter(Io& io, std::string verb, ProgressMode mode)
    : io_(io), verb_(std::move(verb)), start_(std::chrono::steady_clock::now()) {
  shown_ = mode == ProgressMode::kOn || (mode == ProgressMode::kAuto && io.err_is_terminal);
  terminal_ = io.err_is_terminal;
  if (shown_) thread_ = std::thread([this] { run(); });
}

ProgressMeter::~ProgressMeter() { finish(); }

std::string ProgressMeter::render(const std::string& verb, uint64_t done, uint64_t total, uint64_t entries,
                                  double seconds, uint64_t parts_done, uint64_t parts_total) {
  if (total == 0 && parts_total > 0) {
    parts_done = std::min(parts_done, parts_total);
    std::string line = fmt::format("ckpt {}: {} entries ({}%)", verb, entries, parts_done * 100 / parts_total);
    if (seconds > 0.5) {
      line += fmt::format(", {:.0f} entries/s", static_cast<double>(entries) / seconds);
      if (parts_done > 0 && parts_done < parts_total)
        line += fmt::format(", ETA {:.0f} s", seconds * static_cast<double>(parts_total - parts_done) / parts_done);
    }
    return line;
  }
  // Shared files read twice and SSTs opened twice can count past the total: never over 100%.
  if (total > 0) done = std::min(done, total);
  std::string line = fmt::format("ckpt {}: {}", verb, human_size(static_cast<int64_t>(done)));
  if (total > 0) line += fmt::format(" of {} ({}%)", human_size(static_cast<int64_t>(total)), done * 100 / total);
  if (entries > 0) line += ", " + counted(entries, "entry", "entries");
  if (seconds > 0.5) {
    double rate = static_cast<double>(done) / seconds;
    line += fmt::format(", {}/s", human_size(static_cast<int64_t>(rate)));
    if (total > done && rate > 0) line += fmt::format(", ETA {:.0f} s", static_cast<double>(total - done) / rate);
  }
  return line;
}

void ProgressMeter::run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock,
                         terminal_ ? std::chrono::duration_cast<std::chrono::milliseconds>(kTerminalPeriod)
                                   : std::chrono::duration_cast<std::chrono::milliseconds>(kLogPeriod),
                         [this] { return stop_; })) {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string line = render(verb_, progress_.bytes_done.load(), progress_.bytes_total.load(),
                              progress_.entries_done.load(), seconds, progress_.parts_done.load(),
                              progress_.parts_total.load());
    if (terminal_)
      io_.err << "\r" << line << "\x1b[K" << std::flush;
    else
      io_.err << line << '\n' << std::flush;
  }
}

void ProgressMeter::finish() {
  if (!shown_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (terminal_) {
    io_.err << "\r\x1b[K" << std::flush;
    return;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  uint64_t total = progress_.bytes_total.load();
  // The work is over: what it read is all it had to read, whatever filters skipped.
  io_.err << render(verb_, total > 0 ? total : progress_.bytes_done.load(), total, progress_.entries_done.load(), 0,
                    progress_.parts_total.load(), progress_.parts_total.load())
          << fmt::format(", done in {:.1f} s", seconds) << '\n'
          << std::flush;
}

}  // namespace ckpt::cli
