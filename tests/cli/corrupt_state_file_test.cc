// A byte flipped inside a state file of each layout: `ckpt dump` and `ckpt verify --deep` name
// that file and an offset inside it, never `_metadata` (which holds only the reference).
#include <catch2/catch.hpp>

#include <filesystem>
#include <optional>
#include <regex>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "testlib/changelog_records.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

// Flips every bit of the byte at `offset` of `path`.
void flip(const std::string& path, uint64_t offset) {
  std::string bytes = test::read_file(path);
  REQUIRE(offset < bytes.size());
  bytes[offset] = static_cast<char>(bytes[offset] ^ 0xff);
  test::write_file(path, bytes);
}

// The first byte of `path`, from `from` on in steps of `step`, whose flip is corruption: `ckpt
// dump` stops and `ckpt verify --deep` finds a problem. Not every flip is: a flipped value byte
// is just another value, and a flipped version is a version ckpt does not support (which
// verify lists as unchecked). The damage is left in place; fails the test if there is none.
uint64_t damage(const std::string& snapshot, const std::string& path, uint64_t from = 0, uint64_t step = 1) {
  const uint64_t size = fs::file_size(path);
  for (uint64_t at = from; at < size; at += step) {
    flip(path, at);
    if (test::run_cli({"dump", snapshot}).status == 2 &&
        test::run_cli({"verify", snapshot, "--deep", "--allow-unread"}).status == 1)
      return at;
    flip(path, at);  // back
  }
  FAIL("no flipped byte of " << path << " makes dump fail");
  return 0;
}

// "ckpt: error: '<file>': ... at offset 0x<n>": the file and the offset.
struct Named {
  std::string file;
  std::optional<uint64_t> offset;
};
Named named_by(const std::string& err) {
  Named n;
  std::smatch m;
  if (std::regex_search(err, m, std::regex("error: '([^']*)'"))) n.file = m[1].str();
  if (std::regex_search(err, m, std::regex(" at offset 0x([0-9a-f]+)")))
    n.offset = std::stoull(m[1].str(), nullptr, 16);
  return n;
}

bool same_file(const std::string& reported, const std::string& path) {
  return fs::path(reported).filename() == fs::path(path).filename();
}

// `path` (a state file of `snapshot`) damaged at a byte dump cannot read past: dump and
// verify --deep name it, with an offset inside it.
void check_damage_named(const std::string& snapshot, const std::string& path, uint64_t from = 0, uint64_t step = 1) {
  const uint64_t size = fs::file_size(path);
  const uint64_t at = damage(snapshot, path, from, step);
  INFO(path << " flipped at " << at);

  test::CliResult dump = test::run_cli({"dump", snapshot});
  INFO(dump.err);
  CHECK(dump.status == 2);
  Named n = named_by(dump.err);
  CHECK(same_file(n.file, path));
  CHECK(dump.err.find("_metadata'") == std::string::npos);
  REQUIRE(n.offset.has_value());
  CHECK(*n.offset < size);

  test::CliResult verify = test::run_cli({"verify", snapshot, "--deep", "--json"});
  INFO(verify.out << verify.err);
  CHECK(verify.status == 1);
  nlohmann::json j = nlohmann::json::parse(verify.out);
  REQUIRE(j["problems"].size() >= 1);
  for (const nlohmann::json& p : j["problems"]) {
    CHECK(same_file(p["file"].get<std::string>(), path));
    REQUIRE(p["offset"].is_number());
    CHECK(p["offset"].get<uint64_t>() < size);
  }
}

// A copy of testdata/sample-savepoint in `scratch`.
std::string sample_copy(const test::ScratchDir& scratch) {
  std::string dst = scratch / "sp";
  fs::copy(test::source_dir() + "/testdata/sample-savepoint", dst, fs::copy_options::recursive);
  return dst;
}

