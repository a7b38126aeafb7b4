// ckpt dump and convert on a changelog checkpoint whose change logs were moved from `_metadata` into log files.
#include <catch2/catch.hpp>

#include <filesystem>

#include <fmt/format.h>

#include "ckpt/metadata.h"
#include "support/changelog_records.h"
#include "support/cli_run.h"
#include "support/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

const char* kChangelogCheckpoint = "new-stateful-udf-migration-itcase-flink1.17-hashmap-checkpoint";
// The same job on RocksDB: its proxies name the key serializers the change logs do not store.
const char* kRocksCheckpoint = "new-stateful-udf-migration-itcase-flink1.17-rocksdb-checkpoint";

// `log` (type 9) written as a flink-dstl-dfs log file `dir/name`: its changes split into two
// change sets, one piece each; returns the type-13 handle that replaces it.
KeyedHandle to_file_log(const KeyedHandle& log, const std::string& dir, const std::string& name, bool compressed) {
  size_t half = log.changes.size() / 2;
  std::vector<Change> first(log.changes.begin(), log.changes.begin() + static_cast<std::ptrdiff_t>(half));
  std::vector<Change> second(log.changes.begin() + static_cast<std::ptrdiff_t>(half), log.changes.end());
  test::LogFile f = test::changelog_file({first, second}, compressed);
  test::write_file(dir + "/" + name, f.bytes);
  KeyedHandle h = test::file_log({{name, f.offsets[0], f.stream_size}, {name, f.offsets[1], f.stream_size}});
  h.range = log.range;
  h.handle_id = log.handle_id;
  h.checkpointed_size = h.state_size_field = f.stream_size;
  return h;
}

test::CliResult run(const std::vector<std::string>& args) {
  test::CliResult r = test::run_cli(args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r;
}

}  // namespace

TEST_CASE("dump and convert read change logs in files exactly as the same logs inline", "[cli][corpus]") {
  // Flink 1.17's changelog checkpoint (in-memory logs, type 9) beside a copy whose every log is a
  // log file (type 13, plain and Snappy-compressed, two pieces each): `ckpt dump` prints the
  // same entries, `ckpt verify --deep` finds nothing, and `ckpt convert --to rocksdb` writes
  // snapshots that dump the same. Two of its operators have no materialized part: all their
  // state comes from the logs.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  const std::string src = test::corpus_dir() + "/" + kChangelogCheckpoint;
  const std::string moved = scratch / "moved";
  fs::create_directories(moved);
  for (const auto& e : fs::directory_iterator(src))
    if (e.path().filename() != "_metadata") fs::create_symlink(e.path(), moved + "/" + e.path().filename().string());

  auto m = read_metadata_file(src + "/_metadata");
  REQUIRE(m.ok());
  int logs = 0;
  for (OperatorState& op : m->operators)
    for (SubtaskState& st : op.subtasks)
      for (KeyedHandle& log : st.managed_keyed.non_materialized)
        if (log.type == handle_type::kInMemoryChangelog && log.changes.size() >= 2) {
          log = to_file_log(log, moved, fmt::format("dstl-log-{}", logs), logs % 2 == 1);
          ++logs;
        }
  REQUIRE(logs >= 2);
  auto bytes = encode_metadata(*m);
  REQUIRE(bytes.ok());
  test::write_file(moved + "/_metadata", *bytes);

  test::CliResult inline_dump = run({"dump", src, "--format", "ndjson"});
  test::CliResult file_dump = run({"dump", moved, "--format", "ndjson"});
  CHECK(std::count(inline_dump.out.begin(), inline_dump.out.end(), '\n') > 10);
  CHECK(file_dump.out == inline_dump.out);
  // Their handles declare the uncompressed stream's size, as Flink's do: verify must accept that.
  test::CliResult verified = run({"verify", moved, "--deep"});
  CHECK(verified.out.find("40 entries decoded") != std::string::npos);

  const std::string keys = test::corpus_dir() + "/" + kRocksCheckpoint;
  run({"convert", src, "--to", "rocksdb", "--output", scratch / "inline-rocks", "--key-serializers-from", keys});
  run({"convert", moved, "--to", "rocksdb", "--output", scratch / "moved-rocks", "--key-serializers-from", keys});
  test::CliResult a = run({"dump", scratch / "inline-rocks", "--format", "ndjson"});
  test::CliResult b = run({"dump", scratch / "moved-rocks", "--format", "ndjson"});
  CHECK(std::count(a.out.begin(), a.out.end(), '\n') > 10);
  CHECK(b.out == a.out);
}
