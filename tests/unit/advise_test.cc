// The rules of ckpt-advise(1), each on generated snapshots shaped to trigger it and shaped not
// to; thresholds are lowered where the default would need gigabytes of test data, and the
// default is then checked not to fire on the same data.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/advise.h"
#include "ckpt/entries.h"
#include "ckpt/generate.h"
#include "ckpt/report.h"
#include "testlib/test_support.h"

namespace {

ckpt::Report report_of(const std::string& path) {
  ckpt::Result<ckpt::Report> r = ckpt::build_report(path, {});
  INFO(path << ": " << (r.ok() ? "" : r.error().to_string()));
  REQUIRE(r.ok());
  return std::move(*r);
}

void generate(ckpt::GenerateOptions o) {
  ckpt::Result<ckpt::GenerateSummary> r = ckpt::generate_snapshot(o);
  INFO(o.output << ": " << (r.ok() ? "" : r.error().to_string()));
  REQUIRE(r.ok());
}

ckpt::GenerateOptions gen(const std::string& out, uint64_t keys = 2000) {
  ckpt::GenerateOptions o;
  o.output = out;
  o.keys = keys;
  return o;
}

// The rule's advice, copied out of `a` (often a temporary), or nullopt.
std::optional<ckpt::Advice> rule(const ckpt::AdviseReport& a, const std::string& name) {
  for (const ckpt::Advice& x : a.advice)
    if (x.rule == name) return x;
  return std::nullopt;
}

bool sets(const std::optional<ckpt::Advice>& a, const std::string& key, const std::string& value) {
  return a && std::any_of(a->settings.begin(), a->settings.end(),
                          [&](const ckpt::AdviceSetting& s) { return s.key == key && s.value == value; });
}

bool silent_about(const ckpt::AdviseReport& a, const std::string& name) {
  return std::any_of(a.silent.begin(), a.silent.end(), [&](const std::string& s) { return s.starts_with(name); });
}

ckpt::AdviseOptions memory(int64_t bytes, int32_t slots = 1) {
  ckpt::AdviseOptions o;
  o.tm_memory = bytes;
  o.slots = slots;
  return o;
}

}  // namespace

TEST_CASE("advise state-backend: heap state too large for a slot -> RocksDB and small RocksDB state -> heap", "[ops]") {
  ckpt::test::ScratchDir s;
  ckpt::GenerateOptions heap = gen(s / "heap", 4000);
  heap.backend = ckpt::GenerateBackend::kHeap;
  generate(heap);
  generate(gen(s / "rocks", 4000));
  const ckpt::Report h = report_of(s / "heap"), r = report_of(s / "rocks");
  // ~240 KiB per slot of state: a 1 GiB TaskManager of 64 slots has ~410 KiB of task heap per
  // slot (Flink's memory model leaves ~25.6 MiB of task heap of 1 GiB), too little for the heap;
  // 1 GiB for one slot plenty.
  const std::optional<ckpt::Advice> a = rule(ckpt::advise(h, memory(int64_t{1} << 30, 64)), "state-backend");
  REQUIRE(a);
  CHECK(sets(a, "state.backend.type", "rocksdb"));
  CHECK(a->evidence.size() == 6);  // with the largest mean entry a RocksDB access would read whole
  CHECK_FALSE(rule(ckpt::advise(h, memory(int64_t{1} << 30)), "state-backend"));
  CHECK(sets(rule(ckpt::advise(r, memory(int64_t{4} << 30)), "state-backend"), "state.backend.type", "hashmap"));
  CHECK_FALSE(rule(ckpt::advise(r, memory(int64_t{1} << 30, 64)), "state-backend"));
  // Without --tm-memory the rule has no evidence and says so.
  ckpt::AdviseReport none = ckpt::advise(h, {});
  CHECK_FALSE(rule(none, "state-backend"));
  CHECK(silent_about(none, "state-backend"));
}

