// support/worker_threads.h: exceptions stop at a thread's edge as "internal error" Errors.
#include <catch2/catch.hpp>

#include <atomic>
#include <new>
#include <stdexcept>
#include <string>

#include "support/worker_threads.h"

using namespace ckpt;

TEST_CASE("catch_internal turns what a function throws into an internal error of its result type", "[support][unit]") {
  Result<int> fine = catch_internal([]() -> Result<int> { return 7; });
  REQUIRE(fine.ok());
  CHECK(*fine == 7);
  Result<int> thrown = catch_internal([]() -> Result<int> { throw std::bad_alloc(); });
  REQUIRE_FALSE(thrown.ok());
  CHECK(thrown.error().message == "internal error: std::bad_alloc");
  Status odd = catch_internal([]() -> Status { throw 42; });
  REQUIRE_FALSE(odd.ok());
  CHECK(odd.error().message == "internal error: an exception that is not a std::exception");
}

TEST_CASE("run_on_threads returns the first exception of any thread and lets the others finish", "[support][unit]") {
  std::atomic<int> next{0}, done{0};
  Status s = run_on_threads(3, [&] {
    for (int i; (i = next++) < 30;) {
      if (i == 5) throw std::runtime_error("task 5 failed");
      ++done;
    }
  });
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "internal error: task 5 failed");
  CHECK(done == 29);  // the thread that threw stopped; the others took every other task
  CHECK(run_on_threads(0, [] {}).ok());  // no extra thread: the caller's alone
}
