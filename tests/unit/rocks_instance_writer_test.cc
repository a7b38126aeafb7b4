// RocksInstanceWriter: keys of a column family must ascend strictly (RocksDB's SstFileWriter
// checks it; the writer names the family), families interleave freely.
#include <catch2/catch.hpp>

#include "state/rocks_instance_writer.h"
#include "support/test_support.h"

using namespace ckpt;

TEST_CASE("an instance writer refuses keys out of order or repeated within a family", "[unit]") {
  // Proves the order check is there (SstFileWriter's own) and reported as ours: a smaller or an
  // equal key is refused with the family's name, while the other family, untouched by the
  // failure, still takes its keys in order and the instance finishes with both.
  test::ScratchDir dir;
  auto w = RocksInstanceWriter::create(dir / "scratch", {"state-a", "state-b"});
  REQUIRE(w.ok());
  REQUIRE((*w)->add(0, "b", "1").ok());
  REQUIRE((*w)->add(1, "a", "2").ok());  // another family starts over
  Status smaller = (*w)->add(0, "a", "3");
  REQUIRE_FALSE(smaller.ok());
  CHECK(smaller.error().code == ErrorCode::kInvalidArgument);
  CHECK(smaller.error().message == "keys of column family 'state-a' out of order");
  Status equal = (*w)->add(1, "a", "4");
  REQUIRE_FALSE(equal.ok());
  CHECK(equal.error().message == "keys of column family 'state-b' out of order");
  REQUIRE((*w)->add(1, "c", "5").ok());
  auto files = (*w)->finish(dir / "instance");
  REQUIRE(files.ok());
  CHECK(files->entries == 3);
  size_t ssts = 0;
  for (const RocksInstanceFile& f : files->files) ssts += f.is_sst();
  CHECK(ssts == 2);
}
