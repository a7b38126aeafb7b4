// The rules of ckpt-advise(1), each on generated snapshots shaped to trigger it and shaped not
// to; thresholds are lowered where the default would need gigabytes of test data, and the
// default is then checked not to fire on the same data.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ckpt/advise.h"
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
  // ~240 KiB per slot of state: 256 KiB per slot is too little for the heap, 1 GiB plenty.
  const std::optional<ckpt::Advice> a = rule(ckpt::advise(h, memory(int64_t{1} << 20, 4)), "state-backend");
  REQUIRE(a);
  CHECK(sets(a, "state.backend.type", "rocksdb"));
  CHECK(a->evidence.size() == 4);
  CHECK_FALSE(rule(ckpt::advise(h, memory(int64_t{1} << 30)), "state-backend"));
  CHECK(sets(rule(ckpt::advise(r, memory(int64_t{4} << 30)), "state-backend"), "state.backend.type", "hashmap"));
  CHECK_FALSE(rule(ckpt::advise(r, memory(int64_t{1} << 20)), "state-backend"));
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

TEST_CASE("advise parses memory sizes as Flink writes them", "[ops]") {
  CHECK(*ckpt::parse_memory_size("512m") == int64_t{512} << 20);
  CHECK(*ckpt::parse_memory_size("4g") == int64_t{4} << 30);
  CHECK(*ckpt::parse_memory_size("1.5GB") == int64_t{3} << 29);
  CHECK(*ckpt::parse_memory_size("2048") == 2048);
  for (const char* bad : {"", "g", "4x", "-1m", "1e400"}) CHECK_FALSE(ckpt::parse_memory_size(bad).ok());
}
