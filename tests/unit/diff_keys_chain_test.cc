// ckpt diff --keys on generated chains: exactly the entries the generator's model says each step added, removed and changed.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/diff.h"
#include "ckpt/generate.h"
#include "support/cli_run.h"
#include "support/test_support.h"

using namespace ckpt;

namespace {

// (change, operator, state, key group, key, user key), the way both sides are compared.
using Named = std::tuple<std::string, std::string, std::string, int32_t, std::string, std::string>;

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

std::string json_string(const std::string& json_text) { return nlohmann::json::parse(json_text).get<std::string>(); }

struct Collect : KeyChangeSink {
  std::multiset<Named> seen;
  void change(const KeyChange& c) override {
    const DumpEntry& e = c.after ? *c.after : *c.before;
    seen.insert({c.what, e.operator_id, e.state, e.key_group.value_or(-1), e.key ? json_string(*e.key) : "",
                 e.user_key ? json_string(*e.user_key) : ""});
  }
};

std::multiset<Named> truth_of(const GeneratedChainDelta& d) {
  std::multiset<Named> out;
  for (const GeneratedChange& c : d.changes) out.insert({c.what, c.operator_id, c.state, c.key_group, c.key, c.user_key});
  return out;
}

// Per (operator, state): added, removed, changed.
std::map<std::pair<std::string, std::string>, std::tuple<uint64_t, uint64_t, uint64_t>> counts_of(
    const std::multiset<Named>& changes) {
  std::map<std::pair<std::string, std::string>, std::tuple<uint64_t, uint64_t, uint64_t>> out;
  for (const auto& [what, op, state, kg, key, user_key] : changes) {
    auto& [added, removed, changed] = out[{op, state}];
    (what == "added" ? added : what == "removed" ? removed : changed)++;
  }
  return out;
}

}  // namespace

TEST_CASE("diff --keys of consecutive generated checkpoints reports exactly the entries the generator changed", "[unit]") {
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
      Collect sink;
      auto report = diff_snapshots(fmt::format("{}/chk-{}", root, k), fmt::format("{}/chk-{}", root, k + 1), options, &sink);
      REQUIRE(report.ok());
      const std::multiset<Named> expected = truth_of(*delta);
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
  // The CLI's change lines name the same (change, operator, state, key group, key, user key) set as the generator's truth, and exit 1.
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
  std::multiset<Named> seen;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line);
    seen.insert({j.at("change").get<std::string>(), j.at("operator").get<std::string>(), j.at("state").get<std::string>(),
                 j.at("key_group").get<int32_t>(), j.at("key").get<std::string>(),
                 j.contains("user_key") ? j.at("user_key").get<std::string>() : ""});
    // Values as the contract says: before for what A had, after for what B has.
    CHECK(j.contains("before") == (j.at("change") != "added"));
    CHECK(j.contains("after") == (j.at("change") != "removed"));
  }
  CHECK(seen == truth_of(*delta));
}

TEST_CASE("generated_chain_delta refuses what is not a step of a chain", "[unit]") {
  // A step needs a chain and a checkpoint that has a successor in it.
  GenerateOptions o;
  o.chain = 3;
  CHECK_FALSE(generated_chain_delta(o, 0).ok());
  CHECK_FALSE(generated_chain_delta(o, 3).ok());
  CHECK(generated_chain_delta(o, 2).ok());
  o.chain = 0;
  CHECK_FALSE(generated_chain_delta(o, 1).ok());
}
