// ckpt load on Flink's own snapshots: `dump S | load --like S` gives a snapshot whose dump is
// S's and whose heap and canonical key-group streams and operator-state streams hold S's bytes.
// That proves every encoder on every value the corpus holds: encode(decode(b)) == b.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/load.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "state/raw_keyed_reader.h"
#include "state/stream_opener.h"
#include "testlib/dump_lines.h"
#include "testlib/snapshot_metadata.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

// Snapshots load refuses, and why: each must keep being refused this way (kNotSupported).
const std::map<std::string, std::string> kNotLoadable = {
    // A changelog handle without a key serializer: its keys are dumped as hex and have no type.
    {"new-stateful-udf-migration-itcase-flink1.17-hashmap-checkpoint", "stores no key serializer snapshot"},
};

std::string handle_stream_bytes(const std::string& snapshot, const StreamHandle& h) {
  auto where = locate_snapshot(snapshot);
  REQUIRE(where.ok());
  StreamOpener streams = StreamOpener::for_snapshot(*where, {});
  std::string bytes;
  Status s = streams.read(h, [&](const StateStream& stream) { return stream.read(0, stream.size(), &bytes); });
  INFO(snapshot << ": " << (s.ok() ? "" : s.error().to_string()));
  REQUIRE(s.ok());
  return bytes;
}

// Dump-equal, but some value's bytes differ from Flink's (8 bytes a value in a row of the
// table runtime with a STRUCTURED or RAW accumulator field): not yet understood.
const char* const kNotByteIdentical[] = {
};

bool byte_identity_known(const std::string& snapshot) {
  for (const char* s : kNotByteIdentical)
    if (test::contains(snapshot, s)) return false;
  return true;
}

// Whether every state of the keyed proxy of `h` has an entry among `lines` of that subtask: a
// heap stream writes its states in an order of its own, which the lines give only for states
// that have entries there.
bool every_state_in_lines(const std::string& snapshot, const KeyedHandle& h, int32_t max_parallelism,
                          const std::set<std::string>& states_with_entries) {
  auto where = locate_snapshot(snapshot);
  REQUIRE(where.ok());
  auto source = open_raw_keyed(h, StreamOpener::for_snapshot(*where, {}), max_parallelism);
  REQUIRE(source.ok());
  for (const StateMetaInfo& s : source->meta.states)
    if (!states_with_entries.count(s.name)) return false;
  return true;
}

bool compressed(const std::string& snapshot, const KeyedHandle& h, int32_t max_parallelism) {
  auto where = locate_snapshot(snapshot);
  REQUIRE(where.ok());
  auto source = open_raw_keyed(h, StreamOpener::for_snapshot(*where, {}), max_parallelism);
  REQUIRE(source.ok());
  return source->meta.compression;
}

bool is_key_groups_stream(const KeyedHandle& h) {
  return h.type == handle_type::kKeyGroups || h.type == handle_type::kKeyGroupsWithId ||
         h.type == handle_type::kSavepointKeyGroups;
}

// Raw keyed handles (legacy timers) compared byte for byte over the run.
int raw_keyed_compared = 0;

// The round trip of one snapshot; returns the kNotSupported message where load refuses it.
std::string round_trip(const std::string& snapshot, int jobs) {
  INFO(snapshot);
  const std::vector<std::string> lines = test::dump_lines(snapshot);
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  std::istringstream in(text);
  test::ScratchDir scratch(test::memory_temp_dir());
  LoadOptions o;
  o.like = snapshot;
  o.output = scratch / "out";
  o.run_bytes = 4096;
  o.jobs = jobs;  // several runs per bucket in the larger snapshots: the merge is exercised
  auto r = load_snapshot(in, "dump", o);
  if (!r.ok() && r.error().code == ErrorCode::kNotSupported) return r.error().message;
  INFO((r.ok() ? "" : r.error().to_string()));
  REQUIRE(r.ok());
  CHECK(r->lines == lines.size());
  CHECK(test::dump_lines(o.output) == lines);
  std::map<std::pair<std::string, int64_t>, std::set<std::string>> states_of;  // (operator, subtask) -> states
  for (const std::string& l : lines) {
    const auto j = nlohmann::json::parse(l);
    states_of[{j["operator"].get<std::string>(), j["subtask"].get<int64_t>()}].insert(j["state"].get<std::string>());
  }
  const bool identical = byte_identity_known(snapshot);
  const Metadata in_meta = test::metadata_of(snapshot);
  const Metadata out_meta = test::metadata_of(o.output);
  REQUIRE(in_meta.operators.size() == out_meta.operators.size());
  for (size_t i = 0; i < in_meta.operators.size(); ++i) {
    const OperatorState& a = in_meta.operators[i];
    const OperatorState& b = out_meta.operators[i];
    REQUIRE(a.subtasks.size() == b.subtasks.size());
    for (size_t j = 0; j < a.subtasks.size(); ++j) {
      const SubtaskState& x = a.subtasks[j];
      const SubtaskState& y = b.subtasks[j];
      INFO("operator " << operator_id_hex(a.id) << ", subtask " << x.index);
      if (identical && is_key_groups_stream(x.managed_keyed)) {
        // A compressed stream is written back uncompressed: only its entries are the same.
        if (!compressed(snapshot, x.managed_keyed, a.max_parallelism) &&
            every_state_in_lines(snapshot, x.managed_keyed, a.max_parallelism,
                                 states_of[{operator_id_hex(a.id), x.index}])) {
          std::string want = handle_stream_bytes(snapshot, x.managed_keyed.delegate);
          CHECK(handle_stream_bytes(o.output, y.managed_keyed.delegate) == want);
          CHECK(y.managed_keyed.offsets == x.managed_keyed.offsets);
        }
      }
      // Legacy timers in raw keyed state: each key group's block as Flink wrote it (the services
      // as the template lists them, the timers in the lines' order, which is the stream's).
      REQUIRE(x.raw_keyed.is_null() == y.raw_keyed.is_null());
      if (!x.raw_keyed.is_null()) {
        CHECK(handle_stream_bytes(o.output, y.raw_keyed.delegate) == handle_stream_bytes(snapshot, x.raw_keyed.delegate));
        CHECK(y.raw_keyed.offsets == x.raw_keyed.offsets);
        ++raw_keyed_compared;
      }
      REQUIRE(x.managed_operator.size() == y.managed_operator.size());
      for (size_t k = 0; k < x.managed_operator.size(); ++k) {
        if (x.managed_operator[k].is_null()) continue;
        CHECK(handle_stream_bytes(o.output, y.managed_operator[k].delegate) ==
              handle_stream_bytes(snapshot, x.managed_operator[k].delegate));
        CHECK(y.managed_operator[k].states == x.managed_operator[k].states);
      }
    }
  }
  return {};
}

