// RocksInstanceWriter: keys of a column family must ascend strictly (RocksDB's SstFileWriter
// checks it; the writer names the family), families interleave freely.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <rocksdb/db.h>

#include "state/rocksdb/rocks_instance_reader.h"
#include "state/rocksdb/rocks_instance_writer.h"
#include "testlib/test_support.h"

using namespace ckpt;

TEST_CASE("an instance writer refuses keys out of order or repeated within a family", "[unit][state]") {
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

TEST_CASE("an instance writer closes a family's file at the target size and the instance reads whole", "[unit][state]") {
  // Proves bounded SST files: with a 16 KiB target, 600 pairs of ~100 bytes in one family become
  // several non-overlapping files ingested together (the other family, smaller, one), and the
  // finished instance, opened as Flink's restore opens it, gives back every pair in order; a key
  // not above the last one of a closed file is still refused after the roll.
  test::ScratchDir dir;
  auto w = RocksInstanceWriter::create(dir / "scratch", {"big", "small"}, false, 16 << 10);
  REQUIRE(w.ok());
  auto key = [](int i) { return fmt::format("k{:06d}", i); };
  // Values that do not compress (xorshift bytes), so files grow as written.
  std::vector<std::string> values(600);
  uint64_t x = 88172645463325252ull;
  for (std::string& v : values)
    for (int i = 0; i < 100; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      v += static_cast<char>(x);
    }
  for (int i = 0; i < 600; ++i) REQUIRE((*w)->add(0, key(i), values[i]).ok());
  REQUIRE((*w)->add(1, "only", "x").ok());
  Status back = (*w)->add(0, key(599), "again");
  REQUIRE_FALSE(back.ok());
  CHECK(back.error().message == "keys of column family 'big' out of order");
  auto files = (*w)->finish(dir / "instance");
  REQUIRE(files.ok());
  CHECK(files->entries == 601);
  size_t ssts = 0;
  for (const RocksInstanceFile& f : files->files) ssts += f.is_sst();
  CHECK(ssts >= 4);  // 600 x ~110 bytes over 16 KiB files, plus the small family's one

  FlinkInstance instance;
  REQUIRE(open_flink_instance(dir / "instance", true, instance).ok());
  size_t big = 0;
  for (size_t i = 0; i < instance.names.size(); ++i) {
    if (instance.names[i] != "big") continue;
    std::unique_ptr<rocksdb::Iterator> it(instance.db->NewIterator(rocksdb::ReadOptions(), instance.handles[i]));
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
      CHECK(it->key().ToString() == key(n));
      CHECK(it->value().ToString() == (n < 600 ? values[n] : std::string()));
    }
    REQUIRE(it->status().ok());
    big = static_cast<size_t>(n);
  }
  CHECK(big == 600);
  REQUIRE(instance.close().ok());
}
