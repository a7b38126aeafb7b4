// ckpt edit --delete-keys as a property (issue 14's test): for a seed, a random set of present
// keys and some absent ones is erased, and exactly those keys' entries are gone. Three seeds on a
// snapshot of a few MB; one on a 2 GiB generated RocksDB snapshot, tagged [large]: it writes
// about 4 GiB under TMPDIR and runs for most of a minute, so the sanitizer job (.ci/sanitize)
// leaves it to the main run.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "ckpt/dump.h"
#include "ckpt/edit.h"
#include "ckpt/generate.h"
#include "ckpt/verify.h"
#include "testlib/test_support.h"
#include "testlib/dump_lines.h"

using namespace ckpt;

namespace {

constexpr uint64_t kLargeKeys = 400'000;  // x ~1 KiB values x 3 states x 1 operator: 2.06 GB of SSTs

// key (JSON text) -> its entries in `snapshot`, found by point lookups (one key group each).
std::map<std::string, std::multiset<std::string>> entries_of(const std::string& snapshot,
                                                             const std::vector<std::string>& keys) {
  struct Lines : DumpSink {
    std::map<std::string, std::multiset<std::string>> by_key;
    void entry(const Entry& e) override { by_key[test::json_of(e.key)].insert(to_ndjson(e)); }
    void problem(const Error& e) override { FAIL(e.to_string()); }
  } sink;
  DumpOptions o;
  o.keys = test::keys_of(keys);
  o.jobs = 2;
  Result<DumpSummary> s = dump_snapshot(snapshot, o, sink);
  if (!s.ok()) FAIL(s.error().to_string());
  return sink.by_key;
}

std::string key_json(uint64_t k) { return fmt::format("\"user-{:010}\"", k); }

// Per seed: 40 present keys and 3 absent ones erased. Every listed present key has entries in
// the input and none in the output; the output has exactly the input's entries less those
// (counted: input total - erased = output total, and the erasures per state add up to the
// listed keys' entries); 40 keys not listed read back byte for byte the same; the absent keys,
// and only they, are reported unmatched; the output verifies --deep.
void check_erasure(const GenerateOptions& g, uint64_t input_entries, uint64_t seed, const std::string& output) {
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::set<uint64_t> chosen;
  while (chosen.size() < 80) chosen.insert(rng() % g.keys);
  std::vector<std::string> erased, kept;
  for (uint64_t k : chosen) (erased.size() < 40 ? erased : kept).push_back(key_json(k));
  std::vector<std::string> absent = {key_json(g.keys + seed), "\"nobody\"", fmt::format("\"user-{}\"", seed)};
  std::vector<std::string> listed = erased;
  listed.insert(listed.end(), absent.begin(), absent.end());

  auto before = entries_of(g.output, erased);
  uint64_t listed_entries = 0;
  for (const std::string& k : erased) {
    INFO(k);
    REQUIRE(before.count(k) == 1);  // every chosen key was generated
    listed_entries += before[k].size();
  }

  EditOptions o;
  o.output = output;
  o.delete_keys = test::keys_of(listed);
  o.jobs = 2;
  Result<EditSummary> r = edit_snapshot(g.output, o);
  if (!r.ok()) FAIL(r.error().to_string());
  CHECK(r->written.entries == input_entries - listed_entries);
  uint64_t counted = 0;
  for (const EditSummary::KeysErased& k : r->erased) counted += k.entries;
  CHECK(counted == listed_entries);
  std::set<std::string> unmatched;
  for (const Value& key : r->unmatched_keys) unmatched.insert(key.json());
  CHECK(unmatched == std::set<std::string>(absent.begin(), absent.end()));

  CHECK(entries_of(o.output, erased).empty());
  CHECK(entries_of(o.output, kept) == entries_of(g.output, kept));
  VerifyOptions v;
  v.deep = true;
  v.jobs = 2;
  Result<VerifyReport> report = verify_snapshot(o.output, v);
  REQUIRE(report.ok());
  CHECK(report->problems.empty());
}

}  // namespace

TEST_CASE("edit --delete-keys erases exactly the listed keys for every seed and counts what it erased", "[ops]") {
  test::ScratchDir s;
  GenerateOptions g;
  g.output = s / "in";
  g.keys = 3000;
  g.value_size = 100;
  g.states = {"value", "map", "list"};
  g.jobs = 2;
  Result<GenerateSummary> generated = generate_snapshot(g);
  REQUIRE(generated.ok());
  for (uint64_t seed : {1, 2, 3}) check_erasure(g, generated->entries, seed, s / fmt::format("out-{}", seed));
}

TEST_CASE("edit --delete-keys on a 2 GiB snapshot erases exactly the listed keys", "[ops][large]") {
  // The same property at a size where offsets pass 2^31 and nothing fits a cache.
  test::ScratchDir s;
  GenerateOptions g;
  g.output = s / "in";
  g.keys = kLargeKeys;
  g.value_size = 1000;
  g.states = {"value", "map", "list"};
  g.jobs = 2;
  Result<GenerateSummary> generated = generate_snapshot(g);
  REQUIRE(generated.ok());
  REQUIRE(generated->bytes > (uint64_t{2} << 30) - (uint64_t{100} << 20));  // about 2 GiB
  check_erasure(g, generated->entries, 1, s / "out");
}
