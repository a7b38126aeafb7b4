// ckpt inspect: JSON and text reports checked against facts gathered without ckpt.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "testlib/absolute_snapshot.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using nlohmann::json;
using ckpt::test::run_cli;

namespace {

// Facts from the independent decoder's reading of a `_metadata`.
struct Expected {
  std::map<std::string, int64_t> relative_files;  // relative path -> stored size
  size_t relative_references = 0;
  int64_t inline_bytes = 0;                       // every data_length
};

void gather(const json& j, Expected& e) {
  if (j.is_object()) {
    if (j.contains("relative_path")) {
      e.relative_files[j["relative_path"].get<std::string>()] = j["state_size"].get<int64_t>();
      ++e.relative_references;
    }
    if (j.contains("data_length")) e.inline_bytes += j["data_length"].get<int64_t>();
    for (const auto& [k, v] : j.items()) gather(v, e);
  } else if (j.is_array()) {
    for (const auto& v : j) gather(v, e);
  }
}

json parse(const std::string& text) { return json::parse(text); }

std::string expected_kind(const json& meta) {
  const json& p = meta["properties"]["checkpointType"];
  if (p["class"].get<std::string>().ends_with("CheckpointType")) return "checkpoint";
  return p["formatType"] == "NATIVE" ? "savepoint-native" : "savepoint-canonical";
}

}  // namespace

TEST_CASE("inspect --json reports every corpus snapshot's operators - parallelisms - ranges and files", "[cli][corpus]") {
  // Each of the 107 Flink snapshots, against the directory listing and the independent decoding.
  CKPT_REQUIRE_SHARED();
  auto snapshots = ckpt::test::corpus_snapshots();
  REQUIRE(snapshots.size() >= 100);
  size_t references = 0, expected_references = 0;
  for (const std::string& dir : snapshots) {
    std::string name = fs::path(dir).filename().string();
    INFO(name);
    auto r = run_cli({"inspect", "--json", dir});
    REQUIRE(r.status == 0);
    json got = parse(r.out);
    json want = parse(ckpt::test::read_file(ckpt::test::expected_dir() + "/" + name + ".metadata.json"));

    CHECK(got["metadata_version"] == want["version"]);
    CHECK(got["checkpoint_id"] == want["checkpoint_id"]);
    CHECK(got["metadata_size"] == fs::file_size(dir + "/_metadata"));
    if (want["version"].get<int>() >= 4) {
      CHECK(got["kind"] == expected_kind(want));
      CHECK(got["kind_inferred"] == false);
      if (name.ends_with("-savepoint-native")) CHECK(got["kind"] == "savepoint-native");
      if (name.ends_with("-checkpoint")) CHECK(got["kind"] == "checkpoint");
    } else {
      CHECK(got["kind_inferred"] == true);  // V1-V3 do not record it
    }

    REQUIRE(got["operators"].size() == want["operators"].size());
    for (size_t i = 0; i < want["operators"].size(); ++i) {
      const json& g = got["operators"][i];
      const json& w = want["operators"][i];
      CHECK(g["id"] == w["operator_id"]);
      CHECK(g["parallelism"] == w["parallelism"]);
      CHECK(g["max_parallelism"] == w["max_parallelism"]);
      REQUIRE(g["subtasks"].size() == w["subtasks"].size());
      for (size_t s = 0; s < w["subtasks"].size(); ++s) {
        CHECK(g["subtasks"][s]["index"] == w["subtasks"][s]["index"]);
        const json& keyed = w["subtasks"][s]["managed_keyed_state"];
        if (keyed.is_null()) continue;
        bool found = false;
        for (const json& h : g["subtasks"][s]["handles"]) {
          if (h["slot"] != "managed-keyed") continue;
          found = true;
          CHECK(h["key_group_range"] == json::array({keyed["key_group_range"]["start"], keyed["key_group_range"]["end"]}));
        }
        CHECK(found);
      }
    }

    Expected e;
    gather(want, e);
    CHECK(got["inline_bytes"] == e.inline_bytes);
    // The files: every entry of the directory but _metadata, each once, found where it is.
    std::map<std::string, uint64_t> on_disk;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().filename() != "_metadata") on_disk[entry.path().filename().string()] = entry.file_size();
    std::map<std::string, int64_t> reported;
    for (const json& f : got["files"]) {
      std::string uri = f["uri"];
      CHECK(reported.emplace(uri, f["size"].get<int64_t>()).second);
      REQUIRE(on_disk.count(uri) == 1);
      CHECK(f["exists"] == true);
      CHECK(f["path"] == dir + "/" + uri);
      CHECK(f["size"] == on_disk[uri]);
      CHECK(f["actual_size"] == on_disk[uri]);
      references += f["reference_count"].get<size_t>();
    }
    CHECK(reported.size() == on_disk.size());
    CHECK(reported == e.relative_files);
    CHECK(got["file_count"] == on_disk.size());
    CHECK(got["missing_file_count"] == 0);
    expected_references += e.relative_references;
  }
  CHECK(references == expected_references);
}

