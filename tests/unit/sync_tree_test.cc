// sync_tree / sync_path: the one durability pass convert makes before publishing its output.
#include <catch2/catch.hpp>

#include <filesystem>

#include "support/io_internal.h"
#include "testlib/test_support.h"

using namespace ckpt;

TEST_CASE("sync_tree syncs a nested output and names what it cannot open", "[unit][support]") {
  // A tree with files at two depths syncs cleanly; a missing directory or file is an error
  // naming it, never a silent success (convert must not publish what it could not sync).
  test::ScratchDir scratch;
  std::filesystem::create_directories(scratch / "out/inner/deeper");
  test::write_file(scratch / "out/_metadata", "m");
  test::write_file(scratch / "out/inner/deeper/000001.sst", "s");
  CHECK(sync_tree(scratch / "out").ok());
  CHECK(sync_path(scratch / "out/inner/deeper/000001.sst").ok());
  Status missing = sync_tree(scratch / "absent");
  REQUIRE(!missing.ok());
  CHECK(missing.error().file == scratch / "absent");
  Status file = sync_path(scratch / "out/none");
  REQUIRE(!file.ok());
  CHECK(file.error().message.find("cannot open to sync") == 0);
}
