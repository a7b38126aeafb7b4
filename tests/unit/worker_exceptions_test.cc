// An exception thrown on a worker thread (a bug, std::bad_alloc, a caller's callback) comes back
// as an "internal error" instead of std::terminate. Cases without RocksDB run in a child
// process, where an abort is an outcome the test sees; the others (a forked child cannot use
// the RocksDB thread pools of its parent) would abort the test binary, which fails them too.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "ckpt/dump.h"
#include "ckpt/restore.h"
#include "state/ordered_channels.h"
#include "support/worker_threads.h"
#include "testlib/child_process.h"
#include "testlib/hostile_snapshot.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

// The child's outcome must be a clean exit 0 with `out` as its report.
void require_clean_exit(const test::ChildOutcome& o, const std::string& expected_out) {
  INFO("child: exited " << o.exited << " code " << o.exit_code << " signal " << o.signal << " out '" << o.out
                        << "' err '" << o.err << "'");
  REQUIRE(o.exited);
  CHECK(o.exit_code == 0);
  CHECK(o.out == expected_out);
}

}  // namespace

TEST_CASE("run_parallel returns an exception of a worker task as an internal error", "[ops][unit]") {
  // Convert and generate run their subtasks through run_parallel: a task throwing on the
  // second thread used to end the process with SIGABRT.
  auto o = test::run_in_child([](std::string& out, std::string&) {
    const auto main_thread = std::this_thread::get_id();
    std::atomic<bool> other_ran{false};
    Status s = run_parallel(2, 2, [&](size_t) -> Status {
      if (std::this_thread::get_id() != main_thread) {
        other_ran = true;
        throw std::runtime_error("boom");
      }
      // Hold this thread's task until the other thread has taken the other one.
      for (int i = 0; i < 500 && !other_ran; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return Status::OK();
    });
    out = s.ok() ? "ok" : s.error().message;
    return 0;
  });
  require_clean_exit(o, "internal error: boom");
}

TEST_CASE("ordered channels survive a task that throws and deliver the other tasks", "[ops][unit]") {
  // The dump's worker pool: task 1 throws something that is not even a std::exception.
  auto o = test::run_in_child([](std::string& out, std::string&) {
    OrderedChannels<int> channels(3, 4);
    channels.start(2, [](size_t task, const OrderedChannels<int>::Push& push) {
      push(static_cast<int>(task) * 10);
      if (task == 1) throw 42;
      push(static_cast<int>(task) * 10 + 1);
    });
    for (size_t t = 0; t < 3; ++t)
      for (int item; channels.pop(t, &item);) out += std::to_string(item) + " ";
    channels.stop_and_join();
    return 0;
  });
  require_clean_exit(o, "0 1 10 20 21 ");
}

TEST_CASE("restore counts its progress from the worker threads without calling the caller", "[ops][unit]") {
  // Progress is a set of counters (ckpt/progress.h), not a callback: no caller code runs on
  // restore's workers any more, so none can throw there. The counters still reach the total.
  test::ScratchDir tmp;
  REQUIRE(test::generate_rocksdb_savepoint(tmp / "in").ok());
  RestoreOptions options;
  options.output = tmp / "out";
  options.jobs = 2;
  Progress progress;
  options.progress = &progress;
  Result<RestoreReport> r = restore_snapshot(tmp / "in", options);
  REQUIRE(r.ok());
  CHECK(progress.bytes_total.load() > 0);
  CHECK(progress.bytes_done.load() >= progress.bytes_total.load());
}
