// On Flink's own snapshots, the dump's NDJSON text path prints what the entry path prints.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ckpt/dump.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

struct EntryLines : DumpSink {
  std::string text;
  std::vector<std::string> problems;
  void entry(const Entry& e) override { text += to_ndjson(e) + "\n"; }
  void problem(const Error& e) override { problems.push_back(e.to_string()); }
};

struct TextLines : EntryLines {
  bool wants_ndjson() const override { return true; }
  void ndjson(std::string_view lines) override { text += lines; }
};

}  // namespace

TEST_CASE("on every corpus snapshot the NDJSON text path prints to_ndjson of each entry", "[corpus][state]") {
  // Every value type, layout and entry kind of the corpus: byte-identical lines in the same
  // order, with one and three workers, and the same problems under keep-going.
  CKPT_REQUIRE_SHARED();
  size_t compared = 0;
  for (const std::string& dir : test::corpus_snapshots()) {
    INFO(dir);
    for (int jobs : {1, 3}) {
      DumpOptions options;
      options.jobs = jobs;
      options.keep_going = true;
      EntryLines entries;
      auto a = dump_snapshot(dir, options, entries);
      TextLines text;
      auto b = dump_snapshot(dir, options, text);
      REQUIRE(a.ok() == b.ok());
      CHECK(text.problems == entries.problems);
      REQUIRE(text.text == entries.text);
      if (!entries.text.empty()) ++compared;
    }
  }
  CHECK(compared >= 2 * 100);
}