TEST_CASE("inspect text shows the summary and one row per operator", "[cli][corpus]") {
  // The table names every operator id with its parallelism, and counts the files on disk.
  CKPT_REQUIRE_SHARED();
  std::string dir = ckpt::test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint";
  size_t n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) n += entry.path().filename() != "_metadata";
  auto r = run_cli({"inspect", dir});
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("metadata version  4\n") != std::string::npos);
  CHECK(r.out.find("kind              checkpoint") != std::string::npos);
  CHECK(r.out.find("files             " + std::to_string(n) + " (all present)") != std::string::npos);
  CHECK(r.out.find("1f2b5df5a66154aca61fcb26193792be  1    4       operator-union") != std::string::npos);
  CHECK(r.out.find("keyed-rocksdb-incremental") != std::string::npos);
  auto v = run_cli({"inspect", "-v", dir});
  CHECK(v.out.find("  subtask 3\n    managed-keyed incremental key-groups [3, 3]") != std::string::npos);
}

TEST_CASE("inspect flags missing and short files and exits 1", "[cli][corpus]") {
  // A copy of a real checkpoint with one file deleted and one truncated.
  CKPT_REQUIRE_SHARED();
  ckpt::test::ScratchDir scratch;
  std::string src = ckpt::test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint";
  std::string dir = scratch / "chk-2";
  fs::copy(src, dir);
  for (const auto& entry : fs::directory_iterator(dir)) fs::permissions(entry.path(), fs::perms::owner_write, fs::perm_options::add);
  const std::string gone = "ce3bed0f-d533-41ce-be10-4f7d171b8f2d";  // 282 bytes of operator state
  const std::string cut = "4a31a571-d3a1-41d2-b6ce-f77a02c18d0d";   // 10113 bytes, an OPTIONS file
  fs::remove(dir + "/" + gone);
  fs::resize_file(dir + "/" + cut, 100);

  auto r = run_cli({"inspect", "--json", dir + "/_metadata"});
  CHECK(r.status == 1);
  CHECK(r.err.find("ckpt: warning: 1 missing and 1 short files") != std::string::npos);
  json got = parse(r.out);
  CHECK(got["missing_file_count"] == 1);
  CHECK(got["short_file_count"] == 1);
  for (const json& f : got["files"]) {
    if (f["uri"] == gone) {
      CHECK(f["exists"] == false);
      CHECK(f["path"].is_null());
      CHECK(f["size"] == 282);
    } else if (f["uri"] == cut) {
      CHECK(f["exists"] == true);
      CHECK(f["short"] == true);
      CHECK(f["actual_size"] == 100);
      CHECK(f["size"] == 10113);
    } else {
      CHECK(f["exists"] == true);
      CHECK(f["short"] == false);
    }
  }
  auto t = run_cli({"inspect", dir});
  CHECK(t.status == 1);
  CHECK(t.out.find("MISSING " + gone) != std::string::npos);
  CHECK(t.out.find("SHORT (100 of 10113 bytes) " + cut) != std::string::npos);
}

