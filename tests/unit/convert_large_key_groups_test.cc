// ckpt convert with key groups of a MiB and more, read into one reused buffer, whose pairs reuse
// the previous key group's strings: the state comes out whole.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>

#include "ckpt/convert.h"
#include "ckpt/generate.h"
#include "testlib/dump_lines.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

// Order aside: the layouts list entries in different orders.
std::multiset<std::string> sorted_dump_lines(const std::string& snapshot) {
  auto lines = test::dump_lines(snapshot);
  return {lines.begin(), lines.end()};
}

GenerateOptions big_key_groups(const std::string& out, GenerateBackend backend) {
  GenerateOptions o;
  o.output = out;
  o.backend = backend;
  o.parallelism = 2;
  o.max_parallelism = 6;  // three key groups per subtask
  o.keys = 900;
  o.value_size = 3000;
  o.states = {"value", "list", "map"};
  o.seed = 7;
  o.jobs = 2;
  return o;
}

void convert_checked(const std::string& in, ConvertTarget to, const std::string& out) {
  ConvertOptions o;
  o.to = to;
  o.output = out;
  o.jobs = 2;
  auto r = convert_snapshot(in, o);
  INFO(in << " -> " << convert_target_name(to));
  REQUIRE(r.ok());
}

}  // namespace

TEST_CASE("heap and rocksdb snapshots with key groups of a MiB convert with every entry", "[unit][ops]") {
  // Heap key groups here hold a MiB and more each (checked below); converting heap -> rocksdb,
  // rocksdb -> heap and heap -> canonical -> heap (each recycling its buffer and pairs from one
  // key group to the next, larger and smaller ones in turn) must dump exactly as ckpt
  // generate's own rocksdb snapshot of the same seed does.
  test::ScratchDir tmp;
  REQUIRE(generate_snapshot(big_key_groups(tmp / "heap", GenerateBackend::kHeap)).ok());
  REQUIRE(generate_snapshot(big_key_groups(tmp / "rocks", GenerateBackend::kRocksDb)).ok());
  uint64_t heap_bytes = 0;
  for (const auto& e : fs::directory_iterator(tmp / "heap"))
    if (e.path().filename() != "_metadata") heap_bytes += e.file_size();
  REQUIRE(heap_bytes / 6 > (1u << 20));  // six key groups of a MiB and more

  const auto expected = sorted_dump_lines(tmp / "rocks");
  REQUIRE(expected.size() > 1800);
  convert_checked(tmp / "heap", ConvertTarget::kRocksDb, tmp / "heap-rocks");
  CHECK(sorted_dump_lines(tmp / "heap-rocks") == expected);
  convert_checked(tmp / "rocks", ConvertTarget::kHeap, tmp / "rocks-heap");
  CHECK(sorted_dump_lines(tmp / "rocks-heap") == expected);
  convert_checked(tmp / "heap", ConvertTarget::kCanonical, tmp / "heap-canonical");
  CHECK(sorted_dump_lines(tmp / "heap-canonical") == expected);
  convert_checked(tmp / "heap-canonical", ConvertTarget::kHeap, tmp / "canonical-heap");
  CHECK(sorted_dump_lines(tmp / "canonical-heap") == expected);
}
