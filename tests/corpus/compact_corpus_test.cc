// ckpt compact on Flink's RocksDB snapshots: the output is a native savepoint that dumps
// exactly as its input, with at most one SST per column family, and the input is untouched.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ckpt/compact.h"
#include "ckpt/dump.h"
#include "ckpt/metadata.h"
#include "ckpt/walk.h"
#include "testlib/cli_run.h"
#include "testlib/dump_lines.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using namespace ckpt;

using ckpt::test::dump_lines;

TEST_CASE("compact turns RocksDB checkpoints and native savepoints into native savepoints with the same entries",
          "[corpus][ops]") {
  // Every incremental checkpoint and native savepoint of the RocksDB backend in the corpus.
  CKPT_REQUIRE_SHARED();
  ckpt::test::ScratchDir scratch;
  size_t compacted = 0;
  for (const std::string& dir : ckpt::test::corpus_snapshots()) {
    std::string name = fs::path(dir).filename().string();
    if (!name.ends_with("rocksdb-checkpoint") && !name.ends_with("rocksdb-savepoint-native")) continue;
    if (name.find("flink1.17-") != std::string::npos && name.find("hashmap") != std::string::npos) continue;
    INFO(name);
    auto input = read_metadata_file(dir);
    REQUIRE(input.ok());
    bool native = false;
    for (const auto& op : input->operators)
      for (const auto& st : op.subtasks) native = native || st.managed_keyed.type == handle_type::kIncremental;
    if (!native) continue;  // operator state only: nothing for RocksDB to compact
    std::string before = ckpt::test::read_file(dir + "/_metadata");
    std::string out = scratch / name;
    CompactOptions options;
    options.jobs = 2;
    auto r = compact_snapshot(dir, out, options);
    REQUIRE(r.ok());
    CHECK(r->instances > 0);
    CHECK(dump_lines(out) == dump_lines(dir));
    CHECK(ckpt::test::read_file(dir + "/_metadata") == before);
    auto m = read_metadata_file(out);
    REQUIRE(m.ok());
    if (m->version >= 4) CHECK(m->kind() == SnapshotKind::kSavepointNative);
    // Every handle is relative and every file it names is in the output.
    size_t files = 0;
    for_each_stream(*m, [&](const StreamHandle& s, const StreamSite&) {
      if (s.type == handle_type::kByteStream) return;
      CHECK(s.type == handle_type::kRelativeFile);
      CHECK(fs::file_size(out + "/" + s.path) == static_cast<uint64_t>(s.size));
      ++files;
    });
    CHECK(files > 0);
    CHECK(r->sst_files_after <= r->sst_files_before + r->instances * 4);
    ++compacted;
  }
  CHECK(compacted >= 10);
}

TEST_CASE("compact refuses a non-empty output - a heap snapshot and an unknown compression", "[cli][corpus]") {
  // The output appears only when complete; nothing is written on refusal.
  CKPT_REQUIRE_SHARED();
  ckpt::test::ScratchDir scratch;
  std::string rocks = ckpt::test::corpus_dir() + "/new-stateful-broadcast-udf-migration-itcase-flink1.18-rocksdb-checkpoint";
  std::string heap = ckpt::test::corpus_dir() + "/new-stateful-broadcast-udf-migration-itcase-flink1.18-hashmap-checkpoint";
  fs::create_directories(scratch / "full");
  ckpt::test::write_file(scratch / "full/x", "x");
  auto full = ckpt::test::run_cli({"compact", rocks, "-o", scratch / "full"});
  CHECK(full.status == 2);
  CHECK(full.err.find("not empty") != std::string::npos);
  auto h = ckpt::test::run_cli({"compact", heap, "-o", scratch / "heap"});
  CHECK(h.status == 2);
  CHECK_FALSE(fs::exists(scratch / "heap"));
  auto c = ckpt::test::run_cli({"compact", rocks, "-o", scratch / "c", "--compression", "brotli"});
  CHECK(c.status == 2);
  auto ok = ckpt::test::run_cli({"compact", rocks, "-o", scratch / "ok", "--compression", "lz4", "-j", "2"});
  REQUIRE(ok.status == 0);
  CHECK(ok.out.find("before: ") != std::string::npos);
  CHECK(fs::exists(scratch / "ok/_metadata"));
  for (const auto& e : fs::directory_iterator(scratch.path()))
    CHECK(e.path().filename().string().find("ckpt-tmp") == std::string::npos);
}
