// The Flink 1.3 and 1.5 savepoints of ../shared/testdata/flink-old through ckpt convert: each
// heap savepoint to RocksDB and back, each RocksDB one to heap and back, dumps as its input and
// verifies deeply at every step; and through ckpt edit --max-parallelism.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "ckpt/convert.h"
#include "ckpt/dump.h"
#include "ckpt/edit.h"
#include "ckpt/verify.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

struct OldConvertLines : DumpSink {
  std::multiset<std::string> lines;
  void entry(const Entry& e) override { lines.insert(to_ndjson(e)); }
  void problem(const Error& e) override { FAIL(e.to_string()); }
};

std::multiset<std::string> old_convert_dump(const std::string& snapshot) {
  OldConvertLines sink;
  DumpOptions o;
  o.jobs = 2;
  INFO(snapshot);
  auto r = dump_snapshot(snapshot, o, sink);
  if (!r.ok()) FAIL(r.error().to_string());
  return sink.lines;
}

void old_convert_step(const std::string& in, ConvertTarget to, const std::string& out) {
  ConvertOptions o;
  o.to = to;
  o.output = out;
  o.jobs = 2;
  INFO(in << " -> " << convert_target_name(to));
  auto r = convert_snapshot(in, o);
  if (!r.ok()) FAIL(r.error().to_string());
  VerifyOptions v;
  v.deep = true;
  auto report = verify_snapshot(out, v);
  REQUIRE(report.ok());
  for (const VerifyProblem& p : report->problems) FAIL(format_problem(p));
  CHECK(report->complete());
}

}  // namespace

// [large]: twenty conversions and deep verifies take seconds, too many for the sanitizer job.
TEST_CASE("Flink 1.3 and 1.5 savepoints convert to the other backend and back with the same entries",
          "[ops][corpus][large]") {
  CKPT_REQUIRE_SHARED();
  const std::string dir = test::shared_dir() + "/testdata/flink-old";
  if (!fs::exists(dir)) CKPT_SKIP("no " << dir);
  int converted = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!fs::exists(e.path() / "_metadata")) continue;
    const std::string name = e.path().filename().string();
    const bool rocks = name.find("rocksdb") != std::string::npos;
    INFO(name);
    auto original = old_convert_dump(e.path().string());
    CHECK(!original.empty());
    test::ScratchDir tmp;
    old_convert_step(e.path().string(), rocks ? ConvertTarget::kHeap : ConvertTarget::kRocksDb, tmp / "there");
    CHECK(old_convert_dump(tmp / "there") == original);
    old_convert_step(tmp / "there", rocks ? ConvertTarget::kRocksDb : ConvertTarget::kHeap, tmp / "back");
    CHECK(old_convert_dump(tmp / "back") == original);
    ++converted;
  }
  CHECK(converted == 10);
}

namespace {

// Entries without where they sit (subtask, key group), which a rescale changes.
std::multiset<std::string> old_edit_placeless(const std::multiset<std::string>& lines) {
  std::multiset<std::string> out;
  for (const std::string& line : lines) {
    auto j = nlohmann::json::parse(line);
    j.erase("subtask");
    j.erase("key_group");
    out.insert(j.dump());
  }
  return out;
}

}  // namespace

TEST_CASE("Flink 1.3 savepoints with raw keyed timers rescale with edit and keep every entry", "[ops][corpus]") {
  // Their keyed operators without timers wrote a zero service count into every key group of
  // raw keyed state: a timer block with no services, moved with the rest.
  CKPT_REQUIRE_SHARED();
  const std::string dir = test::shared_dir() + "/testdata/flink-old";
  if (!fs::exists(dir)) CKPT_SKIP("no " << dir);
  for (const char* name : {"stateful-udf-migration-itcase-flink1.3-savepoint",
                           "stateful-udf-migration-itcase-flink1.3-rocksdb-savepoint"}) {
    INFO(name);
    const std::string in = dir + "/" + name;
    test::ScratchDir tmp;
    EditOptions o;
    o.output = tmp / "out";
    o.max_parallelism = 256;
    auto r = edit_snapshot(in, o);
    if (!r.ok()) FAIL(r.error().to_string());
    CHECK(old_edit_placeless(old_convert_dump(tmp / "out")) == old_edit_placeless(old_convert_dump(in)));
    VerifyOptions v;
    v.deep = true;
    auto report = verify_snapshot(tmp / "out", v);
    REQUIRE(report.ok());
    for (const VerifyProblem& p : report->problems) FAIL(format_problem(p));
  }
}

TEST_CASE("a state is not dropped from a Flink 1.3 keyed proxy that ckpt copies as read", "[ops][corpus]") {
  // The copied proxy would still register the state: the edit is refused, nothing written.
  CKPT_REQUIRE_SHARED();
  const std::string dir = test::shared_dir() + "/testdata/flink-old";
  if (!fs::exists(dir)) CKPT_SKIP("no " << dir);
  test::ScratchDir tmp;
  EditOptions o;
  o.output = tmp / "out";
  o.drop_states = {{"b6f2d694289c3a40c7b6f325a615a3cf", "state-name"}};
  auto r = edit_snapshot(dir + "/stateful-udf-migration-itcase-flink1.3-savepoint", o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kNotSupported);
  CHECK(r.error().message.find("copies as read") != std::string::npos);
  CHECK_FALSE(fs::exists(tmp / "out/_metadata"));
}
