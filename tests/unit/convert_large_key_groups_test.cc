// ckpt convert with key groups of a MiB and more, read into one reused buffer, whose pairs reuse
// the previous key group's strings: the state comes out whole.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>

#include "ckpt/convert.h"
#include "ckpt/edit.h"
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

// What convert and edit hold in memory follows one key group, not the state: four times the
// state in four times the key groups (each as large as before) must leave the peak of buffered
// bytes where it was (issue 33, the memory row).
namespace {

// About 100 keys per key group, whatever the scale.
std::string scaled_heap_snapshot(const test::ScratchDir& tmp, int scale) {
  GenerateOptions o;
  o.output = tmp / ("heap-x" + std::to_string(scale));
  o.backend = GenerateBackend::kHeap;
  o.parallelism = 1;
  o.max_parallelism = 16 * scale;
  o.keys = 1600 * static_cast<uint64_t>(scale);
  o.value_size = 32;
  o.states = {"value", "list", "map"};
  o.seed = 3;
  REQUIRE(generate_snapshot(o).ok());
  return o.output;
}

ConvertSummary convert_for_peak(const std::string& in, ConvertTarget to, const std::string& out) {
  ConvertOptions o;
  o.to = to;
  o.output = out;
  auto r = convert_snapshot(in, o);
  REQUIRE(r.ok());
  return *r;
}

ConvertSummary regroup_for_peak(const std::string& in, int32_t max_parallelism, const std::string& out) {
  EditOptions o;
  o.output = out;
  o.max_parallelism = max_parallelism;
  auto r = edit_snapshot(in, o);
  REQUIRE(r.ok());
  return r->written;
}

// Flat: the larger state's peak within half again the smaller's (the largest key group of four
// times as many is a little larger), while the state itself grew about fourfold.
void check_peak_flat(const ConvertSummary& small, const ConvertSummary& large, const char* what) {
  INFO(what << ": peak buffered " << small.peak_buffered_bytes << " then " << large.peak_buffered_bytes
            << " bytes, state " << small.bytes << " then " << large.bytes << " bytes");
  CHECK(large.bytes > 3 * small.bytes);
  CHECK(small.peak_buffered_bytes > 0);
  CHECK(small.peak_buffered_bytes < small.bytes / 8);
  CHECK(large.peak_buffered_bytes < small.peak_buffered_bytes * 3 / 2);
}

}  // namespace

TEST_CASE("convert and edit buffer one key group whatever the state size", "[unit][ops]") {
  test::ScratchDir tmp;
  const std::string heap1 = scaled_heap_snapshot(tmp, 1), heap4 = scaled_heap_snapshot(tmp, 4);

  const ConvertSummary rocks1 = convert_for_peak(heap1, ConvertTarget::kRocksDb, tmp / "rocks-x1");
  const ConvertSummary rocks4 = convert_for_peak(heap4, ConvertTarget::kRocksDb, tmp / "rocks-x4");
  check_peak_flat(rocks1, rocks4, "heap to rocksdb");
  check_peak_flat(convert_for_peak(tmp / "rocks-x1", ConvertTarget::kHeap, tmp / "back-x1"),
                  convert_for_peak(tmp / "rocks-x4", ConvertTarget::kHeap, tmp / "back-x4"), "rocksdb to heap");
  // --max-parallelism spills and reads back: what reaches the writer is still one key group.
  check_peak_flat(regroup_for_peak(heap1, 32, tmp / "edit-x1"), regroup_for_peak(heap4, 128, tmp / "edit-x4"),
                  "edit --max-parallelism");
}
