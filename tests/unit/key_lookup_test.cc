// A point lookup (`dump --key`, the entry iterator's keys, `query ... WHERE key =`) compares the
// serialized key's bytes and, in the RocksDB layout, seeks to the key-group prefix and key: it
// reads a few blocks, not the key group, and finds what the full dump has of that key.
#include <catch2/catch.hpp>

#include <map>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/dump.h"
#include "ckpt/generate.h"
#include "ckpt/progress.h"
#include "testlib/test_support.h"
#include "types/value_decoder.h"
#include "testlib/dump_lines.h"

using namespace ckpt;

namespace {

struct LookupLines : DumpSink {
  std::vector<std::string> lines;
  void entry(const Entry& e) override { lines.push_back(to_ndjson(e)); }
  void problem(const Error& e) override { FAIL(e.to_string()); }
};

struct Lookup {
  std::vector<std::string> lines;
  DumpSummary summary;
  uint64_t bytes_read = 0;
  uint64_t bytes_total = 0;
};

Lookup dump_keys(const std::string& snapshot, const std::vector<std::string>& keys) {
  Lookup out;
  LookupLines sink;
  Progress progress;
  DumpOptions o;
  o.keys = test::keys_of(keys);
  o.progress = keys.empty() ? nullptr : &progress;
  auto s = dump_snapshot(snapshot, o, sink);
  REQUIRE(s.ok());
  out.summary = *s;
  out.lines = std::move(sink.lines);
  out.bytes_read = progress.bytes_done.load();
  out.bytes_total = progress.bytes_total.load();
  return out;
}

std::string generated_lookup_snapshot(const test::ScratchDir& dir, const std::string& backend, uint64_t keys) {
  GenerateOptions g;
  g.output = dir / backend;
  g.backend = parse_generate_backend(backend).value();
  g.keys = keys;
  g.parallelism = 1;
  g.states = {"value", "map"};
  REQUIRE(generate_snapshot(g).ok());
  return g.output;
}

}  // namespace

TEST_CASE("a key lookup reads a few blocks of its key group and gives the full dump's entries of the key", "[ops]") {
  test::ScratchDir dir;
  for (const std::string backend : {"rocksdb", "heap"}) {
    INFO(backend);
    const std::string sp = generated_lookup_snapshot(dir, backend, 20000);
    const Lookup all = dump_keys(sp, {});
    std::map<std::string, std::vector<std::string>> lines_of;  // the dump's lines by key, parsed once
    for (const std::string& line : all.lines) lines_of[nlohmann::json::parse(line)["key"].dump()].push_back(line);
    for (int k : {0, 4321, 19999}) {
      const std::string key = fmt::format("\"user-{:010d}\"", k);
      INFO(key);
      const std::vector<std::string>& expected = lines_of[key];
      REQUIRE(expected.size() >= 2);  // its value and its map entries
      const Lookup one = dump_keys(sp, {key});
      CHECK(one.lines == expected);
      CHECK(one.summary.unmatched_keys.empty());
      // The state spreads over 128 key groups: a lookup reads less than one key group's share
      // (the heap layout its key group's stream, RocksDB the blocks its seek lands in).
      REQUIRE(one.bytes_total > 0);
      CHECK(one.bytes_read * (backend == "heap" ? 64 : 128) < one.bytes_total);
    }
  }
}

TEST_CASE("a key lookup of an absent key or of a key in an empty key group gives no entries", "[ops]") {
  test::ScratchDir dir;
  for (const std::string backend : {"rocksdb", "heap"}) {
    INFO(backend);
    const std::string sp = generated_lookup_snapshot(dir, backend, 3);  // 3 keys: most of the 128 key groups empty
    const Lookup all = dump_keys(sp, {});
    std::set<int32_t> used;
    for (const std::string& line : all.lines) used.insert(nlohmann::json::parse(line)["key_group"].get<int32_t>());
    std::string in_empty, in_used;  // absent keys of an empty key group and of a used one
    for (int i = 0; i < 1000 && (in_empty.empty() || in_used.empty()); ++i) {
      const std::string k = fmt::format("nobody-{}", i);
      const bool is_used = used.count(key_group_for_hash(java_string_hash(k), 128)) > 0;
      (is_used ? in_used : in_empty) = nlohmann::json(k).dump();
    }
    REQUIRE(!in_empty.empty());
    REQUIRE(!in_used.empty());
    for (const std::string& key : {in_empty, in_used}) {
      INFO(key);
      const Lookup none = dump_keys(sp, {key});
      CHECK(none.lines.empty());
      CHECK(none.summary.unmatched_keys == test::keys_of({key}));
    }
    // Beside a present key: its entries only, the absent one named.
    const Lookup both = dump_keys(sp, {in_empty, "\"user-0000000001\""});
    CHECK(both.lines.size() == 2);
    CHECK(both.summary.unmatched_keys == test::keys_of({in_empty}));
  }
}
