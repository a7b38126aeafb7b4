// ckpt dump on Flink's own snapshots: no errors, agreement with an independent decoding,
// identical logical state across backends and snapshot kinds, key groups that match the keys.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/dump.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "state/backend_meta.h"
#include "state/stream_opener.h"
#include "types/value_decoder.h"
#include "testlib/dump_values.h"
#include "testlib/test_support.h"

using namespace ckpt;
using nlohmann::json;
using test::is_opaque;
namespace fs = std::filesystem;

namespace {

// Snapshots whose dump is known to stop short, with the reason; each must still fail the
// way it is listed, so that fixing one forces this list to shrink.
// (Empty since heap values of a job-defined serializer are delimited by the key group's bounds.)
const std::map<std::string, std::string> kKnownGaps = {};

struct Collect : DumpSink {
  std::vector<json> entries;
  std::vector<std::string> problems;
  void entry(const Entry& e) override { entries.push_back(json::parse(to_ndjson(e))); }
  void problem(const Error& e) override { problems.push_back(e.to_string()); }
};

std::string name_of(const std::string& dir) { return fs::path(dir).filename().string(); }

// The entry without its value: what identifies it.
std::string identity(json e) {
  e.erase("value");
  e.erase("mode");
  e.erase("raw_keyed");
  if (e.value("kind", "") == "timer") e["kind"] = "keyed";
  return e.dump();
}

}  // namespace

TEST_CASE("every corpus snapshot dumps without an error - in parallel or not - the same way", "[corpus][state]") {
  // Apart from the listed gaps, dump_snapshot succeeds on all 107 snapshots, and -j 3 prints
  // exactly what -j 1 prints.
  CKPT_REQUIRE_SHARED();
  size_t dumped = 0, entries = 0;
  for (const std::string& dir : test::corpus_snapshots()) {
    INFO(dir);
    Collect one;
    DumpOptions options;
    Result<DumpSummary> r = dump_snapshot(dir, options, one);
    auto gap = kKnownGaps.find(name_of(dir));
    if (gap != kKnownGaps.end()) {
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().to_string().find(gap->second) != std::string::npos);
      continue;
    }
    REQUIRE(r.ok());
    CHECK(one.problems.empty());
    CHECK(r->entries == one.entries.size());
    Collect three;
    options.jobs = 3;
    REQUIRE(dump_snapshot(dir, options, three).ok());
    CHECK(three.entries == one.entries);
    ++dumped;
    entries += one.entries.size();
  }
  CHECK(dumped == 107);
  CHECK(entries > 4000);
}

TEST_CASE("dumped entries agree with the independent decoding in flink-expected", "[corpus][state]") {
  // Same set of entries (operator, subtask, state, key group, key, namespace, user key) and
  // the same values; where ckpt shows a user serializer's bytes as hex and the reference read
  // them as a Long, the hex is that Long's 8 bytes big-endian (in the heap layout ckpt inferred
  // their length, in RocksDB's the layout gives it).
  CKPT_REQUIRE_SHARED();
  size_t compared = 0, opaque = 0, opaque_longs = 0;
  for (const std::string& dir : test::corpus_snapshots()) {
    if (kKnownGaps.count(name_of(dir))) continue;
    INFO(dir);
    Collect got;
    REQUIRE(dump_snapshot(dir, DumpOptions{}, got).ok());
    // Operator list states repeat an identity once per element; the reference collapses
    // duplicates, so values are compared as sets.
    std::map<std::string, std::set<std::string>> mine, expected;
    std::set<std::string> opaque_ids;
    for (const json& e : got.entries) {
      mine[identity(e)].insert(e["value"].dump());
      if (is_opaque(e["value"])) opaque_ids.insert(identity(e));
    }
    std::ifstream in(test::expected_dir() + "/" + name_of(dir) + ".ndjson");
    REQUIRE(in);
    for (std::string line; std::getline(in, line);) {
      json e = json::parse(line);
      expected[identity(e)].insert(e["value"].dump());
    }
    REQUIRE(mine.size() == expected.size());
    for (const auto& [id, values] : expected) {
      INFO(id);
      auto it = mine.find(id);
      REQUIRE(it != mine.end());
      if (opaque_ids.count(id)) {
        ++opaque;
        REQUIRE(values.size() == 1);
        json want = json::parse(*values.begin());
        if (!want.is_number_integer()) continue;
        REQUIRE(it->second.size() == 1);
        json hex = json::parse(*it->second.begin())["hex"];
        CHECK(hex == fmt::format("{:016x}", static_cast<uint64_t>(want.get<int64_t>())));
        ++opaque_longs;
        continue;
      }
      CHECK(it->second == values);
      compared += values.size();
    }
  }
  CHECK(compared > 4500);
  // The type-serializer job's 4 values in each of its 6 variants, heap ones included.
  CHECK(opaque == 24);
  CHECK(opaque_longs == 24);
}

