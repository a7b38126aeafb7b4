// ckpt diff --keys on generated chains: exactly the entries the generator's model says each step added, removed and changed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/diff.h"
#include "ckpt/generate.h"
#include "ops/diff/diff_internal.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

// (change, operator, state, key group, key, user key), the way both sides are compared.
using ComparedChange = std::tuple<std::string, std::string, std::string, int32_t, std::string, std::string>;

GenerateOptions chain_options(const std::string& out, uint64_t seed) {
  GenerateOptions o;
  o.output = out;
  o.operators = 2;
  o.parallelism = 2;
  o.max_parallelism = 64;
  o.keys = 3000;
  o.value_size = 8;
  o.states = {"value", "list", "map"};
  o.seed = seed;
  o.chain = 5;
  o.churn = 0.2;
  o.jobs = 2;
  return o;
}

struct ChangeCollector : KeyChangeSink {
  std::multiset<ComparedChange> seen;
  void change(const KeyChange& c) override {
    const Entry& e = c.after ? *c.after : *c.before;
    seen.insert({c.what, e.operator_id, e.state, e.key_group.value_or(-1), e.key ? e.key->as_string() : "",
                 e.user_key ? e.user_key->as_string() : ""});
  }
};

std::multiset<ComparedChange> truth_of(const GeneratedChainDelta& d) {
  std::multiset<ComparedChange> out;
  for (const GeneratedChange& c : d.changes) out.insert({c.what, c.operator_id, c.state, c.key_group, c.key, c.user_key});
  return out;
}

// Per (operator, state): added, removed, changed.
std::map<std::pair<std::string, std::string>, std::tuple<uint64_t, uint64_t, uint64_t>> counts_of(
    const std::multiset<ComparedChange>& changes) {
  std::map<std::pair<std::string, std::string>, std::tuple<uint64_t, uint64_t, uint64_t>> out;
  for (const auto& [what, op, state, kg, key, user_key] : changes) {
    auto& [added, removed, changed] = out[{op, state}];
    (what == "added" ? added : what == "removed" ? removed : changed)++;
  }
  return out;
}

}  // namespace

TEST_CASE("diff --keys of consecutive generated checkpoints reports exactly the entries the generator changed", "[unit][ops]") {
  // The generator's model and schedule (read no file) say which keys each step adds, drops and rewrites; the library diff of the written checkpoints must agree entry for entry, across a seed sweep.
  uint64_t added = 0, removed = 0, changed = 0;
  for (uint64_t seed : {1, 2, 3, 4}) {
    test::ScratchDir dir;
    const std::string root = dir / "job";
    GenerateOptions o = chain_options(root, seed);
    REQUIRE(generate_snapshot(o).ok());
    for (int32_t k = 1; k < o.chain; ++k) {
      INFO(fmt::format("seed {}, chk-{} -> chk-{}", seed, k, k + 1));
      auto delta = generated_chain_delta(o, k);
      REQUIRE(delta.ok());
      DiffOptions options;
      options.keys = true;
      ChangeCollector sink;
      auto report = diff_snapshots(fmt::format("{}/chk-{}", root, k), fmt::format("{}/chk-{}", root, k + 1), options, &sink);
      REQUIRE(report.ok());
      const std::multiset<ComparedChange> expected = truth_of(*delta);
      CHECK(sink.seen == expected);
      std::map<std::pair<std::string, std::string>, std::tuple<uint64_t, uint64_t, uint64_t>> reported;
      for (const KeyDiffCounts& c : report->keys)
        if (c.differs()) reported[{c.operator_id, c.state}] = {c.added, c.removed, c.changed};
      CHECK(reported == counts_of(expected));
      CHECK(report->differs() == !expected.empty());
      added += delta->added;
      removed += delta->removed;
      changed += delta->changed;
    }
  }
  // The sweep exercised every kind of change, not only rewritten values.
  CHECK(added > 0);
  CHECK(removed > 0);
  CHECK(changed > 0);
}

