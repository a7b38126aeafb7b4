// write_keyed_target with KeyedTarget::parallel_families: a RocksDB target puts a key group's
// states on two threads at once. The instance must hold what the plain writer writes, and a
// key group's refusal must come back from that key group's call, the lowest family's first, as
// when the families are written one after the other.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <rocksdb/db.h>

#include "ops/rewrite/keyed_target.h"
#include "state/rocksdb/rocks_instance_reader.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

KeyedBackendMeta parallel_families_meta() {
  KeyedBackendMeta meta;
  meta.key_serializer.serializer_class = "org.apache.flink.api.common.typeutils.base.StringSerializer";
  for (const char* name : {"state-a", "state-b"}) {
    StateMetaInfo info;
    info.name = name;
    meta.states.push_back(std::move(info));
  }
  return meta;
}

// Key group kg's pairs of state s, in an order that is not the keys' (as a heap source hands
// them over): key "<kg><s><i>", value of `value_bytes` bytes that do not compress.
std::vector<RocksPair> parallel_families_pairs(int32_t kg, size_t s, int n, size_t value_bytes) {
  std::vector<RocksPair> pairs;
  uint64_t x = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(kg * 2 + static_cast<int32_t>(s) + 1);
  for (int i = n - 1; i >= 0; --i) {
    RocksPair p;
    p.key = fmt::format("{}{}k{:05d}", static_cast<char>(kg), static_cast<char>('a' + s), (i * 7919) % n);
    for (size_t b = 0; b < value_bytes; ++b) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      p.value += static_cast<char>(x);
    }
    pairs.push_back(std::move(p));
  }
  return pairs;
}

KeyedTarget parallel_families_target(const std::string& out_dir, bool parallel) {
  KeyedTarget t;
  t.to = ConvertTarget::kRocksDb;
  t.out_dir = out_dir;
  t.op_hex = "00112233445566778899aabbccddeeff";
  t.range = KeyGroupRange{0, 8};
  t.max_parallelism = 8;
  t.deferred_sync = true;
  t.parallel_families = parallel;
  return t;
}

// Every (family, key, value) of the instance the handle names, in key order per family.
std::vector<std::string> parallel_families_scan(const std::string& out_dir, const KeyedHandle& h) {
  const std::string dir = out_dir + "/" + fs::path(h.private_files.at(0).handle.path).parent_path().string();
  FlinkInstance instance;
  REQUIRE(open_flink_instance(dir, true, instance).ok());
  std::vector<std::string> rows;
  for (size_t i = 0; i < instance.names.size(); ++i) {
    std::unique_ptr<rocksdb::Iterator> it(instance.db->NewIterator(rocksdb::ReadOptions(), instance.handles[i]));
    for (it->SeekToFirst(); it->Valid(); it->Next())
      rows.push_back(instance.names[i] + "|" + it->key().ToString() + "|" + it->value().ToString());
    REQUIRE(it->status().ok());
  }
  REQUIRE(instance.close().ok());
  return rows;
}

}  // namespace

TEST_CASE("a rocksdb target putting states on two threads writes what the plain one writes", "[unit][ops]") {
  // Proves the split loses, repeats and reorders nothing: 8 key groups of two states of some
  // 300 KiB and 150 KiB (past the size below which a key group is written on one thread; the
  // second state empty in every third key group, and the last key group too small to split),
  // each handed over unsorted, come out equal to the plain writer's instance pair for pair.
  test::ScratchDir dir;
  std::vector<std::vector<std::string>> scans;
  const int last_pairs = 10;
  for (bool parallel : {false, true}) {
    const std::string out = dir / (parallel ? "parallel" : "plain");
    fs::create_directories(out);
    std::vector<std::vector<RocksPair>> by_state(2);
    PairsProducer produce = [&](const KeyGroupPairsFn& fn) -> Status {
      for (int32_t kg = 0; kg < 8; ++kg) {
        for (auto& pairs : by_state) pairs.clear();
        by_state[0] = parallel_families_pairs(kg, 0, kg == 7 ? last_pairs : 300, 1000);
        if (kg % 3 != 0) by_state[1] = parallel_families_pairs(kg, 1, kg == 7 ? last_pairs : 100, 1500);
        CKPT_RETURN_IF_ERROR(fn(kg, by_state));
      }
      return Status::OK();
    };
    KeyedTargetStats stats;
    auto h = write_keyed_target(parallel_families_target(out, parallel), parallel_families_meta(), produce, &stats);
    REQUIRE(h.ok());
    CHECK(stats.entries == 7 * 300 + 4 * 100 + 2 * last_pairs);
    scans.push_back(parallel_families_scan(out, *h));
  }
  REQUIRE(scans[0].size() == 7 * 300 + 4 * 100 + 2 * last_pairs);
  CHECK(scans[1] == scans[0]);
  CHECK(std::is_sorted(scans[0].begin(), scans[0].begin() + 7 * 300 + last_pairs));
}

TEST_CASE("a rocksdb target putting states on two threads refuses a key group at its own call", "[unit][ops][corrupt]") {
  // A key repeated in key group 2 of both states (each state on its own thread): the refusal
  // comes back from key group 2's call (the reader places it at that block), names the first
  // state as the plain writer does, and nothing is left of the instance.
  test::ScratchDir dir;
  for (bool parallel : {false, true}) {
    const std::string out = dir / (parallel ? "parallel" : "plain");
    fs::create_directories(out);
    std::vector<std::vector<RocksPair>> by_state(2);
    int32_t refused_at = -1;
    PairsProducer repeated = [&](const KeyGroupPairsFn& fn) -> Status {
      for (int32_t kg = 0; kg < 4; ++kg) {
        for (auto& pairs : by_state) pairs.clear();
        by_state[0] = parallel_families_pairs(kg, 0, 300, 1000);
        by_state[1] = parallel_families_pairs(kg, 1, 200, 1000);
        if (kg == 2)
          for (auto& pairs : by_state) pairs.push_back(pairs[5]);
        Status s = fn(kg, by_state);
        if (!s.ok()) {
          refused_at = kg;
          return s;
        }
      }
      return Status::OK();
    };
    KeyedTargetStats stats;
    auto h = write_keyed_target(parallel_families_target(out, parallel), parallel_families_meta(), repeated, &stats);
    REQUIRE_FALSE(h.ok());
    CHECK(h.error().code == ErrorCode::kInvalidArgument);
    CHECK(h.error().message == "keys of column family 'state-a' out of order");
    CHECK(refused_at == 2);
    CHECK(fs::is_empty(out));  // the scratch directory went with the writer
  }
}
