// tests/testlib/child_process.h - running code where a crash, an abort or a runaway allocation
// is an outcome to check rather than the end of the test binary.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ckpt::test {

struct ChildOutcome {
  bool exited = false;  // exited normally (else killed by `signal`)
  int exit_code = -1;
  int signal = 0;
  std::string out, err;   // what the child handed back
  long max_rss_kib = 0;   // the child's peak resident set
};

// Runs fn() in a forked child (fork only: fn() must not need threads the parent started, such
// as RocksDB's) whose data segment is capped at `data_limit` bytes (0: no cap),
// so that an allocation sized by an unchecked length fails there instead of growing the
// machine's memory. fn() returns the exit code and fills the output strings. Under
// AddressSanitizer the cap is not applied (its shadow memory exceeds it).
ChildOutcome run_in_child(const std::function<int(std::string& out, std::string& err)>& fn, uint64_t data_limit = 0);
// The ckpt program itself (a fresh process: no state inherited from the tests, such as
// RocksDB's thread pools) run with `args`, its data segment capped likewise.
ChildOutcome run_ckpt(const std::vector<std::string>& args, uint64_t data_limit = 0);

// fn() on a new thread with a stack of `stack_bytes` (0: what std::thread gets; eight times as
// much under AddressSanitizer, whose frames are that much larger), joined before returning. Catch2's assertions are not thread-safe: fn() computes, the caller checks.
void run_on_thread(size_t stack_bytes, const std::function<void()>& fn);

}  // namespace ckpt::test
