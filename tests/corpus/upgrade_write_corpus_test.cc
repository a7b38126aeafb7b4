// ckpt upgrade --output on the Flink 1.3 and 1.5 savepoints of ../shared/testdata/flink-old: the
// states whose legacy TypeSerializerConfigSnapshots have a Flink 1.8+ form come out without the
// legacy-config finding, the output verifies deeply and dumps the same entries as its input.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "ckpt/dump.h"
#include "ckpt/upgrade.h"
#include "ckpt/verify.h"
#include "testlib/edit_checks.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

std::multiset<std::string> upw_dump(const std::string& snapshot) { return test::dump_set(snapshot); }

// The done-when of the rewrite on `out`, which `written` reports.
void upw_check_output(const std::string& out, const UpgradeWriteReport& written) {
  auto check = check_upgrade(out, UpgradeOptions{});
  REQUIRE(check.ok());
  CHECK(check->problems.empty());
  std::map<std::pair<std::string, std::string>, const StateUpgradeCheck*> by_name;
  for (const StateUpgradeCheck& s : check->states) by_name[{s.operator_id, s.state}] = &s;
  for (const UpgradeStateAction& a : written.states) {
    INFO(a.operator_id << " " << a.state << " " << a.action << " " << a.reason);
    auto it = by_name.find({a.operator_id, a.state});
    if (a.action == "dropped") {
      CHECK(it == by_name.end());
      continue;
    }
    REQUIRE(it != by_name.end());
    if (a.action != "rewritten") continue;
    for (const UpgradeFinding& f : it->second->findings) {
      CHECK(f.rule != "legacy-config");
      CHECK(f.rule != "pojo-collection");
    }
  }

  VerifyOptions v;
  v.deep = true;
  auto report = verify_snapshot(out, v);
  REQUIRE(report.ok());
  for (const VerifyProblem& p : report->problems) FAIL(format_problem(p));
  CHECK(report->complete());
}

// Upgrades `in` into `out` and checks the done-when of the rewrite; returns the report.
UpgradeWriteReport upw_upgrade_and_check(const std::string& in, const std::string& out, bool drop) {
  UpgradeWriteOptions o;
  o.output = out;
  o.drop_incompatible = drop;
  auto written = upgrade_snapshot(in, o);
  if (!written.ok()) FAIL(written.error().to_string());
  upw_check_output(out, *written);
  return *written;
}

}  // namespace

TEST_CASE("upgrade output rewrites the legacy serializer snapshots of Flink 1.3 savepoints", "[ops][corpus]") {
  CKPT_REQUIRE_SHARED();
  const std::string dir = test::shared_dir() + "/testdata/flink-old";
  if (!fs::exists(dir)) CKPT_SKIP("no " << dir);
  // Keyed LIST and REDUCING states of Java types beside JavaSerializer operator state; and a
  // snapshot of operator state alone.
  for (const char* name : {"complexKeyed-flink1.3", "nonKeyed-flink1.3"}) {
    INFO(name);
    const std::string in = dir + "/" + name;
    test::ScratchDir tmp;
    UpgradeWriteReport r = upw_upgrade_and_check(in, tmp / "out", false);
    CHECK(r.rewritten > 0);
    CHECK(r.left == 0);
    CHECK(upw_dump(tmp / "out") == upw_dump(in));
  }
}

// [large]: ten upgrades with deep verifies and dumps take seconds, too many for the sanitizer job.
TEST_CASE("upgrade output of every flink-old savepoint verifies and dumps as its input", "[ops][corpus][large]") {
  CKPT_REQUIRE_SHARED();
  const std::string dir = test::shared_dir() + "/testdata/flink-old";
  if (!fs::exists(dir)) CKPT_SKIP("no " << dir);
  int upgraded = 0;
  size_t rewritten = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!fs::exists(e.path() / "_metadata")) continue;
    INFO(e.path().filename().string());
    test::ScratchDir tmp;
    UpgradeWriteReport r = upw_upgrade_and_check(e.path().string(), tmp / "out", false);
    rewritten += r.rewritten;
    CHECK(upw_dump(tmp / "out") == upw_dump(e.path().string()));
    ++upgraded;
  }
  CHECK(upgraded == 10);
  CHECK(rewritten > 0);
}

// [large]: 107 upgrades, deep verifies and dumps. Their proxies are current (Flink 1.8+), so the
// rewrite touches no serializer snapshot: what is tested is that the copy loses nothing. A
// changelog checkpoint whose handles name no key serializer cannot be re-framed (as convert
// cannot: raw_keyed_reader.cc) and is refused, writing nothing.
TEST_CASE("upgrade output of every flink snapshot verifies and dumps as its input", "[ops][corpus][large]") {
  CKPT_REQUIRE_SHARED();
  const std::string dir = test::shared_dir() + "/testdata/flink";
  if (!fs::exists(dir)) CKPT_SKIP("no " << dir);
  int upgraded = 0, refused = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!fs::exists(e.path() / "_metadata")) continue;
    INFO(e.path().filename().string());
    test::ScratchDir tmp;
    UpgradeWriteOptions o;
    o.output = tmp / "out";
    auto written = upgrade_snapshot(e.path().string(), o);
    if (!written.ok()) {
      CHECK(written.error().code == ErrorCode::kNotSupported);
      CHECK(written.error().message.find("stores no key serializer snapshot") != std::string::npos);
      CHECK_FALSE(fs::exists(tmp / "out"));
      ++refused;
      continue;
    }
    upw_check_output(tmp / "out", *written);
    CHECK(written->left == 0);
    CHECK(upw_dump(tmp / "out") == upw_dump(e.path().string()));
    ++upgraded;
  }
  CHECK(upgraded + refused == 107);
  CHECK(refused <= 1);
}

TEST_CASE("upgrade output with drop-incompatible leaves out the Scala and Kryo states of a Flink 1.5 savepoint",
          "[ops][corpus]") {
  CKPT_REQUIRE_SHARED();
  const std::string in =
      test::shared_dir() +
      "/testdata/flink-old/stateful-scala-with-broadcast2.11-udf-migration-itcase-flink1.5-jobmanager-savepoint";
  if (!fs::exists(in)) CKPT_SKIP("no " << in);
  test::ScratchDir tmp;
  UpgradeWriteReport r = upw_upgrade_and_check(in, tmp / "out", true);
  CHECK(r.dropped > 0);
  // What remains of the input is in the output, unchanged: the entries of states not dropped.
  std::set<std::pair<std::string, std::string>> dropped;
  for (const UpgradeStateAction& a : r.states)
    if (a.action == "dropped") dropped.insert({a.operator_id, a.state});
  std::multiset<std::string> kept_in;
  for (const std::string& line : upw_dump(in)) {
    bool gone = false;
    for (const auto& [op, state] : dropped)
      if (line.find("\"operator\":\"" + op + "\"") != std::string::npos &&
          line.find("\"state\":\"" + state + "\"") != std::string::npos)
        gone = true;
    if (!gone) kept_in.insert(line);
  }
  CHECK(upw_dump(tmp / "out") == kept_in);
}
