// ckpt edit --max-parallelism on generated snapshots of every layout: 128 -> 4096 -> 96 and
// back gives the original entries, each step puts every key in the key group Flink's
// assignment gives it and every subtask's range is the one Flink assigns.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ckpt/dump.h"
#include "ckpt/edit.h"
#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "ckpt/verify.h"
#include "ops/edit/regroup.h"
#include "state/keyed_state_codec.h"
#include "testlib/edit_checks.h"
#include "testlib/scoped_settings.h"
#include "testlib/test_support.h"
#include "types/value_decoder.h"

using namespace ckpt;

namespace {

struct Entries : DumpSink {
  std::vector<Entry> all;
  void entry(const Entry& e) override { all.push_back(e); }
  void problem(const Error& e) override { FAIL(e.to_string()); }
};

std::vector<Entry> entries_in(const std::string& snapshot) {
  Entries sink;
  REQUIRE(dump_snapshot(snapshot, DumpOptions{}, sink).ok());
  return sink.all;
}

// Every entry's key group is Flink's for its String key, its subtask the one whose range
// holds it, and each range is KeyGroupRangeAssignment's.
void check_assignment(const std::string& snapshot, int32_t max_parallelism, int32_t parallelism) {
  INFO(snapshot << " at max parallelism " << max_parallelism);
  auto m = read_metadata_file(snapshot);
  REQUIRE(m.ok());
  std::map<std::pair<std::string, int32_t>, KeyGroupRange> ranges;
  for (const OperatorState& op : m->operators) {
    CHECK(op.max_parallelism == max_parallelism);
    CHECK(op.parallelism == parallelism);
    REQUIRE(op.subtasks.size() == static_cast<size_t>(parallelism));
    for (const SubtaskState& st : op.subtasks) {
      const KeyGroupRange want = key_group_range_of_subtask(max_parallelism, parallelism, st.index);
      CHECK(st.managed_keyed.range == want);
      ranges[{operator_id_hex(op.id), st.index}] = want;
    }
  }
  size_t checked = 0;
  for (const Entry& e : entries_in(snapshot)) {
    REQUIRE(e.key);
    REQUIRE(e.key_group);
    const std::string& key = e.key->as_string();
    CHECK(*e.key_group == key_group_for_hash(java_string_hash(key), max_parallelism));
    CHECK(ranges.at({e.operator_id, e.subtask}).contains(*e.key_group));
    ++checked;
  }
  CHECK(checked > 500);
}

// The entries without where they are (key group, subtask).
std::multiset<std::string> placeless(const std::string& snapshot) {
  std::multiset<std::string> out;
  for (Entry e : entries_in(snapshot)) {
    e.key_group.reset();
    e.subtask = 0;
    out.insert(to_ndjson(e));
  }
  return out;
}

Result<EditSummary> regroup(const std::string& in, const std::string& out, int32_t max_parallelism,
                            int32_t parallelism = 0) {
  EditOptions o;
  o.output = out;
  o.jobs = 2;
  o.max_parallelism = max_parallelism;
  o.parallelism = parallelism;
  return edit_snapshot(in, o);
}

}  // namespace

TEST_CASE("edit --max-parallelism 128 to 4096 to 96 and back keeps every entry in every layout", "[ops]") {
  // Each step verifies --deep and holds the same entries, keys in Flink's key groups and
  // subtasks; back at 128 the dump equals the original line for line (key groups included).
  for (GenerateBackend backend : {GenerateBackend::kRocksDb, GenerateBackend::kHeap, GenerateBackend::kCanonical}) {
    test::ScratchDir tmp;
    GenerateOptions g;
    g.output = tmp / "in";
    g.backend = backend;
    g.operators = 2;
    g.parallelism = 3;
    g.keys = 200;
    g.value_size = 6;
    g.states = {"value", "list", "map"};
    REQUIRE(generate_snapshot(g).ok());
    const auto original = placeless(g.output);
    std::string from = g.output;
    for (int32_t n : {4096, 96, 128}) {
      const std::string to = tmp / fmt::format("mp{}", n);
      auto r = regroup(from, to, n);
      if (!r.ok()) FAIL(r.error().to_string());
      REQUIRE(r->changes.size() == 2);
      CHECK(r->changes[0].what == "max-parallelism");
      check_assignment(to, n, 3);
      CHECK(placeless(to) == original);
      from = to;
    }
    CHECK(test::dump_set(from) == test::dump_set(g.output));
    // And the input's layout throughout.
    auto a = read_metadata_file(g.output), b = read_metadata_file(from);
    REQUIRE((a.ok() && b.ok()));
    CHECK(int(a->operators[0].subtasks[0].managed_keyed.type) == int(b->operators[0].subtasks[0].managed_keyed.type));
  }
}

