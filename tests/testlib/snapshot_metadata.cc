#include "testlib/snapshot_metadata.h"

#include <catch2/catch.hpp>

namespace ckpt::test {

Metadata metadata_of(const std::string& dir) {
  auto m = read_metadata_file(dir);
  INFO(dir);
  REQUIRE(m.ok());
  return std::move(m).value();
}

}  // namespace ckpt::test