TEST_CASE("ckpt diff --keys --format ndjson lists exactly the entries a generated chain step changed", "[cli]") {
  // The CLI's change lines name the same (change, operator, state, key group, key, user key) set as the generator's truth, in the documented order (by operator, then state, then key group), and exit 1.
  test::ScratchDir dir;
  const std::string root = dir / "job";
  GenerateOptions o = chain_options(root, 7);
  o.chain = 3;
  o.churn = 0.6;  // both steps rewrite buckets, the second some for the second time
  REQUIRE(generate_snapshot(o).ok());
  auto delta = generated_chain_delta(o, 2);
  REQUIRE(delta.ok());
  REQUIRE(delta->added > 0);
  REQUIRE(delta->removed > 0);
  REQUIRE(delta->changed > 0);
  test::CliResult r = test::run_cli({"diff", "--keys", "--format", "ndjson", root + "/chk-2", root + "/chk-3"});
  INFO(r.err);
  REQUIRE(r.status == 1);
  std::multiset<ComparedChange> seen;
  std::istringstream lines(r.out);
  std::tuple<std::string, std::string, int32_t> previous;  // the documented order: operator, state, key group
  std::set<std::string> operators_done;
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line);
    std::tuple<std::string, std::string, int32_t> at{j.at("operator"), j.at("state"), j.at("key_group")};
    if (std::get<0>(at) != std::get<0>(previous)) {
      CHECK(operators_done.insert(std::get<0>(at)).second);  // each operator in one run
    } else {
      CHECK(previous <= at);
    }
    previous = at;
    seen.insert({j.at("change").get<std::string>(), j.at("operator").get<std::string>(), j.at("state").get<std::string>(),
                 j.at("key_group").get<int32_t>(), j.at("key").get<std::string>(),
                 j.contains("user_key") ? j.at("user_key").get<std::string>() : ""});
    // Values as the contract says: before for what A had, after for what B has.
    CHECK(j.contains("before") == (j.at("change") != "added"));
    CHECK(j.contains("after") == (j.at("change") != "removed"));
  }
  CHECK(seen == truth_of(*delta));
}

TEST_CASE("generated_chain_delta refuses what is not a step of a chain", "[unit][ops]") {
  // A step needs a chain and a checkpoint that has a successor in it.
  GenerateOptions o;
  o.chain = 3;
  CHECK_FALSE(generated_chain_delta(o, 0).ok());
  CHECK_FALSE(generated_chain_delta(o, 3).ok());
  CHECK(generated_chain_delta(o, 2).ok());
  o.chain = 0;
  CHECK_FALSE(generated_chain_delta(o, 1).ok());
}

namespace {

struct KeyedCounts : DumpSink {
  std::map<int32_t, uint64_t> per_group;  // key group -> entries of every state
  std::map<int32_t, uint64_t> per_subtask;
  uint64_t total = 0;
  void entry(const Entry& e) override {
    per_group[e.key_group.value_or(-1)]++;
    per_subtask[e.subtask]++;
    ++total;
  }
  void problem(const Error& e) override { FAIL(e.to_string()); }
  uint64_t largest_group() const {
    uint64_t m = 0;
    for (const auto& [k, n] : per_group) m = std::max(m, n);
    return m;
  }
  uint64_t smallest_subtask() const {
    uint64_t m = UINT64_MAX;
    for (const auto& [k, n] : per_subtask) m = std::min(m, n);
    return m;
  }
};

KeyedCounts count_entries(const std::string& snapshot, Progress* progress = nullptr) {
  KeyedCounts c;
  DumpOptions o;
  o.progress = progress;
  REQUIRE(dump_snapshot(snapshot, o, c).ok());
  return c;
}

Result<DiffReport> diff_with_stats(const std::string& a, const std::string& b, KeyDiffStats* stats) {
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation wa, locate_snapshot(a));
  CKPT_ASSIGN_OR_RETURN(SnapshotLocation wb, locate_snapshot(b));
  CKPT_ASSIGN_OR_RETURN(Metadata ma, read_metadata_file(wa.metadata_path));
  CKPT_ASSIGN_OR_RETURN(Metadata mb, read_metadata_file(wb.metadata_path));
  DiffReport r = diff_metadata(ma, wa, mb, wb);
  DiffOptions options;
  options.keys = true;
  CKPT_RETURN_IF_ERROR(
      diff_keys(wa, ma, collect_states(ma, wa, {}), wb, mb, collect_states(mb, wb, {}), options, r, nullptr, stats));
  return r;
}

}  // namespace

