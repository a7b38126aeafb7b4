// RocksInstanceWriter: keys of a column family must ascend strictly (RocksDB's SstFileWriter
// checks it; the writer names the family), families interleave freely.
#include <algorithm>
#include <cstdlib>
#include <map>

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

TEST_CASE("an instance writer takes interleaved ascending runs into lanes and ldb reads them as one family",
          "[unit][state]") {
  // Proves lanes (edit's regrouping writes an output key group of each lane per input key group):
  // keys given round-robin to four lanes whose ranges never overlap ("a..", "b..", "c..", "d.."),
  // each lane ascending, none overall, finish into one family that reads back whole and in
  // order, through our reader and RocksDB's ldb; a key not above its lane's last is refused,
  // naming the family, while a key below another lane's last is taken.
  test::ScratchDir dir;
  auto w = RocksInstanceWriter::create(dir / "scratch", {"state"}, false, 4 << 10);
  REQUIRE(w.ok());
  (*w)->set_file_buffer_bytes(16 << 10);
  auto key = [](int lane, int i) { return fmt::format("{}{:05d}", static_cast<char>('a' + lane), i); };
  // Values that do not compress (xorshift letters), so files grow as written.
  uint64_t x = 88172645463325252ull;
  auto value = [&x] {
    std::string v;
    for (int i = 0; i < 60; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      v += static_cast<char>('A' + x % 26);
    }
    return v;
  };
  std::map<std::string, std::string> want;
  for (int i = 0; i < 300; ++i)
    for (int lane = 3; lane >= 0; --lane) {
      const std::string v = value();
      want[key(lane, i)] = v;
      REQUIRE((*w)->add_to_lane(0, static_cast<size_t>(lane), key(lane, i), v).ok());
    }
  Status back = (*w)->add_to_lane(0, 2, key(2, 299), "x");
  REQUIRE_FALSE(back.ok());
  CHECK(back.error().message == "keys of column family 'state' out of order");
  CHECK_FALSE((*w)->add_to_lane(0, RocksInstanceWriter::kMostLanes, "z", "x").ok());
  auto files = (*w)->finish(dir / "instance");
  REQUIRE(files.ok());
  CHECK(files->entries == 1200);
  size_t ssts = 0;
  for (const RocksInstanceFile& f : files->files) ssts += f.is_sst();
  CHECK(ssts >= 8);  // four lanes, each rolled at 4 KiB at least once

  FlinkInstance instance;
  REQUIRE(open_flink_instance(dir / "instance", true, instance).ok());
  std::vector<std::pair<std::string, std::string>> read;
  for (size_t i = 0; i < instance.names.size(); ++i) {
    if (instance.names[i] != "state") continue;
    std::unique_ptr<rocksdb::Iterator> it(instance.db->NewIterator(rocksdb::ReadOptions(), instance.handles[i]));
    for (it->SeekToFirst(); it->Valid(); it->Next()) read.emplace_back(it->key().ToString(), it->value().ToString());
    REQUIRE(it->status().ok());
  }
  REQUIRE(instance.close().ok());
  CHECK(read == std::vector<std::pair<std::string, std::string>>(want.begin(), want.end()));

  CKPT_REQUIRE_PROGRAM("/usr/bin/ldb");
  const std::string out = dir / "ldb.txt";
  const std::string cmd = fmt::format("/usr/bin/ldb --db='{}' --column_family=state scan > '{}' 2>&1", dir / "instance", out);
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string scanned = test::read_file(out);
  INFO(cmd << "\n" << scanned.substr(0, 300));
  CHECK(std::count(scanned.begin(), scanned.end(), '\n') == 1200);
  CHECK(scanned.find("a00000 : " + want.begin()->second + "\n") == 0);
  CHECK(scanned.find("d00299 : " + want.rbegin()->second + "\n") != std::string::npos);
}