TEST_CASE("advise incremental and changelog: full checkpoints -> incremental and high churn -> changelog", "[ops]") {
  ckpt::test::ScratchDir s;
  // Two full checkpoints: snapshots of their own files each (no file shared).
  std::filesystem::create_directories(s / "full");
  ckpt::GenerateOptions one = gen(s / "full/chk-1"), two = gen(s / "full/chk-2");
  one.backend = two.backend = ckpt::GenerateBackend::kHeap;
  two.seed = 2;
  generate(one);
  generate(two);
  const ckpt::Report full = report_of(s / "full");
  REQUIRE(full.history.size() == 2);
  CHECK(full.history[1].files_shared == 0);
  ckpt::AdviseOptions low;
  low.thresholds.incremental_min_bytes = 1024;
  const std::optional<ckpt::Advice> inc = rule(ckpt::advise(full, low), "incremental");
  CHECK(sets(inc, "execution.checkpointing.incremental", "true"));
  CHECK_FALSE(rule(ckpt::advise(full, {}), "incremental"));  // 64 MiB default: too small to matter
  CHECK_FALSE(rule(ckpt::advise(full, low), "changelog"));

  ckpt::GenerateOptions churned = gen(s / "churned"), calm = gen(s / "calm");
  churned.chain = calm.chain = 4;
  churned.churn = 0.8;  // 1.0 shares no file: full checkpoints, the incremental rule's case
  calm.churn = 0.1;
  generate(churned);
  generate(calm);
  const ckpt::Report hot = report_of(s / "churned"), cool = report_of(s / "calm");
  CHECK(sets(rule(ckpt::advise(hot, {}), "changelog"), "state.backend.changelog.enabled", "true"));
  CHECK_FALSE(rule(ckpt::advise(cool, {}), "changelog"));
  CHECK_FALSE(rule(ckpt::advise(cool, low), "incremental"));  // already incremental
  // One snapshot is no chain: both rules are silent.
  ckpt::AdviseReport single = ckpt::advise(report_of(s / "calm/chk-4"), low);
  CHECK_FALSE(rule(single, "incremental"));
  CHECK_FALSE(rule(single, "changelog"));
  CHECK(silent_about(single, "incremental"));
}

TEST_CASE("advise local-recovery: a large subtask -> local recovery", "[ops]") {
  ckpt::test::ScratchDir s;
  generate(gen(s / "snap", 4000));
  const ckpt::Report r = report_of(s / "snap");
  ckpt::AdviseOptions low;
  low.thresholds.local_recovery_bytes = 64 << 10;
  const std::optional<ckpt::Advice> a = rule(ckpt::advise(r, low), "local-recovery");
  CHECK(sets(a, "execution.state-recovery.from-local", "true"));
  CHECK_FALSE(rule(ckpt::advise(r, {}), "local-recovery"));  // 1 GiB default
}

TEST_CASE("advise max-parallelism: parallelism near max parallelism or hot key groups", "[ops]") {
  ckpt::test::ScratchDir s;
  ckpt::GenerateOptions tight = gen(s / "tight"), loose = gen(s / "loose", 6000), skewed = gen(s / "skewed", 6000);
  tight.parallelism = 100;
  skewed.hot_key_groups = {9};
  generate(tight);
  generate(loose);
  generate(skewed);
  const std::optional<ckpt::Advice> a = rule(ckpt::advise(report_of(s / "tight"), {}), "max-parallelism");
  CHECK(sets(a, "pipeline.max-parallelism", "512"));
  CHECK_FALSE(rule(ckpt::advise(report_of(s / "loose"), {}), "max-parallelism"));
  const std::optional<ckpt::Advice> hot = rule(ckpt::advise(report_of(s / "skewed"), {}), "max-parallelism");
  REQUIRE(hot);
  CHECK(std::any_of(hot->evidence.begin(), hot->evidence.end(),
                    [](const ckpt::AdviceEvidence& e) { return e.name == "hot key groups" && e.value == "9"; }));
}

TEST_CASE("advise unaligned: silent without channel state", "[ops]") {
  ckpt::test::ScratchDir s;
  generate(gen(s / "snap"));
  ckpt::AdviseReport a = ckpt::advise(report_of(s / "snap"), {});
  CHECK_FALSE(rule(a, "unaligned"));
  CHECK(silent_about(a, "unaligned"));
}

