// The dump's NDJSON text path (lines rendered on the workers, handed over in chunks) prints
// exactly what the entry path's to_ndjson() prints, in the same order, limit included.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ckpt/dump.h"
#include "ckpt/generate.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

struct StrictEntryLines : DumpSink {
  std::vector<std::string> lines;
  void entry(const Entry& e) override { lines.push_back(to_ndjson(e)); }
  void problem(const Error& e) override { FAIL(e.to_string()); }
};

// Splits what ndjson() receives into lines; every call must end on a line's end.
struct TextLineSplitter : DumpSink {
  std::vector<std::string> lines;
  size_t calls = 0;
  void entry(const Entry&) override { FAIL("entry() called on a sink that wants NDJSON text"); }
  bool wants_ndjson() const override { return true; }
  void ndjson(std::string_view text) override {
    ++calls;
    REQUIRE(!text.empty());
    REQUIRE(text.back() == '\n');
    size_t start = 0;
    for (size_t nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n', start)) {
      lines.emplace_back(text.substr(start, nl - start));
      start = nl + 1;
    }
  }
  void problem(const Error& e) override { FAIL(e.to_string()); }
};

std::string generate_several_chunks(const test::ScratchDir& dir, GenerateBackend backend, const char* name) {
  GenerateOptions o;
  o.output = dir / name;
  o.backend = backend;
  o.parallelism = 3;
  o.max_parallelism = 200;  // two-byte key-group prefixes in the RocksDB layout
  o.keys = 3000;
  o.value_size = 40;
  o.states = {"value", "list", "map"};
  auto r = generate_snapshot(o);
  REQUIRE(r.ok());
  return o.output;
}

}  // namespace

TEST_CASE("the NDJSON text path prints to_ndjson of every entry in order - across many chunks", "[unit][state]") {
  // Three subtasks of a few thousand entries each (several chunks of text and of entries),
  // in all three layouts, one and two workers.
  test::ScratchDir dir;
  for (auto [backend, name] : {std::pair{GenerateBackend::kRocksDb, "rocksdb"}, {GenerateBackend::kHeap, "heap"},
                               {GenerateBackend::kCanonical, "canonical"}}) {
    INFO(name);
    std::string snapshot = generate_several_chunks(dir, backend, name);
    for (int jobs : {1, 2}) {
      DumpOptions options;
      options.jobs = jobs;
      StrictEntryLines entries;
      auto a = dump_snapshot(snapshot, options, entries);
      REQUIRE(a.ok());
      TextLineSplitter text;
      auto b = dump_snapshot(snapshot, options, text);
      REQUIRE(b.ok());
      CHECK(entries.lines.size() > 9000);
      CHECK(a->entries == entries.lines.size());
      CHECK(b->entries == text.lines.size());
      CHECK(text.calls > 3);  // handed over in chunks, not all at once
      CHECK(text.calls < text.lines.size() / 50);  // and not line by line
      REQUIRE(text.lines == entries.lines);
    }
  }
}

TEST_CASE("a dump limit cuts the text path at the same entry as the entry path", "[unit][state]") {
  // Limits below, at and above chunk boundaries and the total: the first N lines, N counted,
  // and limit_reached exactly when N entries were there to print.
  test::ScratchDir dir;
  std::string snapshot = generate_several_chunks(dir, GenerateBackend::kRocksDb, "rocksdb");
  StrictEntryLines all;
  REQUIRE(dump_snapshot(snapshot, DumpOptions{}, all).ok());
  const uint64_t total = all.lines.size();
  for (uint64_t limit : {uint64_t{1}, uint64_t{255}, uint64_t{256}, uint64_t{257}, uint64_t{1000}, total - 1, total,
                         total + 5}) {
    INFO("limit " << limit);
    DumpOptions options;
    options.limit = limit;
    options.jobs = 2;
    TextLineSplitter text;
    auto r = dump_snapshot(snapshot, options, text);
    REQUIRE(r.ok());
    uint64_t expected = std::min(limit, total);
    CHECK(r->entries == expected);
    CHECK(r->limit_reached == (limit <= total));
    REQUIRE(text.lines.size() == expected);
    CHECK(std::equal(text.lines.begin(), text.lines.end(), all.lines.begin()));
    StrictEntryLines entries;
    REQUIRE(dump_snapshot(snapshot, options, entries).ok());
    CHECK(entries.lines == text.lines);
  }
}