TEST_CASE("edit --parallelism with --max-parallelism redistributes keyed operators to new subtasks", "[ops]") {
  // 3 subtasks at 128 become 5 at 300: every key in its new key group and subtask, no entry
  // lost; 5 back to 3 at 128 is the original.
  test::ScratchDir tmp;
  GenerateOptions g;
  g.output = tmp / "in";
  g.backend = GenerateBackend::kHeap;
  g.operators = 1;
  g.parallelism = 3;
  g.keys = 300;
  g.value_size = 4;
  g.states = {"value", "map"};
  REQUIRE(generate_snapshot(g).ok());
  auto r = regroup(g.output, tmp / "five", 300, 5);
  if (!r.ok()) FAIL(r.error().to_string());
  check_assignment(tmp / "five", 300, 5);
  CHECK(placeless(tmp / "five") == placeless(g.output));
  REQUIRE(regroup(tmp / "five", tmp / "three", 128, 3).ok());
  CHECK(test::dump_set(tmp / "three") == test::dump_set(g.output));
}

TEST_CASE("edit --max-parallelism refuses a max parallelism below the parallelism", "[ops]") {
  // Flink cannot run 4 subtasks over 3 key groups: refused, nothing written.
  test::ScratchDir tmp;
  GenerateOptions g;
  g.output = tmp / "in";
  g.parallelism = 4;
  g.keys = 20;
  REQUIRE(generate_snapshot(g).ok());
  auto r = regroup(g.output, tmp / "out", 3);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().to_string().find("parallelism 4 is not in 1..3") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp / "out"));
}

TEST_CASE("regrouping through many buckets and spilled runs gives what one in-memory run gives", "[ops]") {
  // With runs of 4 KiB each output subtask is spilled to dozens of key-group buckets, some read
  // back in sorted runs merged by key group: the pairs per key group and state are the ones the
  // single in-memory run gives, in ascending key groups inside the subtask's range, keys
  // carrying the new group's prefix.
  test::ScratchDir tmp;
  GenerateOptions g;
  g.output = tmp / "in";
  g.backend = GenerateBackend::kRocksDb;
  g.parallelism = 2;
  g.keys = 400;
  g.value_size = 20;
  g.states = {"value", "list", "map"};
  REQUIRE(generate_snapshot(g).ok());
  auto where = locate_snapshot(g.output);
  REQUIRE(where.ok());
  auto m = read_metadata_file(where->metadata_path);
  REQUIRE(m.ok());
  const StreamOpener streams = StreamOpener::for_snapshot(*where, {});
  using Groups = std::vector<std::pair<int32_t, std::vector<std::vector<RocksPair>>>>;
  auto read_back = [&](size_t run_bytes, int32_t index) {
    auto r = Regrouper::make(m->operators.at(0), 300, 3, streams, 2, nullptr, run_bytes);
    if (!r.ok()) FAIL(r.error().to_string());
    auto source = (*r)->source(index);
    REQUIRE(source);
    Groups groups;
    REQUIRE(source
                ->produce([&](int32_t kg, std::vector<std::vector<RocksPair>>& by_state) -> Status {
                  CHECK(source->range.contains(kg));
                  CHECK((groups.empty() || groups.back().first < kg));
                  for (const auto& pairs : by_state)
                    for (const RocksPair& p : pairs) CHECK(key_group_of_rocks_key(p.key, 2) == kg);
                  groups.emplace_back(kg, by_state);
                  return Status::OK();
                })
                .ok());
    return groups;
  };
  size_t pairs = 0;
  for (int32_t index = 0; index < 3; ++index) {
    INFO("output subtask " << index);
    Groups one = read_back(Regrouper::kRunBytes, index), many = read_back(4096, index);
    CHECK(one.size() > 20);
    REQUIRE(one.size() == many.size());
    for (size_t i = 0; i < one.size(); ++i) {
      CHECK(one[i].first == many[i].first);
      REQUIRE(one[i].second.size() == many[i].second.size());
      for (size_t st = 0; st < one[i].second.size(); ++st) {
        auto text = [](const std::vector<RocksPair>& v) {
          std::vector<std::string> out;
          for (const RocksPair& p : v) out.push_back(p.key + '\0' + p.value);
          return out;
        };
        CHECK(text(one[i].second[st]) == text(many[i].second[st]));
      }
      for (const auto& pairs_of_state : one[i].second) pairs += pairs_of_state.size();
    }
  }
  CHECK(pairs > 400 * 3);  // a value, a list and 1 to 3 map fields per key
}

