// ckpt relocate: identity without mappings, reversible mappings, relative handles, safety.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "ckpt/metadata.h"
#include "testlib/absolute_snapshot.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::read_file;
using ckpt::test::run_cli;

TEST_CASE("relocate without a mapping copies every corpus _metadata byte for byte", "[cli][corpus]") {
  // No mapping, and a mapping that matches nothing, both leave the bytes alone.
  CKPT_REQUIRE_SHARED();
  ckpt::test::ScratchDir scratch;
  for (const std::string& dir : ckpt::test::corpus_snapshots()) {
    INFO(dir);
    std::string out = scratch / (fs::path(dir).filename().string() + "-metadata");
    auto r = run_cli({"relocate", dir, "--output", out});
    REQUIRE(r.status == 0);
    CHECK(read_file(out) == read_file(dir + "/_metadata"));
    // The same output again: an existing file is replaced only with --force.
    auto m = run_cli({"relocate", dir + "/_metadata", "-o", out, "--map", "s3://nowhere=/x", "--relative", "--force"});
    REQUIRE(m.status == 0);
    CHECK(m.out == out + ": 0 paths rewritten, 0 made relative (a byte-for-byte copy)\n");
    CHECK(read_file(out) == read_file(dir + "/_metadata"));
  }
}

TEST_CASE("relocate --map rewrites absolute paths and the reverse mapping restores the bytes", "[cli]") {
  // Moving the shared directory between buckets and back is the identity.
  ckpt::test::ScratchDir scratch;
  std::string snap = scratch / "chk-11";
  std::string original = ckpt::test::write_absolute_snapshot(snap, "hdfs://nn:8020/flink/job/shared", "");
  REQUIRE(!original.empty());

  auto there = run_cli({"relocate", snap, "--output", scratch / "moved", "--map",
                        "hdfs://nn:8020/flink=s3://bucket/ckpts", "--map", "file:" + snap + "=file:/mnt/chk-11"});
  REQUIRE(there.status == 0);
  CHECK(there.out == (scratch / "moved") + ": 3 paths rewritten, 0 made relative\n");
  auto moved = ckpt::decode_metadata(read_file(scratch / "moved"));
  REQUIRE(moved.ok());
  const auto& s1 = moved->operators[0].subtasks[1].managed_keyed;
  CHECK(s1.shared_files[0].handle.path == "s3://bucket/ckpts/job/shared/sst-1");
  CHECK(s1.private_files[0].handle.path == "file:/mnt/chk-11/MANIFEST-1");
  CHECK(moved->operators[0].subtasks[0].managed_keyed.delegate.path == "file:/mnt/chk-11/kg-0");
  // "file://" + snap does not start with "file:" + snap, so the meta file keeps its path.
  CHECK(s1.delegate.path == "file://" + snap + "/meta-1");
  CHECK(moved->operators[0].subtasks[1].managed_operator[0].delegate.name == "file:/tmp/not-a-file");

  auto back = run_cli({"relocate", scratch / "moved", "--output", scratch / "back", "--map",
                       "s3://bucket/ckpts=hdfs://nn:8020/flink", "--map", "file:/mnt/chk-11=file:" + snap});
  REQUIRE(back.status == 0);
  CHECK(read_file(scratch / "back") == original);
  CHECK(read_file(snap + "/_metadata") == original);  // the input was never touched
}

TEST_CASE("relocate --relative turns absolute handles inside the snapshot into relative ones that resolve", "[cli]") {
  // file: URIs under the snapshot directory become type 6; the shared file elsewhere stays absolute.
  ckpt::test::ScratchDir scratch;
  std::string snap = scratch / "chk-11";
  ckpt::test::write_absolute_snapshot(snap, "hdfs://nn:8020/flink/job/shared", scratch / "shared");
  std::string out = snap + "/_metadata.relative";
  auto r = run_cli({"relocate", snap, "--output", out, "--relative"});
  REQUIRE(r.status == 0);
  CHECK(r.out == out + ": 0 paths rewritten, 3 made relative\n");
  auto m = ckpt::decode_metadata(read_file(out));
  REQUIRE(m.ok());
  const auto& kg = m->operators[0].subtasks[0].managed_keyed.delegate;
  CHECK(kg.type == ckpt::handle_type::kRelativeFile);
  CHECK(kg.path == "kg-0");
  CHECK(kg.size == 100);
  const auto& inc = m->operators[0].subtasks[1].managed_keyed;
  CHECK(inc.delegate.type == ckpt::handle_type::kRelativeFile);
  CHECK(inc.private_files[0].handle.path == "MANIFEST-1");
  CHECK(inc.shared_files[0].handle.type == ckpt::handle_type::kFile);

  // The relative snapshot, moved to a new directory with its files, resolves there.
  std::string moved = scratch / "elsewhere";
  fs::create_directories(moved);
  for (const char* f : {"kg-0", "meta-1", "MANIFEST-1"}) fs::copy_file(snap + "/" + f, moved + "/" + f);
  fs::copy_file(out, moved + "/_metadata");
  auto inspect = run_cli({"inspect", "--json", "--allow-unread", moved, "--remap", "hdfs://nn:8020/flink/job=" + scratch.path()});
  CHECK(inspect.status == 0);
  auto report = nlohmann::json::parse(inspect.out);
  size_t relative = 0;
  for (const nlohmann::json& f : report["files"]) {
    CHECK(f["exists"] == true);
    if (f["handle_type"] == 6) {
      ++relative;
      std::string uri = f["uri"];
      CHECK(f["path"] == moved + "/" + uri);
    }
  }
  CHECK(relative == 3);
}

TEST_CASE("relocate refuses to overwrite its input and rejects bad mappings", "[cli]") {
  // The input is never modified, whatever the user types.
  ckpt::test::ScratchDir scratch;
  std::string snap = scratch / "chk-11";
  std::string original = ckpt::test::write_absolute_snapshot(snap, "hdfs://nn/x", "");
  auto same = run_cli({"relocate", snap, "--output", snap + "/_metadata", "--map", "hdfs://nn=s3://b"});
  CHECK(same.status == 2);
  CHECK(same.err == "ckpt: error: '" + snap + "/_metadata': output is the input _metadata '" + snap + "/_metadata'\n");
  auto via_dots = run_cli({"relocate", snap + "/_metadata", "--output", snap + "/../chk-11/_metadata", "--relative"});
  CHECK(via_dots.status == 2);
  auto dir = run_cli({"relocate", snap, "--output", snap});
  CHECK(dir.status == 2);
  CHECK(dir.err.find("output is a directory") != std::string::npos);
  auto bad = run_cli({"relocate", snap, "--output", scratch / "out", "--map", "no-equals-sign"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--map 'no-equals-sign': expected PREFIX=VALUE") != std::string::npos);
  auto missing = run_cli({"relocate", snap});
  CHECK(missing.status == 2);
  CHECK(read_file(snap + "/_metadata") == original);
  CHECK_FALSE(fs::exists(scratch / "out"));
}