TEST_CASE(
    "advise state-backend: whole values of 16 KiB read per RocksDB access -> heap but map values or small ones not",
    "[ops]") {
  // About 2 MiB per slot against the ~25.6 MiB task heap of a 1 GiB TaskManager: between the
  // shares that decide on size alone.
  ckpt::test::ScratchDir s;
  ckpt::GenerateOptions big = gen(s / "big", 200), small = gen(s / "small", 30000), map = gen(s / "map", 100);
  big.value_size = map.value_size = 20000;
  map.states = {"map"};
  generate(big);
  generate(small);
  generate(map);
  const ckpt::AdviseOptions mem = memory(int64_t{1} << 30);
  const ckpt::Report b = report_of(s / "big");
  const std::optional<ckpt::Advice> a = rule(ckpt::advise(b, mem), "state-backend");
  REQUIRE(a);
  CHECK(sets(a, "state.backend.type", "hashmap"));
  CHECK(a->operator_id == b.operators[0].id);
  CHECK(a->recommendation.find("'value-state'") != std::string::npos);
  CHECK(std::any_of(a->evidence.begin(), a->evidence.end(), [](const ckpt::AdviceEvidence& e) {
    return e.name == "largest mean entry read whole per access" && e.value.find("VALUE") != std::string::npos;
  }));
  CHECK_FALSE(rule(ckpt::advise(report_of(s / "small"), mem), "state-backend"));
  CHECK_FALSE(rule(ckpt::advise(report_of(s / "map"), mem), "state-backend"));  // read one entry at a time
  // Too large for the heap (~3.2 MiB of task heap per slot): size decides, whatever the values.
  CHECK_FALSE(rule(ckpt::advise(b, memory(int64_t{1} << 30, 8)), "state-backend"));
  // --fast counts no value: the rule decides on size alone, and the size is in between.
  ckpt::ReportOptions fast;
  fast.fast = true;
  ckpt::Result<ckpt::Report> f = ckpt::build_report(s / "big", fast);
  REQUIRE(f.ok());
  CHECK_FALSE(rule(ckpt::advise(*f, mem), "state-backend"));
}

TEST_CASE("advise sst-growth: a chain whose SST count grows -> more compaction threads but a steady one not", "[ops]") {
  ckpt::test::ScratchDir s;
  ckpt::GenerateOptions growing = gen(s / "growing"), steady = gen(s / "steady");
  growing.chain = steady.chain = 5;
  growing.churn = steady.churn = 0.5;
  growing.fragment_ssts = true;
  generate(growing);
  generate(steady);
  const ckpt::Report g = report_of(s / "growing"), st = report_of(s / "steady");
  REQUIRE(g.history.size() == 5);
  CHECK(g.history.front().sst_count == 8);  // 2 subtasks x 4 buckets x 1 state
  CHECK(g.history.back().sst_count >= 12);
  for (const ckpt::ReportCheckpoint& c : st.history) CHECK(c.sst_count == 8);
  const std::optional<ckpt::Advice> a = rule(ckpt::advise(g, {}), "sst-growth");
  REQUIRE(a);
  CHECK(sets(a, "state.backend.rocksdb.thread.num", "4"));
  CHECK(std::any_of(a->evidence.begin(), a->evidence.end(), [&](const ckpt::AdviceEvidence& e) {
    return e.name == "SST files, first to last" && e.value == "8 -> " + std::to_string(g.history.back().sst_count);
  }));
  CHECK_FALSE(rule(ckpt::advise(st, {}), "sst-growth"));
  // Two checkpoints are too few to call a trend.
  ckpt::AdviseReport one = ckpt::advise(report_of(s / "growing/chk-5"), {});
  CHECK_FALSE(rule(one, "sst-growth"));
  CHECK(silent_about(one, "sst-growth"));
}

