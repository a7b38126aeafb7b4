// Worker threads whose exceptions come back as Errors.
#include "support/worker_threads.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ckpt {

Error internal_error(const std::exception_ptr& e) noexcept {
  try {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      return Error(ErrorCode::kCorruption, std::string("internal error: ") + x.what());
    } catch (...) {
      return Error(ErrorCode::kCorruption, "internal error: an exception that is not a std::exception");
    }
  } catch (...) {
    // Short enough for the string's inline buffer: no allocation left to fail.
    return Error(ErrorCode::kCorruption, "internal error");
  }
}

Status run_on_threads(int jobs, const std::function<void()>& body) noexcept {
  std::mutex mutex;
  std::optional<Error> first;
  auto guarded = [&]() noexcept {
    Status s = catch_internal([&]() -> Status {
      body();
      return Status::OK();
    });
    if (s.ok()) return;
    std::lock_guard<std::mutex> lock(mutex);
    if (!first) first = std::move(s).error();
  };
  std::vector<std::thread> threads;
  try {
    for (int i = 1; i < jobs; ++i) threads.emplace_back(guarded);
  } catch (...) {
    // No more threads to be had: those started and this one do the work.
  }
  guarded();
  for (std::thread& t : threads) t.join();
  if (first) return std::move(*first);
  return Status::OK();
}

Status run_parallel(size_t tasks, int jobs, const std::function<Status(size_t)>& fn) {
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::optional<Error> failure;
  auto worker = [&]() {
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (failure) return;
      }
      size_t i = next++;
      if (i >= tasks) return;
      Status s = catch_internal([&] { return fn(i); });
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::move(s).error();
      }
    }
  };
  Status threads = run_on_threads(std::max(1, std::min<int>(jobs, static_cast<int>(tasks))), worker);
  if (failure) return std::move(*failure);
  return threads;
}

}  // namespace ckpt
