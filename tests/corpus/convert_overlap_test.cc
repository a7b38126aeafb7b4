// ckpt convert on a RocksDB checkpoint whose instances hold overlapping SSTs (stale values and
// deletes shadowed by later files): the conversion reads what Flink's restore would, one key
// group at a time, and round trips through heap keep the original's logical state.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "state/keyed_state_codec.h"
#include "state/raw_keyed_reader.h"
#include "testlib/dump_lines.h"
#include "testlib/grown_snapshot.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

const char* kInput = "new-stateful-udf-migration-itcase-flink1.16-rocksdb-checkpoint";

std::vector<std::string> sorted_dump(const std::string& snapshot) {
  std::vector<std::string> lines = test::dump_lines(snapshot);
  std::sort(lines.begin(), lines.end());
  return lines;
}

void convert_to(const std::string& in, ConvertTarget to, const std::string& out, int jobs) {
  ConvertOptions o;
  o.to = to;
  o.output = out;
  o.jobs = jobs;
  auto r = convert_snapshot(in, o);
  INFO(in << " -> " << out << ": " << (r.ok() ? std::string() : r.error().to_string()));
  REQUIRE(r.ok());
  CHECK(r->entries > 0);
}

}  // namespace

TEST_CASE("convert reads overlapping SSTs as RocksDB merges them - heap and back give the original's dump", "[corpus][ops]") {
  // Every key was first written with another key's value, then every other key deleted, then
  // the original written again, each in SSTs of its own: reading the files one by one would
  // show wrong values and missing keys; the original's dump is the only right answer.
  CKPT_REQUIRE_SHARED();
  const std::string input = test::corpus_dir() + "/" + kInput;
  test::ScratchDir scratch;
  test::GrownSnapshot grown = test::grow_snapshot(input, scratch.path(), 1, true);
  const std::vector<std::string> original = sorted_dump(input);
  REQUIRE(!original.empty());
  CHECK(sorted_dump(grown.dir) == original);

  convert_to(grown.dir, ConvertTarget::kHeap, scratch / "heap", 2);
  CHECK(sorted_dump(scratch / "heap") == original);
  convert_to(scratch / "heap", ConvertTarget::kRocksDb, scratch / "rocks", 2);
  CHECK(sorted_dump(scratch / "rocks") == original);
  convert_to(grown.dir, ConvertTarget::kRocksDb, scratch / "direct", 1);
  CHECK(sorted_dump(scratch / "direct") == original);
  convert_to(grown.dir, ConvertTarget::kCanonical, scratch / "canonical", 1);
  CHECK(sorted_dump(scratch / "canonical") == original);
}

TEST_CASE("a native handle is read one key group at a time - ascending with each pair in its own key group", "[corpus][ops]") {
  // What bounds convert's memory: each call carries exactly one key group of the handle's range,
  // with every pair's key prefix naming it, and the calls ascend; the overlapping instance's
  // live keys all arrive, each once.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  test::GrownSnapshot grown = test::grow_snapshot(test::corpus_dir() + "/" + kInput, scratch.path(), 2, true);
  auto where = locate_snapshot(grown.dir);
  REQUIRE(where.ok());
  auto m = read_metadata_file(where->metadata_path);
  REQUIRE(m.ok());
  const StreamOpener streams = StreamOpener::for_snapshot(*where, {});
  size_t handles = 0, total = 0;
  for (const OperatorState& op : m->operators)
    for (const SubtaskState& st : op.subtasks) {
      const KeyedHandle& h = st.managed_keyed;
      if (h.type != handle_type::kIncremental) continue;
      ++handles;
      auto source = open_raw_keyed(h, streams, op.max_parallelism);
      REQUIRE(source.ok());
      REQUIRE(source->layout == KeyedLayout::kNative);
      const int prefix = key_group_prefix_bytes(op.max_parallelism);
      int32_t previous = -1;
      std::vector<std::string> keys;
      Status s = read_raw_keyed(h, *source, streams, op.max_parallelism,
                                [&](int32_t kg, std::vector<std::vector<RocksPair>>& by_state) -> Status {
                                  CHECK(kg > previous);
                                  CHECK(h.range.contains(kg));
                                  previous = kg;
                                  REQUIRE(by_state.size() == source->meta.states.size());
                                  size_t pairs = 0;
                                  for (size_t id = 0; id < by_state.size(); ++id)
                                    for (const RocksPair& p : by_state[id]) {
                                      CHECK(key_group_of_rocks_key(p.key, prefix) == kg);
                                      keys.push_back(std::to_string(id) + "/" + p.key);
                                      ++pairs;
                                    }
                                  CHECK(pairs > 0);
                                  return Status::OK();
                                });
      INFO((s.ok() ? std::string() : s.error().to_string()));
      REQUIRE(s.ok());
      total += keys.size();
      std::sort(keys.begin(), keys.end());
      CHECK(std::adjacent_find(keys.begin(), keys.end()) == keys.end());
    }
  CHECK(handles > 0);
  CHECK(total > 0);
}