namespace {

// Per state, the TtlValues of `path` whose last access + ttl <= now, read through the entry
// engine independently of the report (the oracle); and the newest last access.
std::map<std::string, uint64_t> expired_by_state(const std::string& path, const std::map<std::string, int64_t>& ttls,
                                                 std::optional<int64_t> now, int64_t* newest) {
  auto reader = ckpt::EntryReader::open(path);
  REQUIRE(reader.ok());
  std::vector<std::pair<std::string, int64_t>> seen;
  *newest = 0;
  REQUIRE((*reader)
              ->for_each([&](const ckpt::Entry& e) -> ckpt::Status {
                std::vector<const ckpt::Value*> values;
                if (e.value.kind() == ckpt::Value::Kind::kArray)
                  for (const ckpt::Value& v : e.value.elements()) values.push_back(&v);
                else
                  values.push_back(&e.value);
                for (const ckpt::Value* v : values)
                  if (const ckpt::Value* ts = v->find("ttl_ts")) {
                    seen.emplace_back(e.state, ts->as_int());
                    *newest = std::max(*newest, ts->as_int());
                  }
                return ckpt::Status();
              })
              .ok());
  std::map<std::string, uint64_t> out;
  for (const auto& [state, ts] : seen)
    if (auto t = ttls.find(state); t != ttls.end() && ts + t->second <= now.value_or(*newest)) ++out[state];
  return out;
}

const ckpt::ReportState& state_of(const ckpt::Report& r, const std::string& name) {
  for (const ckpt::ReportState& s : r.operators.at(0).states)
    if (s.name == name) return s;
  FAIL("no state " << name);
  throw;
}

}  // namespace

