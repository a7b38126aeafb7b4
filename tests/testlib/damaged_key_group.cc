#include "testlib/damaged_key_group.h"

#include <catch2/catch.hpp>

#include <algorithm>

#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "testlib/test_support.h"

namespace ckpt::test {

void write_heap_savepoint_of_16_key_groups(const std::string& output) {
  GenerateOptions g;
  g.output = output;
  g.backend = GenerateBackend::kHeap;
  g.keys = 2000;
  g.parallelism = 1;
  g.max_parallelism = 16;
  REQUIRE(generate_snapshot(g).ok());
}

std::string overwrite_key_group(const std::string& dir, int32_t key_group) {
  auto m = read_metadata_file(dir + "/_metadata");
  REQUIRE(m.ok());
  const KeyedHandle& h = m->operators.at(0).subtasks.at(0).managed_keyed;
  REQUIRE(h.range.contains(key_group));
  REQUIRE(h.range.contains(key_group + 1));
  REQUIRE(h.offsets.size() == static_cast<size_t>(h.range.count));
  const int64_t from = h.offsets[key_group - h.range.first];
  const int64_t to = h.offsets[key_group + 1 - h.range.first];
  std::string file = dir + "/" + h.delegate.path;
  std::string bytes = read_file(file);
  REQUIRE(to > from);
  REQUIRE(static_cast<size_t>(to) <= bytes.size());
  std::fill(bytes.begin() + from, bytes.begin() + to, '\xff');
  write_file(file, bytes);
  return h.delegate.path;
}

}  // namespace ckpt::test
