// convert and edit check their input as they read it (RewriteOptions::check_on_read): a heap
// key group is decoded as the check pass decoded it just before its pairs are made (by the
// rewrite, or by edit's regrouping before it spills them), so damage in the last key group of
// the last subtask is met after other subtasks are written. The output must then be abandoned
// whole: nothing at --output, no temporary directory beside it. An edit that drops an operator
// keeps the check pass (the dropped operator's state is never read otherwise).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/dump.h"
#include "ckpt/edit.h"
#include "ckpt/generate.h"
#include "ckpt/metadata.h"
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

// A two-subtask heap savepoint at `work`/sp; the path of its last subtask's keyed stream (convert
// and edit -j 1 write subtask 0 whole before they read this one).
std::string check_on_read_snapshot(const std::string& work, GenerateOptions& g) {
  g.output = work + "/sp";
  g.backend = GenerateBackend::kHeap;
  g.parallelism = 2;
  g.max_parallelism = 8;
  g.keys = 200;
  g.value_size = 24;
  g.states = {"value", "list", "map"};
  REQUIRE(generate_snapshot(g).ok());
  std::string last;
  for (const auto& e : fs::directory_iterator(g.output)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("heap-") && name.ends_with("-1")) last = e.path().string();
  }
  REQUIRE_FALSE(last.empty());
  return last;
}

// Bytes of `last`'s final tenth (its last key group) flipped in turn until three are damage
// that decoding finds (dump of `snapshot` refuses it); `refuse` runs with each in place.
template <class Refuse>
void check_on_read_damages(const std::string& snapshot, const std::string& last, const Refuse& refuse) {
  const std::string good = test::read_file(last);
  int refused = 0;
  for (size_t at = good.size() - 1; at > good.size() * 9 / 10 && refused < 3; at -= 7) {
    std::string bad = good;
    bad[at] = static_cast<char>(static_cast<uint8_t>(bad[at]) ^ 0x80);
    test::write_file(last, bad);
    CheckOnReadCountSink sink;
    if (dump_snapshot(snapshot, DumpOptions{}, sink).ok()) continue;
    ++refused;
    INFO("byte " << at << " of " << good.size() << " flipped");
    refuse(good.size());
  }
  test::write_file(last, good);
  CHECK(refused == 3);
}

}  // namespace

TEST_CASE("convert refuses damage in a later subtask's last key group and abandons what it wrote",
          "[unit][ops][corrupt]") {
  test::ScratchDir scratch(test::memory_temp_dir());
  const std::string work = scratch / "work";
  fs::create_directories(work);
  GenerateOptions g;
  const std::string last = check_on_read_snapshot(work, g);
  const std::string out = work + "/out";
  check_on_read_damages(g.output, last, [&](size_t size) {
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
    CHECK(*c.error().offset < size);
    // Subtask 0 was written before the damage was met (a check pass before would have written
    // nothing), and none of it is left: no output, no temporary directory.
    CHECK(progress.entries_done.load() > 0);
    CHECK_FALSE(fs::exists(out));
    CHECK(check_on_read_listing(work) == std::vector<std::string>{"sp"});
  });

  // The undamaged input converts.
  ConvertOptions o;
  o.to = ConvertTarget::kRocksDb;
  o.output = out;
  REQUIRE(convert_snapshot(g.output, o).ok());
  CHECK(check_on_read_listing(work) == std::vector<std::string>{"out", "sp"});
}

TEST_CASE("edit refuses damage in a later subtask's last key group and leaves nothing", "[unit][ops][corrupt]") {
  test::ScratchDir scratch(test::memory_temp_dir());
  const std::string work = scratch / "work";
  fs::create_directories(work);
  GenerateOptions g;
  const std::string last = check_on_read_snapshot(work, g);
  uint64_t input_bytes = 0;  // what one read of the input counts
  for (const auto& e : fs::directory_iterator(g.output))
    if (e.path().filename() != "_metadata") input_bytes += fs::file_size(e.path());
  const std::string out = work + "/out";
  Result<Value> key = parse_value("\"user-0000000003\"");
  REQUIRE(key.ok());
  std::string keyed_operator;
  {
    Result<Metadata> m = read_metadata_file(g.output + "/_metadata");
    REQUIRE(m.ok());
    for (const OperatorState& op : m->operators)
      for (const SubtaskState& st : op.subtasks)
        if (!st.managed_keyed.is_null()) keyed_operator = operator_id_hex(op.id);
  }
  REQUIRE_FALSE(keyed_operator.empty());

  // The edit `o` refused for the damage in `last`, leaving nothing; what it counted.
  auto refused = [&](EditOptions o, Progress& progress, int jobs = 1) {
    o.output = out;
    o.jobs = jobs;
    o.progress = &progress;
    Result<EditSummary> e = edit_snapshot(g.output, o);
    REQUIRE_FALSE(e.ok());
    INFO(e.error().to_string());
    CHECK(e.error().file == last);
    CHECK(e.error().offset.has_value());
    CHECK_FALSE(fs::exists(out));
    CHECK(check_on_read_listing(work) == std::vector<std::string>{"sp"});
  };
  check_on_read_damages(g.output, last, [&](size_t) {
    {
      // Regrouped to a multiple of 8: each output stream written as the input is read (-j 1:
      // every input read once, and checked as read), the damage met after subtask 0's key
      // groups were written into the output directory, which is abandoned.
      Progress progress;
      EditOptions o;
      o.max_parallelism = 64;
      refused(o, progress);
      CHECK(progress.bytes_total.load() <= input_bytes);
    }
    {
      // The same with -j 2: one thread reads (and checks) every input once while the other
      // writes the streams; the reader's error stops the writer, and is the one reported.
      Progress progress;
      EditOptions o;
      o.max_parallelism = 64;
      refused(o, progress, 2);
      CHECK(progress.bytes_total.load() <= input_bytes);
    }
    {
      // Regrouped to no multiple of 8: every pair spilled first, the damage met in the spilling.
      Progress progress;
      EditOptions o;
      o.max_parallelism = 12;
      refused(o, progress);
      CHECK(progress.bytes_total.load() <= input_bytes);
    }
    {
      // Keys erased: subtask 0 is written before the damage is met, then abandoned.
      Progress progress;
      EditOptions o;
      o.delete_keys = {*key};
      refused(o, progress);
      CHECK(progress.entries_done.load() > 0);
    }
    {
      // The damaged operator dropped: refused by the check pass, before anything is written.
      Progress progress;
      EditOptions o;
      o.drop_operators = {keyed_operator};
      refused(o, progress);
      CHECK(progress.entries_done.load() == 0);
      CHECK(progress.bytes_total.load() > input_bytes);
    }
  });

  // The undamaged input is regrouped, each keyed stream read once.
  Progress progress;
  EditOptions o;
  o.max_parallelism = 64;
  o.output = out;
  o.progress = &progress;
  Result<EditSummary> e = edit_snapshot(g.output, o);
  REQUIRE(e.ok());
  CHECK(e->written.entries > 0);
  CHECK(progress.bytes_total.load() <= input_bytes);
  CHECK(progress.bytes_total.load() * 2 > input_bytes);
  CHECK(check_on_read_listing(work) == std::vector<std::string>{"out", "sp"});
}
