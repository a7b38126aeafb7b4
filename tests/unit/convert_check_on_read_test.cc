// convert checks its input as it reads it (RewriteOptions::check_on_read): a heap key group is
// decoded as the check pass decoded it just before its pairs are made, so damage in the last
// key group of the last subtask is met after other subtasks are written. The output must then
// be abandoned whole: nothing at --output, no temporary directory beside it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/dump.h"
#include "ckpt/generate.h"
#include "ckpt/progress.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

class CheckOnReadCountSink final : public DumpSink {
 public:
  void entry(const Entry&) override {}
  void problem(const Error&) override {}
};

// The names in `dir`, sorted.
std::vector<std::string> check_on_read_listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("convert refuses damage in a later subtask's last key group and abandons what it wrote",
          "[unit][ops][corrupt]") {
  test::ScratchDir scratch(test::memory_temp_dir());
  const std::string work = scratch / "work";
  fs::create_directories(work);
  GenerateOptions g;
  g.output = work + "/sp";
  g.backend = GenerateBackend::kHeap;
  g.parallelism = 2;
  g.max_parallelism = 8;
  g.keys = 200;
  g.value_size = 24;
  g.states = {"value", "list", "map"};
  REQUIRE(generate_snapshot(g).ok());
  // The last subtask's stream: convert -j 1 writes subtask 0 whole before it reads this one.
  std::string last;
  for (const auto& e : fs::directory_iterator(g.output)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("heap-") && name.ends_with("-1")) last = e.path().string();
  }
  REQUIRE_FALSE(last.empty());
  const std::string good = test::read_file(last);
  const std::string out = work + "/out";

  // Bytes of the stream's last tenth (its last key group), flipped in turn until one is damage
  // that decoding finds (dump refuses it); each is then converted.
  int refused = 0;
  for (size_t at = good.size() - 1; at > good.size() * 9 / 10 && refused < 3; at -= 7) {
    std::string bad = good;
    bad[at] = static_cast<char>(static_cast<uint8_t>(bad[at]) ^ 0x80);
    test::write_file(last, bad);
    CheckOnReadCountSink sink;
    if (dump_snapshot(g.output, DumpOptions{}, sink).ok()) continue;
    ++refused;
    INFO("byte " << at << " of " << good.size() << " flipped");
    Progress progress;
    ConvertOptions o;
    o.to = ConvertTarget::kRocksDb;
    o.output = out;
    o.jobs = 1;
    o.progress = &progress;
    Result<ConvertSummary> c = convert_snapshot(g.output, o);
    REQUIRE_FALSE(c.ok());
    INFO(c.error().to_string());
    CHECK(c.error().file == last);
    REQUIRE(c.error().offset.has_value());
    CHECK(*c.error().offset < good.size());
    // Subtask 0 was written before the damage was met (a check pass before would have written
    // nothing), and none of it is left: no output, no temporary directory.
    CHECK(progress.entries_done.load() > 0);
    CHECK_FALSE(fs::exists(out));
    CHECK(check_on_read_listing(work) == std::vector<std::string>{"sp"});
  }
  test::write_file(last, good);
  CHECK(refused == 3);

  // The undamaged input converts.
  ConvertOptions o;
  o.to = ConvertTarget::kRocksDb;
  o.output = out;
  REQUIRE(convert_snapshot(g.output, o).ok());
  CHECK(check_on_read_listing(work) == std::vector<std::string>{"out", "sp"});
}