TEST_CASE("edit --max-parallelism to a multiple writes heap and canonical output as it reads in any key-group order",
          "[ops]") {
  // 128 -> 4096: each input key group feeds 32 output key groups no other feeds, so the heap and
  // canonical streams are written as the input is read, with nothing spilled (TMPDIR names no
  // directory, so a spill would fail), each subtask's key groups in the order they were read
  // (0, 128, 256, ... then 1, 129, ...), which Flink's restore takes by seeking to each one's
  // offset: the entries are the input's, verify --deep is clean, and the key groups lie in the
  // stream out of their order. 128 -> 96 is no multiple: it spills, and fails here.
  for (GenerateBackend backend : {GenerateBackend::kHeap, GenerateBackend::kCanonical}) {
    test::ScratchDir tmp;
    GenerateOptions g;
    g.output = tmp / "in";
    g.backend = backend;
    g.parallelism = 2;
    g.keys = 600;
    g.value_size = 8;
    g.states = {"value", "list", "map"};
    REQUIRE(generate_snapshot(g).ok());
    const std::string out = tmp / "mp4096";
    {
      test::ScopedEnv no_spill("TMPDIR", std::string(tmp / "no-such-dir"));
      auto r = regroup(g.output, out, 4096);
      if (!r.ok()) FAIL(r.error().to_string());
      CHECK(r->changes.at(0).entries > 600);
      CHECK_FALSE(regroup(g.output, tmp / "mp96", 96).ok());
    }
    check_assignment(out, 4096, 2);
    CHECK(placeless(out) == placeless(g.output));
    // Each output subtask is written by one thread, taking the inputs in order: the same bytes
    // at every run whatever -j (1: one thread reads and writes; 2: one reads, one writes; 3: one
    // reads, two write).
    for (int jobs : {1, 3}) {
      test::ScopedEnv no_spill("TMPDIR", std::string(tmp / "no-such-dir"));
      EditOptions one;
      one.output = tmp / ("mp4096-j" + std::to_string(jobs));
      one.max_parallelism = 4096;
      one.jobs = jobs;
      REQUIRE(edit_snapshot(g.output, one).ok());
      const auto a = test::tree_files(out), b = test::tree_files(one.output);
      REQUIRE(a.size() == b.size());
      for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
        INFO(jobs << " " << x->first);
        REQUIRE(x->first == y->first);
        CHECK(x->second == y->second);
      }
    }
    VerifyOptions v;
    v.deep = true;
    auto report = verify_snapshot(out, v);
    REQUIRE(report.ok());
    CHECK(report->clean());
    CHECK(report->complete());
    auto m = read_metadata_file(out);
    REQUIRE(m.ok());
    for (const SubtaskState& st : m->operators.at(0).subtasks) {
      const KeyedHandle& h = st.managed_keyed;
      CHECK(h.type == (backend == GenerateBackend::kHeap ? handle_type::kKeyGroupsWithId
                                                         : handle_type::kSavepointKeyGroups));
      std::vector<int64_t> written;
      for (int64_t off : h.offsets)
        if (off > 0) written.push_back(off);
      CHECK(written.size() > 200);  // canonical: only the key groups with entries
      CHECK_FALSE(std::is_sorted(written.begin(), written.end()));
    }
  }
}

TEST_CASE("edit --max-parallelism to a multiple writes RocksDB output as it reads in a lane of SSTs per round",
          "[ops]") {
  // Proves the RocksDB output of a regrouping to a multiple is written as the input is read,
  // nothing spilled (TMPDIR unusable): 128 -> 1024 at parallelism 2 gives each output subtask
  // key groups of 4 rounds of the input's 128, so 4 lanes of SSTs per state (3 states: 12
  // files, each state's lanes ingested side by side); every entry is kept in Flink's key group,
  // the instances verify deep, and -j 1, 2 and 3 (one thread reading and writing; one reading
  // and the others writing, the reader helping) give the same entries in the same order.
  test::ScratchDir tmp;
  GenerateOptions g;
  g.output = tmp / "in";
  g.backend = GenerateBackend::kRocksDb;
  g.parallelism = 2;
  g.keys = 900;
  g.value_size = 8;
  g.states = {"value", "list", "map"};
  REQUIRE(generate_snapshot(g).ok());
  std::vector<std::string> dumps;
  for (int jobs : {1, 2, 3}) {
    const std::string out = tmp / ("mp1024-j" + std::to_string(jobs));
    {
      test::ScopedEnv no_spill("TMPDIR", std::string(tmp / "no-such-dir"));
      EditOptions o;
      o.output = out;
      o.jobs = jobs;
      o.max_parallelism = 1024;
      auto r = edit_snapshot(g.output, o);
      if (!r.ok()) FAIL(r.error().to_string());
    }
    INFO("-j " << jobs);
    check_assignment(out, 1024, 2);
    CHECK(placeless(out) == placeless(g.output));
    auto m = read_metadata_file(out);
    REQUIRE(m.ok());
    for (const SubtaskState& st : m->operators.at(0).subtasks) {
      const KeyedHandle& h = st.managed_keyed;
      CHECK(h.type == handle_type::kIncremental);
      size_t ssts = 0;
      for (const NamedStream& f : h.private_files) ssts += f.name.ends_with(".sst");
      CHECK(ssts == 12);
    }
    VerifyOptions v;
    v.deep = true;
    auto report = verify_snapshot(out, v);
    REQUIRE(report.ok());
    CHECK(report->clean());
    std::string lines;
    for (const Entry& e : entries_in(out)) lines += to_ndjson(e) + "\n";
    dumps.push_back(std::move(lines));
  }
  CHECK(dumps[0] == dumps[1]);
  CHECK(dumps[0] == dumps[2]);
  CHECK(std::count(dumps[0].begin(), dumps[0].end(), '\n') > 2000);
}