TEST_CASE("one job's state is the same in every backend and snapshot kind of a Flink version", "[corpus][state]") {
  // Heap checkpoint, heap canonical / native savepoint, RocksDB checkpoint, RocksDB canonical /
  // native savepoint: identical entries, except processing-time timers, whose timestamps are
  // wall-clock times of the run that wrote each snapshot.
  // Change logs store no key serializer: where a changelog checkpoint shows an operator's keys
  // as hex, that operator's keys are left out of the comparison in every variant of the job.
  CKPT_REQUIRE_SHARED();
  std::map<std::string, std::map<std::string, std::vector<json>>> groups;
  std::map<std::string, std::set<std::string>> keyless;  // job -> operators with hex keys
  const std::regex variant(R"((.*-flink1\.\d+)-(.*))");
  for (const std::string& dir : test::corpus_snapshots()) {
    std::smatch m;
    std::string name = name_of(dir);
    if (kKnownGaps.count(name) || !std::regex_match(name, m, variant)) continue;
    Collect got;
    REQUIRE(dump_snapshot(dir, DumpOptions{}, got).ok());
    for (json& e : got.entries) {
      if (e["state"].get<std::string>().starts_with("_timer_state/processing_")) e["value"] = nullptr;
      if (e.contains("key") && is_opaque(e["key"]) && e["key"]["why"] == "changelog without key serializer snapshot")
        keyless[m[1]].insert(e["operator"].get<std::string>());
    }
    groups[m[1]][m[2]] = std::move(got.entries);
  }
  size_t compared = 0;
  for (const auto& [job, variants] : groups) {
    INFO(job);
    REQUIRE(variants.size() >= 2);
    std::map<std::string, std::set<std::string>> sets;
    for (const auto& [name, entries] : variants) {
      for (json e : entries) {
        if (keyless[job].count(e["operator"].get<std::string>())) e.erase("key");
        sets[name].insert(e.dump());
      }
    }
    const auto& [first_name, first] = *sets.begin();
    CHECK_FALSE(first.empty());
    for (const auto& [name, entries] : sets) {
      INFO(first_name << " vs " << name);
      CHECK(entries == first);
      ++compared;
    }
  }
  CHECK(groups.size() == 27);
  CHECK(compared >= 92);
  // The job with a job-defined value serializer takes part with all six variants (the heap ones
  // through inferred value lengths), and its values are the opaque hex in each.
  const auto& typed = groups["type-serializer-snapshot-migration-itcase-flink1.16"];
  CHECK(typed.size() == 6);
  for (const auto& [name, entries] : typed) {
    INFO(name);
    size_t opaque_values = 0;
    for (const json& e : entries)
      if (e["state"] == "testState" && is_opaque(e["value"])) ++opaque_values;
    CHECK(opaque_values == 4);
  }
  // Only the 1.17 changelog checkpoint's two flat-map operators lack a key serializer.
  size_t keyless_operators = 0;
  for (const auto& [job, ops] : keyless) keyless_operators += ops.size();
  CHECK(keyless_operators == 2);
}

TEST_CASE("the key group of every keyed entry is the one Flink computes from its key", "[corpus][state]") {
  // murmur(key.hashCode()) % maxParallelism, with the key decoded by the backend's key
  // serializer, equals the key group the entry was stored under (heap and RocksDB layouts).
  CKPT_REQUIRE_SHARED();
  size_t checked = 0;
  for (const std::string& dir : test::corpus_snapshots()) {
    std::string name = name_of(dir);
    if (kKnownGaps.count(name)) continue;
    INFO(dir);
    Result<Metadata> m = read_metadata_file(dir);
    REQUIRE(m.ok());
    const StreamOpener streams = StreamOpener::for_snapshot({dir + "/_metadata", dir}, {});
    Collect got;
    REQUIRE(dump_snapshot(dir, DumpOptions{}, got).ok());
    for (const OperatorState& op : m->operators) {
      std::string hex = operator_id_hex(op.id);
      for (const SubtaskState& st : op.subtasks) {
        const KeyedHandle& h = st.managed_keyed;
        const StreamHandle* meta_stream = nullptr;
        if (h.type == handle_type::kIncremental || h.type == handle_type::kIncrementalV1 ||
            h.type == handle_type::kKeyGroups || h.type == handle_type::kKeyGroupsWithId ||
            h.type == handle_type::kSavepointKeyGroups)
          meta_stream = &h.delegate;
        if (!meta_stream) continue;
        Result<StateStream> s = streams.open(*meta_stream);
        REQUIRE(s.ok());
        std::string bytes;
        REQUIRE(s->read(0, std::min<uint64_t>(s->size(), 1 << 20), &bytes).ok());
        ByteReader r(bytes);
        Result<KeyedBackendMeta> meta = read_keyed_backend_meta(r);
        REQUIRE(meta.ok());
        auto decoder = make_decoder(meta->key_serializer);
        REQUIRE(decoder.ok());
        for (const json& e : got.entries) {
          if (e["operator"] != hex || e["subtask"] != st.index || !e.contains("key_group")) continue;
          auto kg = compute_key_group(**decoder, e["key"], op.max_parallelism);
          if (!kg) continue;
          CHECK(*kg == e["key_group"].get<int32_t>());
          CHECK(h.range.contains(*kg));
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 1500);
}
