// The guards that keep one test's process-wide settings from leaking into the tests after it.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "ops/entries/dump_tuning.h"
#include "testlib/scoped_settings.h"

using namespace ckpt;

TEST_CASE("dump tuning changed under a guard is back to what it was after the guard", "[unit][support]") {
  // dump_spill_corpus_test shrinks chunks to one byte for every corpus snapshot; the tests that
  // run after it in the same process must see the sizes dump_snapshot() has by default.
  const DumpTuning& t = dump_tuning();
  const size_t bytes = t.chunk_bytes, capacity = t.channel_capacity;
  const bool spill = t.spill;
  {
    test::DumpTuningGuard guard;
    dump_tuning().chunk_bytes = 1;
    dump_tuning().channel_capacity = 1;
    dump_tuning().spill = !spill;
    CHECK(dump_tuning().spilled_chunks == 0);
  }
  CHECK(t.chunk_bytes == bytes);
  CHECK(t.channel_capacity == capacity);
  CHECK(t.spill == spill);
  CHECK(bytes == 256 * 1024);  // nothing before this test left them changed either
}

TEST_CASE("an environment variable set or unset under a guard is restored after it", "[unit][support]") {
  const char* name = "CKPT_SCOPED_ENV_TEST";
  ::setenv(name, "before", 1);
  {
    test::ScopedEnv unset(name, std::nullopt);
    CHECK(std::getenv(name) == nullptr);
    {
      test::ScopedEnv set(name, "inner");
      CHECK(std::string(std::getenv(name)) == "inner");
    }
    CHECK(std::getenv(name) == nullptr);
    test::ScopedEnv kept{name};
    ::setenv(name, "changed by the test", 1);
  }
  CHECK(std::string(std::getenv(name)) == "before");
  ::unsetenv(name);
}