void overwrite_metadata(const std::string& snapshot, const Metadata& m) {
  Result<std::string> bytes = encode_metadata(m);
  REQUIRE(bytes.ok());
  test::write_file(snapshot + "/_metadata", *bytes);
}

Metadata read_snapshot_metadata(const std::string& snapshot) {
  Result<Metadata> m = read_metadata_file(snapshot + "/_metadata");
  REQUIRE(m.ok());
  return std::move(m).value();
}

// The local file of the first non-null managed keyed handle's delegate whose type is `type`.
std::string keyed_delegate(const std::string& snapshot, uint8_t type) {
  for (const OperatorState& op : read_snapshot_metadata(snapshot).operators)
    for (const SubtaskState& st : op.subtasks)
      if (st.managed_keyed.type == type && st.managed_keyed.delegate.is_file()) {
        std::string p = st.managed_keyed.delegate.path;
        if (auto local = local_path_of_uri(p)) return *local;
        return snapshot + "/" + p;
      }
  FAIL("no keyed handle of type " << int(type) << " in " << snapshot);
  return {};
}

std::string generated_backend(const test::ScratchDir& scratch, const std::string& backend,
                              const std::string& extra = "") {
  std::string out = scratch / backend;
  std::vector<std::string> args = {"generate", "--output", out, "--backend", backend, "--keys", "200",
                                   "--states", "value,list,map"};
  if (!extra.empty()) {
    args.push_back("--chain");
    args.push_back(extra);
  }
  test::run_cli_ok(args);
  return out;
}

}  // namespace

TEST_CASE("a damaged heap key-groups file with id is named with its offset - not _metadata", "[corrupt][cli]") {
  // The case: byte 300 of the sample savepoint's keyed file (inside the keyed proxy's
  // serializer snapshots) was reported as "'sp/_metadata': ... at offset 0x113".
  test::ScratchDir scratch;
  std::string sp = sample_copy(scratch);
  std::string file = keyed_delegate(sp, handle_type::kKeyGroupsWithId);
  flip(file, 300);
  test::CliResult dump = test::run_cli({"dump", sp});
  INFO(dump.err);
  CHECK(dump.status == 2);
  CHECK(same_file(named_by(dump.err).file, file));
  flip(file, 300);  // back, and the same on every byte dump cannot read past
  check_damage_named(sp, file);
}

TEST_CASE("a damaged operator state file is named with its offset - not _metadata", "[corrupt][cli]") {
  test::ScratchDir scratch;
  std::string sp = sample_copy(scratch);
  std::string file;
  for (const OperatorState& op : read_snapshot_metadata(sp).operators)
    for (const SubtaskState& st : op.subtasks)
      for (const OperatorHandle& h : st.managed_operator)
        if (h.delegate.is_file()) file = sp + "/" + h.delegate.path;
  REQUIRE_FALSE(file.empty());
  check_damage_named(sp, file);
}

TEST_CASE("a damaged full heap key-groups file is named with its offset - not _metadata", "[corrupt][cli]") {
  // Type 3 (KeyGroupsStateHandle, no id), as Flink before 1.15 writes it: the sample savepoint's
  // keyed handles with their type byte changed (the stream is the same).
  test::ScratchDir scratch;
  std::string sp = sample_copy(scratch);
  Metadata m = read_snapshot_metadata(sp);
  for (OperatorState& op : m.operators)
    for (SubtaskState& st : op.subtasks)
      if (st.managed_keyed.type == handle_type::kKeyGroupsWithId) {
        st.managed_keyed.type = handle_type::kKeyGroups;
        st.managed_keyed.handle_id.clear();
      }
  overwrite_metadata(sp, m);
  check_damage_named(sp, keyed_delegate(sp, handle_type::kKeyGroups));
}

