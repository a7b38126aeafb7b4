// tests/testlib/scoped_settings.h - process-wide settings a test changes, restored at scope exit.
//
// Tests share one process (a run of ckpt_tests executes every test case in turn): a setting
// left changed would change the tests that run after it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace ckpt::test {

// An environment variable set (or unset, with nullopt) for the scope; with only a name, as the
// test leaves it at scope exit, whatever it sets meanwhile.
class ScopedEnv {
 public:
  explicit ScopedEnv(std::string name);
  ScopedEnv(std::string name, const std::optional<std::string>& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

// ckpt::dump_tuning()'s sizes as they were at construction, put back at scope exit; the
// spill counters are zeroed at construction so that the test reads its own.
class DumpTuningGuard {
 public:
  DumpTuningGuard();
  ~DumpTuningGuard();
  DumpTuningGuard(const DumpTuningGuard&) = delete;
  DumpTuningGuard& operator=(const DumpTuningGuard&) = delete;

 private:
  size_t chunk_bytes_;
  size_t channel_capacity_;
  bool spill_;
};

}  // namespace ckpt::test
