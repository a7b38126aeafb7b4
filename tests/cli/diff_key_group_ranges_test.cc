// ckpt diff compares each subtask's key-group range: a range that shrank loses the entries of
// the key groups it no longer holds, though every file is the same (issue 11).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "ckpt/diff.h"
#include "ckpt/metadata.h"
#include "testlib/cli_run.h"
#include "testlib/sample_savepoint.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

// The sample savepoint at A, and B: a second `_metadata` beside A's (the same files) with the
// first keyed subtask's range cut to its first half.
struct ShrunkPair {
  std::string a, b;
  std::string op_hex;
  int32_t subtask = -1;
  KeyGroupRange before, after;
};

ShrunkPair shrunk_pair(const test::ScratchDir& scratch) {
  ShrunkPair p;
  p.a = scratch / "a";
  p.b = p.a + "/_metadata.shrunk";
  REQUIRE(test::write_sample_savepoint(p.a).ok());
  Result<Metadata> m = read_metadata_file(p.a + "/_metadata");
  REQUIRE(m.ok());
  for (OperatorState& op : m->operators)
    for (SubtaskState& st : op.subtasks) {
      KeyedHandle& h = st.managed_keyed;
      if (h.is_null() || h.range.count < 2 || p.subtask >= 0) continue;
      p.op_hex = operator_id_hex(op.id);
      p.subtask = st.index;
      p.before = h.range;
      h.range.count /= 2;
      h.offsets.resize(static_cast<size_t>(h.range.count));
      p.after = h.range;
    }
  REQUIRE(p.subtask >= 0);
  Result<std::string> bytes = encode_metadata(*m);
  REQUIRE(bytes.ok());
  test::write_file(p.b, *bytes);
  return p;
}

std::string range_text(KeyGroupRange r) { return std::to_string(r.first) + "-" + std::to_string(r.last()); }

}  // namespace

TEST_CASE("diff reports a subtask whose key-group range shrank", "[unit][ops][diff]") {
  test::ScratchDir scratch;
  ShrunkPair p = shrunk_pair(scratch);
  Result<DiffReport> r = diff_snapshots(p.a, p.b, DiffOptions{});
  REQUIRE(r.ok());
  CHECK_FALSE(r->files_differ());
  REQUIRE(r->structure.size() == 1);
  const StructureChange& c = r->structure[0];
  CHECK(c.what == "key-group-range");
  CHECK(c.operator_id == p.op_hex);
  CHECK(c.subtask == p.subtask);
  CHECK(c.before == range_text(p.before));
  CHECK(c.after == range_text(p.after));
  CHECK(r->differs());
  // The same snapshot against itself: no range change.
  Result<DiffReport> same = diff_snapshots(p.b, p.b, DiffOptions{});
  REQUIRE(same.ok());
  CHECK(same->structure.empty());
}

TEST_CASE("ckpt diff exits 1 on a shrunk key-group range and names the subtask", "[cli][diff]") {
  test::ScratchDir scratch;
  ShrunkPair p = shrunk_pair(scratch);
  test::CliResult text = test::run_cli({"diff", p.a, p.b});
  INFO(text.out << text.err);
  CHECK(text.status == 1);
  CHECK(text.out.find("key-group-range operator " + p.op_hex + " subtask " + std::to_string(p.subtask) + ": " +
                      range_text(p.before) + " -> " + range_text(p.after)) != std::string::npos);
  CHECK(text.out.find("snapshots differ") != std::string::npos);
  test::CliResult json = test::run_cli({"diff", p.a, p.b, "--json"});
  CHECK(json.status == 1);
  nlohmann::json j = nlohmann::json::parse(json.out);
  REQUIRE(j["structure"].size() == 1);
  CHECK(j["structure"][0]["change"] == "key-group-range");
  CHECK(j["structure"][0]["subtask"] == p.subtask);
  CHECK(j["structure"][0]["before"] == range_text(p.before));
}
