// ckpt dump and convert on a changelog checkpoint whose change logs were moved from `_metadata` into log files.
#include <catch2/catch.hpp>

#include <filesystem>

#include <fmt/format.h>

#include "ckpt/metadata.h"
#include "testlib/changelog_records.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

const char* kChangelogCheckpoint = "new-stateful-udf-migration-itcase-flink1.17-hashmap-checkpoint";
// The same job on RocksDB: its proxies name the key serializers the change logs do not store.
const char* kRocksCheckpoint = "new-stateful-udf-migration-itcase-flink1.17-rocksdb-checkpoint";

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
    if (e.path().filename() != "_metadata") fs::copy_file(e.path(), moved + "/" + e.path().filename().string());

  auto m = read_metadata_file(src + "/_metadata");
  REQUIRE(m.ok());
  int logs = 0;
  for (OperatorState& op : m->operators)
    for (SubtaskState& st : op.subtasks)
      for (KeyedHandle& log : st.managed_keyed.non_materialized)
        if (log.type == handle_type::kInMemoryChangelog && log.changes.size() >= 2) {
          log = test::to_file_log(log, moved, fmt::format("dstl-log-{}", logs), logs % 2 == 1);
          ++logs;
        }
  REQUIRE(logs >= 2);
  auto bytes = encode_metadata(*m);
  REQUIRE(bytes.ok());
  test::write_file(moved + "/_metadata", *bytes);

  test::CliResult inline_dump = test::run_cli_ok({"dump", src, "--format", "ndjson"});
  test::CliResult file_dump = test::run_cli_ok({"dump", moved, "--format", "ndjson"});
  CHECK(std::count(inline_dump.out.begin(), inline_dump.out.end(), '\n') > 10);
  CHECK(file_dump.out == inline_dump.out);
  // Their handles declare the uncompressed stream's size, as Flink's do: verify must accept that.
  test::CliResult verified = test::run_cli_ok({"verify", moved, "--deep"});
  CHECK(verified.out.find("40 entries decoded") != std::string::npos);

  const std::string keys = test::corpus_dir() + "/" + kRocksCheckpoint;
  test::run_cli_ok(
      {"convert", src, "--to", "rocksdb", "--output", scratch / "inline-rocks", "--key-serializers-from", keys});
  test::run_cli_ok(
      {"convert", moved, "--to", "rocksdb", "--output", scratch / "moved-rocks", "--key-serializers-from", keys});
  test::CliResult a = test::run_cli_ok({"dump", scratch / "inline-rocks", "--format", "ndjson"});
  test::CliResult b = test::run_cli_ok({"dump", scratch / "moved-rocks", "--format", "ndjson"});
  CHECK(std::count(a.out.begin(), a.out.end(), '\n') > 10);
  CHECK(b.out == a.out);
}
