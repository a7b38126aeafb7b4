// The checks every edit output passes: verify --deep, dump equality, diff's report.
#include "testlib/edit_checks.h"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "ckpt/verify.h"

namespace ckpt::test {

namespace {

struct EachEntrySink : DumpSink {
  std::function<void(const Entry&)> each;
  void entry(const Entry& e) override { each(e); }
  void problem(const Error& e) override { FAIL(e.to_string()); }
};

void for_each_entry(const std::string& snapshot, const std::function<void(const Entry&)>& each) {
  EachEntrySink sink;
  sink.each = each;
  DumpOptions o;
  o.jobs = 2;
  auto r = dump_snapshot(snapshot, o, sink);
  INFO(snapshot);
  REQUIRE(r.ok());
}

}  // namespace

std::multiset<std::string> dump_set(const std::string& snapshot) {
  std::multiset<std::string> lines;
  for_each_entry(snapshot, [&](const Entry& e) { lines.insert(to_ndjson(e)); });
  return lines;
}

void check_edit(const std::string& in, const std::string& out, const ExpectedEdit& expected, size_t* expected_removed) {
  INFO(in << " -> " << out);
  VerifyOptions vo;
  vo.deep = true;
  vo.jobs = 2;
  auto verified = verify_snapshot(out, vo);
  REQUIRE(verified.ok());
  for (const VerifyProblem& p : verified->problems) FAIL_CHECK(format_problem(p));
  CHECK(verified->clean());

  std::multiset<std::string> want;
  size_t removed = 0;
  for_each_entry(in, [&](const Entry& e) {
    if (expected.removed(e)) {
      ++removed;
      return;
    }
    Entry moved = e;
    auto id = expected.new_ids.find(e.operator_id);
    if (id != expected.new_ids.end()) moved.operator_id = id->second;
    auto uid = expected.new_uids.find(e.operator_id);
    if (uid != expected.new_uids.end()) moved.uid = uid->second;
    want.insert(to_ndjson(moved));
  });
  if (expected_removed) *expected_removed = removed;
  std::multiset<std::string> got = dump_set(out);
  CHECK(got.size() == want.size());
  CHECK(got == want);

  DiffOptions d;
  d.keys = true;
  d.jobs = 2;
  auto diff = diff_snapshots(in, out, d);
  REQUIRE(diff.ok());
  std::multiset<std::string> structure;
  for (const StructureChange& c : diff->structure)
    structure.insert(fmt::format("{} {} {}", c.what, c.operator_id, c.state));
  for (const DiffReport::Renamed& r : diff->renamed)
    structure.insert(fmt::format("operator-renamed {} {}", r.operator_a, r.operator_b));
  CHECK(structure == expected.structure);
  for (const KeyDiffCounts& k : diff->keys) {
    INFO(k.operator_id << " " << k.state);
    if (expected.changed_states.count({k.operator_id, k.state}) || expected.changed_states.count({k.operator_id, "*"}))
      continue;
    CHECK_FALSE(k.differs());
  }
}

}  // namespace ckpt::test
