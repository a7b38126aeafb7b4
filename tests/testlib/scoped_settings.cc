#include "testlib/scoped_settings.h"

#include <cstdlib>
#include <utility>

#include "ops/entries/dump_tuning.h"

namespace ckpt::test {

namespace {

void set_env(const std::string& name, const std::optional<std::string>& value) {
  if (value) ::setenv(name.c_str(), value->c_str(), 1);
  else ::unsetenv(name.c_str());
}

}  // namespace

ScopedEnv::ScopedEnv(std::string name) : name_(std::move(name)) {
  if (const char* was = std::getenv(name_.c_str())) saved_ = was;
}

ScopedEnv::ScopedEnv(std::string name, const std::optional<std::string>& value) : ScopedEnv(std::move(name)) {
  set_env(name_, value);
}

ScopedEnv::~ScopedEnv() { set_env(name_, saved_); }

DumpTuningGuard::DumpTuningGuard()
    : chunk_bytes_(dump_tuning().chunk_bytes),
      channel_capacity_(dump_tuning().channel_capacity),
      spill_(dump_tuning().spill) {
  dump_tuning().spilled_chunks = 0;
  dump_tuning().spill_failures = 0;
}

DumpTuningGuard::~DumpTuningGuard() {
  dump_tuning().chunk_bytes = chunk_bytes_;
  dump_tuning().channel_capacity = channel_capacity_;
  dump_tuning().spill = spill_;
}

}  // namespace ckpt::test