TEST_CASE("advise ttl: TTL states with many expired values -> cleanup but none expired or no TTL or --fast -> nothing",
          "[ops]") {
  ckpt::test::ScratchDir s;
  ckpt::GenerateOptions o = gen(s / "ttl", 3000);
  o.states = {"value", "list", "map"};
  o.ttl_span = 86'400'000;  // last accesses over one day
  generate(o);
  const std::map<std::string, int64_t> ttls = {
      {"value-state", 43'200'000}, {"list-state", 64'800'000}, {"map-state", 2 * 86'400'000LL}};
  ckpt::ReportOptions ro;
  ro.ttls.assign(ttls.begin(), ttls.end());
  ckpt::Result<ckpt::Report> r = ckpt::build_report(s / "ttl", ro);
  REQUIRE(r.ok());
  int64_t newest = 0;
  const std::map<std::string, uint64_t> expect = expired_by_state(s / "ttl", ttls, std::nullopt, &newest);
  REQUIRE(r->ttl_now == newest);  // no --now: the newest last access
  CHECK_FALSE(r->ttl_now_given);
  CHECK(newest <= o.ttl_newest);
  CHECK(newest > o.ttl_newest - 60'000);
  for (const char* name : {"value-state", "list-state", "map-state"}) {
    INFO(name);
    const ckpt::ReportState& st = state_of(*r, name);
    CHECK(st.ttl_state);
    CHECK(st.ttl == ttls.at(name));
    CHECK(st.expired == (expect.count(name) ? expect.at(name) : 0));
    CHECK(st.newest_access <= newest);
    CHECK(st.oldest_access >= o.ttl_newest - o.ttl_span);
  }
  CHECK(state_of(*r, "value-state").expired > state_of(*r, "value-state").ttl_values / 3);  // about half
  CHECK(state_of(*r, "list-state").expired > 0);
  CHECK(state_of(*r, "map-state").expired == 0);  // a TTL longer than the span
  ckpt::AdviseReport a = ckpt::advise(*r, {});
  std::vector<std::string> advised;
  for (const ckpt::Advice& x : a.advice)
    if (x.rule == "ttl") advised.push_back(x.evidence.at(0).value);
  CHECK(advised == std::vector<std::string>{"value-state", "list-state"});
  REQUIRE(rule(a, "ttl"));
  CHECK(rule(a, "ttl")->recommendation.find("ckpt edit --expire value-state=43200000ms --now " +
                                            std::to_string(newest)) != std::string::npos);

  // --now in the past of every access: nothing expired, nothing said.
  ro.now = o.ttl_newest - o.ttl_span - 1;
  ckpt::Result<ckpt::Report> early = ckpt::build_report(s / "ttl", ro);
  REQUIRE(early.ok());
  CHECK(early->ttl_now_given);
  CHECK(state_of(*early, "value-state").expired == 0);
  CHECK_FALSE(rule(ckpt::advise(*early, {}), "ttl"));
  // Without a TTL, with --fast, or on a snapshot without TTL states the rule is silent.
  ckpt::AdviseReport no_ttl = ckpt::advise(report_of(s / "ttl"), {});
  CHECK_FALSE(rule(no_ttl, "ttl"));
  CHECK(silent_about(no_ttl, "ttl: no TTL given"));
  ckpt::ReportOptions fast = ro;
  fast.fast = true;
  ckpt::Result<ckpt::Report> f = ckpt::build_report(s / "ttl", fast);
  REQUIRE(f.ok());
  CHECK(silent_about(ckpt::advise(*f, {}), "ttl: --fast"));
  generate(gen(s / "plain"));
  CHECK(silent_about(ckpt::advise(report_of(s / "plain"), {}), "ttl: no state with TTL values"));
  // A TTL for a state without one is refused, as edit --expire refuses it.
  ckpt::ReportOptions wrong;
  wrong.ttls = {{"value-state", 1000}};
  CHECK_FALSE(ckpt::build_report(s / "plain", wrong).ok());
}

TEST_CASE("advise state-backend reasons from Flink's memory model: task heap and managed memory of the process size",
          "[ops]") {
  // TaskManagerOptions' defaults: 4 GiB of process: JVM overhead 0.1 (409.6 MiB, within 192m-1g),
  // metaspace 256 MiB, so 3430.4 MiB of Flink memory: managed 0.4, network 0.1, framework
  // heap and off-heap 128 MiB each, task heap the rest (1459.2 MiB).
  constexpr int64_t kMiB = int64_t{1} << 20;
  const ckpt::TaskManagerMemory m = ckpt::task_manager_memory(int64_t{4} << 30);
  CHECK(m.jvm_overhead == static_cast<int64_t>(static_cast<double>(int64_t{4} << 30) * static_cast<double>(0.1f)));
  CHECK(m.jvm_metaspace == 256 * kMiB);
  CHECK(m.flink == (int64_t{4} << 30) - m.jvm_overhead - m.jvm_metaspace);
  CHECK(m.managed == static_cast<int64_t>(static_cast<double>(m.flink) * static_cast<double>(0.4f)));
  CHECK(m.task_heap == m.flink - 256 * kMiB - m.managed - m.network);
  CHECK(m.task_heap > 1459 * kMiB);
  CHECK(m.task_heap < 1460 * kMiB);
  // The overhead's and network's bounds: 1 GiB of process takes the minimums.
  const ckpt::TaskManagerMemory small = ckpt::task_manager_memory(int64_t{1} << 30);
  CHECK(small.jvm_overhead == 192 * kMiB);
  CHECK(small.network == 64 * kMiB);
  CHECK(small.task_heap > 25 * kMiB);
  CHECK(small.task_heap < 26 * kMiB);
  CHECK(ckpt::task_manager_memory(int64_t{64} << 30).jvm_overhead == 1024 * kMiB);
  CHECK(ckpt::task_manager_memory(512 * kMiB).task_heap < 0);

  // The rule measures the state against the task heap per slot, not the process size: ~240 KiB
  // per slot is less than 0.3 of 1 GiB / 64 slots (16 MiB) but more than 0.3 of its task heap.
  ckpt::test::ScratchDir s;
  ckpt::GenerateOptions heap = gen(s / "heap", 4000);
  heap.backend = ckpt::GenerateBackend::kHeap;
  generate(heap);
  const ckpt::Report h = report_of(s / "heap");
  const std::optional<ckpt::Advice> a = rule(ckpt::advise(h, memory(int64_t{1} << 30, 64)), "state-backend");
  REQUIRE(a);
  auto evidence = [&](const std::string& name) -> const ckpt::AdviceEvidence& {
    for (const ckpt::AdviceEvidence& e : a->evidence)
      if (e.name == name) return e;
    FAIL("no evidence " << name);
    throw;
  };
  CHECK(evidence("task heap per slot").number == static_cast<double>(small.task_heap / 64));
  CHECK(evidence("task heap per slot").unit == "bytes");
  CHECK(evidence("managed memory per slot").number == static_cast<double>(small.managed / 64));
  CHECK(evidence("state per slot").unit == "bytes");
  CHECK(evidence("state per slot / task heap per slot").unit == "ratio");
  CHECK_FALSE(evidence("backend in the snapshot").number);
  // A process size Flink refuses (no task heap left) gives no advice, and says why.
  ckpt::AdviseReport refused = ckpt::advise(h, memory(512 * kMiB));
  CHECK_FALSE(rule(refused, "state-backend"));
  CHECK(silent_about(refused, "state-backend: --tm-memory 512.0 MiB leaves no task heap"));
}

TEST_CASE("advise changelog names the storage path Flink requires", "[ops]") {
  ckpt::test::ScratchDir s;
  ckpt::GenerateOptions churned = gen(s / "churned");
  churned.chain = 4;
  churned.churn = 0.8;
  generate(churned);
  const std::optional<ckpt::Advice> a = rule(ckpt::advise(report_of(s / "churned"), {}), "changelog");
  REQUIRE(a);
  CHECK(std::any_of(a->settings.begin(), a->settings.end(),
                    [](const ckpt::AdviceSetting& x) { return x.key == "dstl.dfs.base-path"; }));
  CHECK(a->evidence.at(0).unit == "count");
  CHECK(a->evidence.at(1).unit == "ratio");
}

TEST_CASE("advise ttl: SQL state names SQL's settings and other state Flink's cleanup defaults with ISO times",
          "[ops][corpus]") {
  CKPT_REQUIRE_SHARED();
  // A SQL group aggregate with a one-second STATE_TTL hint, measured a day later.
  const std::string dir = ckpt::test::sql_corpus_dir() + "/stream-exec-group-aggregate_1/agg-with-state-ttl-hint";
  ckpt::ReportOptions ro;
  ro.plan = dir + "/plan/agg-with-state-ttl-hint.json";
  REQUIRE(ro.names.add_plan_file(ro.plan).ok());
  ro.now = 1'706'745'600'000;  // 2024-02-01T00:00:00Z
  ckpt::Result<ckpt::Report> r = ckpt::build_report(dir + "/savepoint", ro);
  REQUIRE(r.ok());
  const std::optional<ckpt::Advice> a = rule(ckpt::advise(*r, {}), "ttl");
  REQUIRE(a);
  CHECK(a->operator_uid == "55_group-aggregate");
  CHECK(sets(a, "table.exec.state.ttl", "1000 ms"));
  CHECK(a->recommendation.find("STATE_TTL") != std::string::npos);
  CHECK(a->recommendation.find("StateTtlConfig") == std::string::npos);
  for (const ckpt::AdviceSetting& x : a->settings) CHECK(x.key.find("StateTtlConfig") == std::string::npos);
  bool measured = false;
  for (const ckpt::AdviceEvidence& e : a->evidence)
    if (e.name == "measured at (--now)") {
      measured = true;
      CHECK(e.value == "2024-02-01T00:00:00.000Z");
      CHECK(e.number == 1'706'745'600'000.0);
      CHECK(e.unit == "ms_since_epoch");
    }
  CHECK(measured);

  // A DataStream job's TTL state: StateTtlConfig, whose defaults are not what is recommended.
  ckpt::test::ScratchDir s;
  ckpt::GenerateOptions o = gen(s / "ttl", 3000);
  o.ttl_span = 86'400'000;
  generate(o);
  ckpt::ReportOptions plain;
  plain.ttls = {{"value-state", 43'200'000}};
  ckpt::Result<ckpt::Report> d = ckpt::build_report(s / "ttl", plain);
  REQUIRE(d.ok());
  const std::optional<ckpt::Advice> b = rule(ckpt::advise(*d, {}), "ttl");
  REQUIRE(b);
  CHECK(b->recommendation.find("5 entries per state access") != std::string::npos);
  CHECK_FALSE(sets(b, "StateTtlConfig.Builder (heap)", "cleanupIncrementally(5, false)"));
  CHECK_FALSE(sets(b, "table.exec.state.ttl", "43200000 ms"));
  CHECK(b->evidence.back().value.ends_with("Z"));
}
