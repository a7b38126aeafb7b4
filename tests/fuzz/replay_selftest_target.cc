// A fuzz target with a known finding (inputs starting "boom" abort), for replay_selftest.cmake
// to check that the replay driver turns a finding into a failed test that names the input.
#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 4 && std::memcmp(data, "boom", 4) == 0) std::abort();
  return 0;
}