// `jobs` threads encode the lines: the output is the same whatever their number.
void check_round_trips(const std::vector<std::string>& snapshots, int jobs = 1) {
  for (const std::string& s : snapshots) {
    const std::string name = s.substr(s.rfind('/', s.size() - 2) + 1);  // a SQL one's is "savepoint"
    std::string refused = round_trip(s, jobs);
    auto known = kNotLoadable.find(name);
    INFO(name << ": " << refused);
    if (known == kNotLoadable.end()) CHECK(refused.empty());
    else CHECK(test::contains(refused, known->second));
  }
}

std::vector<std::string> named(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names) out.push_back(test::corpus_dir() + "/" + n);
  return out;
}

}  // namespace

TEST_CASE("load round trips a sample of Flink snapshots - heap - canonical - native - broadcast - SQL", "[corpus][ops]") {
  CKPT_REQUIRE_SHARED();
  std::vector<std::string> sample = named({
      "new-stateful-udf-migration-itcase-flink1.20-hashmap-savepoint",
      "new-stateful-udf-migration-itcase-flink1.20-hashmap-savepoint-native",
      "new-stateful-udf-migration-itcase-flink1.17-hashmap-savepoint",
      "new-stateful-udf-migration-itcase-flink1.20-rocksdb-savepoint-native",
      "new-stateful-udf-migration-itcase-flink1.10-savepoint",
      "new-stateful-broadcast-udf-migration-itcase-flink1.19-hashmap-savepoint",
      "type-serializer-snapshot-migration-itcase-flink1.16-hashmap-savepoint",
      "legacy-raw-state-heap-timers-rocks-db-1.12",
      "new-stateful-udf-migration-itcase-flink1.9-rocksdb-savepoint",
  });
  for (const char* sql : {"stream-exec-join_1/join-left-join", "stream-exec-group-aggregate_1/group-aggregate-distinct",
                          "stream-exec-expand_1/expand"})
    sample.push_back(test::sql_corpus_dir() + "/" + sql + "/savepoint");
  raw_keyed_compared = 0;
  check_round_trips(sample);
  CHECK(raw_keyed_compared > 0);
  check_round_trips(sample, 3);
}

TEST_CASE("load round trips every snapshot of the corpus", "[corpus][ops][large]") {
  CKPT_REQUIRE_SHARED();
  check_round_trips(test::corpus_snapshots());
  check_round_trips(test::sql_corpus_snapshots());
}

TEST_CASE("load refuses a legacy timer of a service the template lacks naming the services it has", "[corpus][ops]") {
  CKPT_REQUIRE_SHARED();
  const std::string snapshot = test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.9-rocksdb-savepoint";
  std::string text;
  for (const std::string& l : test::dump_lines(snapshot)) {
    if (!test::contains(l, "\"_timer_state/event_timer\"")) continue;
    const size_t at = l.find("event_timer");
    text = l.substr(0, at) + "event_nope" + l.substr(at + 11) + "\n";
    break;
  }
  REQUIRE_FALSE(text.empty());
  std::istringstream in(text);
  test::ScratchDir scratch;
  LoadOptions o;
  o.like = snapshot;
  o.output = scratch / "out";
  auto r = load_snapshot(in, "timers", o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidArgument);
  CHECK_THAT(r.error().message, Catch::Contains("timers:1: state: operator"));
  CHECK_THAT(r.error().message, Catch::Contains("has no keyed state '_timer_state/event_nope'"));
  CHECK_THAT(r.error().message, Catch::Contains("of the services 'timer'"));
  CHECK_FALSE(std::filesystem::exists(o.output));
}