TEST_CASE("inspect errors name the file and exit 2", "[cli][corrupt]") {
  // A path that does not exist, and a truncated _metadata with the offset of the damage.
  ckpt::test::ScratchDir scratch;
  auto r = run_cli({"inspect", scratch / "nope"});
  CHECK(r.status == 2);
  CHECK(r.err == "ckpt: error: '" + (scratch / "nope") + "': no such file or directory\n");
  auto empty = run_cli({"inspect", scratch.path()});
  CHECK(empty.status == 2);
  CHECK(empty.err.find("holds no _metadata") != std::string::npos);

  ckpt::test::write_file(scratch / "_metadata", std::string("\x49\x60\x67\x2d\x00\x00", 6));
  auto t = run_cli({"inspect", scratch / "_metadata"});
  CHECK(t.status == 2);
  CHECK(t.err.starts_with("ckpt: error: '" + (scratch / "_metadata") + "': "));
  CHECK(t.err.find(" at offset 0x") != std::string::npos);
  CHECK(t.out.empty());

  auto bad = run_cli({"inspect", scratch.path(), "--remap", "=/x"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--remap '=/x': expected PREFIX=VALUE") != std::string::npos);
}

TEST_CASE("absolute URIs resolve through --remap - file: paths and base names - inline names are no files", "[cli]") {
  // The synthetic absolute snapshot: shared file under hdfs://, own files under file: URIs.
  ckpt::test::ScratchDir scratch;
  std::string snap = scratch / "chk-11";
  std::string shared = scratch / "mirror/job/shared";
  ckpt::test::write_absolute_snapshot(snap, "hdfs://nn:8020/flink/job/shared", shared);

  auto plain = run_cli({"inspect", "--json", snap});
  CHECK(plain.status == 1);  // the shared file is nowhere the rules look
  json got = parse(plain.out);
  REQUIRE(got["files"].size() == 4);
  std::map<std::string, json> by_uri;
  for (const json& f : got["files"]) by_uri[f["uri"]] = f;
  CHECK(by_uri["file:" + snap + "/kg-0"]["path"] == snap + "/kg-0");
  CHECK(by_uri["file://" + snap + "/meta-1"]["path"] == snap + "/meta-1");
  CHECK(by_uri["file:" + snap + "/MANIFEST-1"]["size"] == 20);
  CHECK(by_uri["hdfs://nn:8020/flink/job/shared/sst-1"]["exists"] == false);
  CHECK(by_uri.count("file:/tmp/not-a-file") == 0);
  CHECK(got["inline_bytes"] == 8);

  // The longest matching prefix wins; a shorter one pointing elsewhere is ignored.
  // The fixture's meta files are placeholders whose states cannot be read: --allow-unread.
  auto remapped = run_cli({"inspect", "--json", "--allow-unread", snap, "--remap", "hdfs://nn:8020=" + (scratch / "wrong"),
                           "--remap", "hdfs://nn:8020/flink=" + (scratch / "mirror")});
  CHECK(remapped.status == 0);
  const json remapped_json = parse(remapped.out);  // a range over a temporary's member would dangle
  int remapped_ssts = 0;
  for (const json& f : remapped_json["files"])
    if (f["uri"] == "hdfs://nn:8020/flink/job/shared/sst-1") {
      CHECK(f["path"] == shared + "/sst-1");
      ++remapped_ssts;
    }
  CHECK(remapped_ssts == 1);

  // Copied beside _metadata, the shared file is found by its base name.
  fs::copy_file(shared + "/sst-1", snap + "/sst-1");
  auto beside = run_cli({"inspect", "--json", "--allow-unread", snap});
  CHECK(beside.status == 0);
  const json beside_json = parse(beside.out);
  int beside_ssts = 0;
  for (const json& f : beside_json["files"])
    if (f["handle_type"] == 2 && f["uri"].get<std::string>().starts_with("hdfs:")) {
      CHECK(f["path"] == snap + "/sst-1");
      ++beside_ssts;
    }
  CHECK(beside_ssts == 1);
}

TEST_CASE("a --remap rule that matches no file reference is reported - spelled as /x file:/x or file:///x it is one rule", "[cli]") {
  ckpt::test::ScratchDir scratch;
  std::string snap = scratch / "chk-11";
  std::string shared = scratch / "mirror/job/shared";
  ckpt::test::write_absolute_snapshot(snap, "hdfs://nn:8020/flink/job/shared", shared);
  // A typo (flnk) is named on stderr; the command still runs.
  auto typo = run_cli({"inspect", snap, "--remap", "hdfs://nn:8020/flnk=" + (scratch / "mirror")});
  CHECK(typo.status == 1);
  CHECK(typo.err.find("ckpt: warning: --remap hdfs://nn:8020/flnk=" + (scratch / "mirror") +
                      ": no file reference of the snapshot starts with hdfs://nn:8020/flnk") != std::string::npos);
  auto right = run_cli({"verify", snap, "--remap", "hdfs://nn:8020/flink=" + (scratch / "mirror")});
  CHECK(right.status == 0);
  CHECK(right.err.find("warning: --remap") == std::string::npos);
  // The snapshot's own files are file: URIs; a rule in any local spelling matches them.
  for (const std::string& prefix : {snap, "file:" + snap, "file://" + snap}) {
    INFO(prefix);
    auto local = run_cli({"inspect", "--allow-unread", snap, "--remap", prefix + "=" + snap, "--remap",
                          "hdfs://nn:8020/flink=" + (scratch / "mirror")});
    CHECK(local.status == 0);
    INFO(local.err);
    CHECK(local.err.find("warning: --remap") == std::string::npos);
  }
}