TEST_CASE("diff --keys holds one key group per side whatever the layouts and parallelism", "[unit][ops]") {
  // A RocksDB savepoint (a dump reads it state by state) against a heap one of the same state at another parallelism
  // (key group by key group): every entry is the same, each operator is read once per side, and the entries held for
  // comparison never exceed the largest key group of each side, a small part of one subtask.
  test::ScratchDir dir;
  GenerateOptions o = chain_options(dir / "rocks", 11);
  o.chain = 0;  // one native savepoint
  o.operators = 1;
  o.max_parallelism = 256;
  o.keys = 20000;
  REQUIRE(generate_snapshot(o).ok());
  GenerateOptions h = o;
  h.output = dir / "heap";
  h.backend = GenerateBackend::kHeap;
  h.parallelism = 3;
  REQUIRE(generate_snapshot(h).ok());
  const KeyedCounts ca = count_entries(o.output), cb = count_entries(h.output);
  REQUIRE(ca.total == cb.total);

  KeyDiffStats stats;
  auto r = diff_with_stats(o.output, h.output, &stats);
  REQUIRE(r.ok());
  uint64_t same = 0;
  for (const KeyDiffCounts& c : r->keys) {
    INFO(c.state);
    CHECK_FALSE(c.differs());
    same += c.same;
  }
  CHECK(same == ca.total);
  // Both sides' serializers are the same: every entry compared as the bytes they wrote, the
  // lists too, whose bytes differ between the layouts (a heap list with its count, a RocksDB
  // one joined by ',') and fall back to their decoded values.
  CHECK(stats.compared_as_bytes == ca.total + cb.total);
  CHECK(stats.compared_as_text == 0);
  CHECK(stats.passes == 1);  // one operator, read once per side: not once per state
  CHECK(stats.peak_buffered > 0);
  CHECK(stats.peak_buffered <= ca.largest_group() + cb.largest_group());
  // The bound means something: a subtask (what the diff used to hold) is far larger.
  CHECK(stats.peak_buffered * 10 < std::min(ca.smallest_subtask(), cb.smallest_subtask()));
}

TEST_CASE("diff --keys reads the state of two heap snapshots once as their dumps do", "[unit][ops]") {
  // Two heap snapshots of three states: the key diff reads exactly the state bytes a dump of each reads, not the files
  // once per state as when it read state by state.
  test::ScratchDir dir;
  GenerateOptions o = chain_options(dir / "a", 5);
  o.chain = 0;
  o.operators = 1;
  o.keys = 3000;
  o.backend = GenerateBackend::kHeap;
  REQUIRE(generate_snapshot(o).ok());
  GenerateOptions p = o;
  p.output = dir / "b";
  p.keys = 3500;  // the same operator, more keys
  REQUIRE(generate_snapshot(p).ok());
  Progress pa, pb;
  count_entries(o.output, &pa);
  count_entries(p.output, &pb);
  REQUIRE(pa.bytes_done.load() > 0);

  KeyDiffStats stats;
  auto r = diff_with_stats(o.output, p.output, &stats);
  REQUIRE(r.ok());
  CHECK(r->keys_differ());
  CHECK(stats.passes == 1);
  CHECK(stats.bytes_read == pa.bytes_done.load() + pb.bytes_done.load());
}

TEST_CASE("diff --keys stops with the error of a side it cannot read and names the file", "[corrupt][ops]") {
  // A truncated SST only the newer checkpoint references ends the key diff with an error about that file instead of a hang or a partial answer.
  test::ScratchDir dir;
  const std::string root = dir / "job";
  GenerateOptions o = chain_options(root, 3);
  o.chain = 2;
  o.churn = 1.0;  // every bucket rewritten: chk-2 has SSTs of its own
  REQUIRE(generate_snapshot(o).ok());
  auto files = diff_snapshots(root + "/chk-1", root + "/chk-2", DiffOptions{});
  REQUIRE(files.ok());
  std::string victim;
  for (const DiffFile& f : files->files_added)
    if (f.uri.find("/shared/") != std::string::npos) victim = f.uri;
  REQUIRE_FALSE(victim.empty());
  if (victim.rfind("file:", 0) == 0) victim = victim.substr(5);
  std::filesystem::resize_file(victim, std::filesystem::file_size(victim) / 2);
  DiffOptions options;
  options.keys = true;
  ChangeCollector sink;
  auto r = diff_snapshots(root + "/chk-1", root + "/chk-2", options, &sink);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().to_string().find(std::filesystem::path(victim).filename().string()) != std::string::npos);
}
