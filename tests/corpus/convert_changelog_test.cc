// A changelog-backend checkpoint read for conversion: its change logs replayed on RocksDB-layout
// pairs give the pairs Flink's own RocksDB backend wrote for the same job.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "state/raw_keyed_reader.h"
#include "types/value_decoders.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

struct Snapshot {
  Metadata metadata;
  StreamOpener streams;
};

Snapshot open_snapshot(const std::string& name) {
  auto where = locate_snapshot(test::corpus_dir() + "/" + name);
  REQUIRE(where.ok());
  auto m = read_metadata_file(where->metadata_path);
  REQUIRE(m.ok());
  Snapshot s;
  s.metadata = std::move(*m);
  s.streams = StreamOpener::for_snapshot(*where, {});
  return s;
}

// state name -> (key group, key bytes, value bytes) of one subtask's keyed handle, read for
// conversion. Processing-time timers hold the wall clock of the run: only their count is kept.
using StatePairs = std::map<std::string, std::multiset<std::string>>;

StatePairs raw_pairs(const Snapshot& s, const OperatorState& op, const KeyedHandle& h) {
  auto source = open_raw_keyed(h, s.streams, op.max_parallelism);
  INFO((source.ok() ? std::string() : source.error().to_string()));
  REQUIRE(source.ok());
  StatePairs out;
  for (const StateMetaInfo& info : source->meta.states) out[info.name];
  Status st = read_raw_keyed(h, *source, s.streams, op.max_parallelism,
                             [&](int32_t kg, std::vector<std::vector<RocksPair>>& by_state) -> Status {
                               for (size_t i = 0; i < by_state.size(); ++i) {
                                 const std::string& name = source->meta.states[i].name;
                                 for (const RocksPair& p : by_state[i]) {
                                   if (name == "_timer_state/processing_timer")
                                     out[name].insert(fmt::format("{}", kg));
                                   else
                                     out[name].insert(fmt::format("{} {} = {}", kg, decoders::to_hex(p.key), decoders::to_hex(p.value)));
                                 }
                               }
                               return Status::OK();
                             });
  INFO((st.ok() ? std::string() : st.error().to_string()));
  REQUIRE(st.ok());
  return out;
}

}  // namespace

TEST_CASE("a changelog checkpoint's replayed pairs equal Flink's rocksdb checkpoint of the job", "[corpus][ops]") {
  // The keyed operators whose change logs name their key serializer (through the timers'
  // snapshots): every subtask's value state and event timers, byte for byte, equal what
  // Flink's RocksDB backend wrote in the same job; processing timers agree in number.
  CKPT_REQUIRE_SHARED();
  Snapshot clog = open_snapshot(test::kUdfMigrationChangelog), rocks = open_snapshot(test::kUdfMigrationRocks);
  int compared = 0;
  for (const OperatorState& op : clog.metadata.operators) {
    auto other = std::find_if(rocks.metadata.operators.begin(), rocks.metadata.operators.end(),
                              [&](const OperatorState& o) { return o.id == op.id; });
    REQUIRE(other != rocks.metadata.operators.end());
    for (const SubtaskState& st : op.subtasks) {
      const KeyedHandle& h = st.managed_keyed;
      if (h.is_null()) continue;
      REQUIRE(h.type == handle_type::kChangelogBackend);
      auto ours = open_raw_keyed(h, clog.streams, op.max_parallelism);
      if (!ours.ok()) {
        // The flat-map operators: no materialized part and no timer names their key serializer.
        CHECK(ours.error().message.find("stores no key serializer snapshot") != std::string::npos);
        continue;
      }
      auto theirs = std::find_if(other->subtasks.begin(), other->subtasks.end(),
                                 [&](const SubtaskState& x) { return x.index == st.index; });
      REQUIRE(theirs != other->subtasks.end());
      INFO("operator " << operator_id_hex(op.id) << " subtask " << st.index);
      StatePairs a = raw_pairs(clog, op, h), b = raw_pairs(rocks, *other, theirs->managed_keyed);
      CHECK(a == b);
      CHECK(a.at("state-name").size() >= 1);
      CHECK(ours->meta.key_serializer.serializer_class.find("TupleSerializer") != std::string::npos);
      ++compared;
    }
  }
  CHECK(compared == 6);  // two keyed-process operators, subtasks 1-3
}