TEST_CASE("damaged inline state bytes are named as _metadata and their inline stream", "[corrupt][cli]") {
  // Bytes inside `_metadata` (type 1) have no known offset there: the error names `_metadata`,
  // the operator and subtask, and the inline stream whose first byte its offset counts from.
  test::ScratchDir scratch;
  std::string sp = sample_copy(scratch);
  Metadata m = read_snapshot_metadata(sp);
  std::string inlined;
  size_t size = 0;
  for (OperatorState& op : m.operators)
    for (SubtaskState& st : op.subtasks) {
      StreamHandle& d = st.managed_keyed.delegate;
      if (!inlined.empty() || !d.is_file()) continue;
      inlined = d.path;
      d.type = handle_type::kByteStream;
      d.name = "inline-" + inlined;
      d.data = test::read_file(sp + "/" + inlined);
      d.data[300] = static_cast<char>(d.data[300] ^ 0xff);
      size = d.data.size();
      d.path.clear();
    }
  REQUIRE_FALSE(inlined.empty());
  overwrite_metadata(sp, m);
  test::CliResult dump = test::run_cli({"dump", sp});
  INFO(dump.err);
  CHECK(dump.status == 2);
  CHECK(named_by(dump.err).file == sp + "/_metadata");
  CHECK(dump.err.find("subtask 0") != std::string::npos);
  CHECK(dump.err.find("inline stream 'inline-" + inlined + "' (offsets from its first byte)") != std::string::npos);
  REQUIRE(named_by(dump.err).offset.has_value());
  CHECK(*named_by(dump.err).offset < size);
}

TEST_CASE("a damaged canonical savepoint file is named with its offset - not _metadata", "[corrupt][cli]") {
  test::ScratchDir scratch;
  std::string sp = generated_backend(scratch, "canonical");
  check_damage_named(sp, keyed_delegate(sp, handle_type::kSavepointKeyGroups));
}

TEST_CASE("a damaged sst of a native rocksdb savepoint is named with its offset - not _metadata", "[corrupt][cli]") {
  test::ScratchDir scratch;
  std::string sp = generated_backend(scratch, "rocksdb");
  std::string sst;
  for (const OperatorState& op : read_snapshot_metadata(sp).operators)
    for (const SubtaskState& st : op.subtasks)
      for (const auto* files : {&st.managed_keyed.shared_files, &st.managed_keyed.private_files})
        for (const NamedStream& f : *files)
          if (sst.empty() && f.name.ends_with(".sst")) sst = sp + "/" + f.handle.path;
  REQUIRE_FALSE(sst.empty());
  // Byte 0 is in the first data block: its checksum fails where RocksDB reads it.
  check_damage_named(sp, sst);
}

TEST_CASE("a damaged meta data stream of an incremental rocksdb checkpoint is named with its offset",
          "[corrupt][cli]") {
  // The chain's handles are absolute file: URIs (type 2), each meta data stream its own file.
  test::ScratchDir scratch;
  std::string root = generated_backend(scratch, "rocksdb", "2");
  std::string chk = root + "/chk-2";
  check_damage_named(chk, keyed_delegate(chk, handle_type::kIncremental));
}

TEST_CASE("a damaged change log file is named with its offset - not _metadata", "[corrupt][cli][corpus]") {
  // Flink 1.17's changelog checkpoint with one in-memory log moved into a log file.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  const std::string src = test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.17-hashmap-checkpoint";
  const std::string sp = scratch / "moved";
  fs::copy(src, sp, fs::copy_options::recursive);
  Metadata m = read_snapshot_metadata(sp);
  bool moved = false;
  for (OperatorState& op : m.operators)
    for (SubtaskState& st : op.subtasks)
      for (KeyedHandle& log : st.managed_keyed.non_materialized)
        if (!moved && log.type == handle_type::kInMemoryChangelog && log.changes.size() >= 2) {
          log = test::to_file_log(log, sp, "dstl-log", false);
          moved = true;
        }
  REQUIRE(moved);
  overwrite_metadata(sp, m);
  REQUIRE(test::run_cli({"dump", sp}).status == 0);
  check_damage_named(sp, sp + "/dstl-log");
}
