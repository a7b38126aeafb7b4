// --tm-memory and --cache-size: memory sizes in the units of Flink's configuration.
#include <catch2/catch.hpp>

#include "memory_size_arg.h"

TEST_CASE("memory sizes on the command line parse as Flink writes them", "[cli]") {
  using ckpt::cli::parse_memory_size;
  CHECK(*parse_memory_size("512m") == int64_t{512} << 20);
  CHECK(*parse_memory_size("4g") == int64_t{4} << 30);
  CHECK(*parse_memory_size("1.5GB") == int64_t{3} << 29);
  CHECK(*parse_memory_size("2048") == 2048);
  for (const char* bad : {"", "g", "4x", "-1m", "1e400"}) CHECK_FALSE(parse_memory_size(bad).ok());
}
