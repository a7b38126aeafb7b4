// support/worker_threads.h - exceptions end at a thread's edge as Errors, never in std::terminate.
//
// libckpt does not throw by design, but std::bad_alloc, a library bug (nlohmann's type_error)
// or a caller's callback still can, and an exception leaving a std::thread's function aborts
// the process. Every worker body runs under run_on_threads() or catch_internal().
#pragma once

#include <exception>
#include <functional>

#include "ckpt/error.h"

namespace ckpt {

// "internal error: <what()>" for an exception caught where it must not pass. Never throws:
// if even the message cannot be allocated, the message is "internal error".
Error internal_error(const std::exception_ptr& e) noexcept;

// fn()'s Status or Result<T>, or the internal error of what fn() threw.
template <class F>
auto catch_internal(F&& fn) noexcept -> decltype(fn()) {
  try {
    return fn();
  } catch (...) {
    return internal_error(std::current_exception());
  }
}

// Runs body() on up to `jobs` threads at once, the calling thread being one of them, and waits
// for all (fewer run if the system refuses to start more; body() pulls its own tasks). An
// exception leaving body() is caught on its thread; the first is returned as an internal error
// while the other threads finish. Callers guard their tasks with catch_internal() to say which
// task failed; this is the net under that.
Status run_on_threads(int jobs, const std::function<void()>& body) noexcept;

// fn(0) .. fn(tasks - 1) on up to `jobs` threads, each task guarded by catch_internal(); the
// first error stops the tasks not yet started and is returned.
Status run_parallel(size_t tasks, int jobs, const std::function<Status(size_t)>& fn);

}  // namespace ckpt
