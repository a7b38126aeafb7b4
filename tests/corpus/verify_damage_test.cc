// ckpt verify on damaged copies of Flink snapshots: each copy has exactly one fault, and each
// fault is reported as its own kind of problem, naming the operator, subtask and file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "ckpt/verify.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

const char* kNative = "new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint";
const char* kHeap = "new-stateful-udf-migration-itcase-flink1.20-hashmap-checkpoint";

// A private copy of a corpus snapshot in `scratch`.
std::string copy_snapshot(const test::ScratchDir& scratch, const char* name) {
  std::string dst = scratch / name;
  fs::copy(test::corpus_dir() + "/" + name, dst, fs::copy_options::recursive);
  return dst;
}

std::vector<ReferencedFile> files_of(const std::string& dir) {
  Result<SnapshotLocation> where = locate_snapshot(dir);
  REQUIRE(where.ok());
  Result<Metadata> m = read_metadata_file(where->metadata_path);
  REQUIRE(m.ok());
  Result<std::vector<ReferencedFile>> files = resolve_files(*m, *where, {});
  REQUIRE(files.ok());
  return std::move(files).value();
}

// The n-th referenced SST file of the snapshot (shared or private file of a native handle).
ReferencedFile sst_file(const std::string& dir, size_t n = 0) {
  for (const ReferencedFile& f : files_of(dir))
    for (const FileReference& r : f.references)
      if (r.local_name.size() > 4 && r.local_name.ends_with(".sst") && f.exists && n-- == 0) return f;
  FAIL("no sst file in " << dir);
  return {};
}

VerifyReport verify(const std::string& dir, bool deep) {
  VerifyOptions options;
  options.deep = deep;
  Result<VerifyReport> r = verify_snapshot(dir, options);
  REQUIRE(r.ok());
  return std::move(r).value();
}

// Every problem is of `kind` and about `uri`; there is at least one.
void require_only(const VerifyReport& r, ProblemKind kind, const std::string& uri) {
  std::string all;
  for (const VerifyProblem& p : r.problems) all += format_problem(p) + "\n";
  INFO(all);
  REQUIRE_FALSE(r.problems.empty());
  for (const VerifyProblem& p : r.problems) {
    CHECK(p.kind == kind);
    CHECK(p.error.file == uri);
    // The problem is an Error like any other: a missing file is kNotFound, damage kCorruption.
    CHECK(p.error.code == (kind == ProblemKind::kMissingFile ? ErrorCode::kNotFound : ErrorCode::kCorruption));
    CHECK(p.error.context.empty());
    CHECK(p.operator_id.size() == 32);
    CHECK(p.subtask >= 0);
  }
}

// The CLI's exit status and JSON for the same copy.
nlohmann::json cli_json(const std::string& dir, bool deep, int expected_status) {
  std::vector<std::string> args = {"verify", dir, "--json"};
  if (deep) args.push_back("--deep");
  test::CliResult r = test::run_cli(args);
  INFO(r.out << r.err);
  CHECK(r.status == expected_status);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("verify reports a deleted file as missing - quick and deep", "[corpus][corrupt][ops]") {
  // Retention removed a shared SST: the subtask that needs it is named, nothing else is wrong.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  std::string dir = copy_snapshot(scratch, kNative);
  ReferencedFile f = sst_file(dir);
  fs::remove(*f.path);
  require_only(verify(dir, false), ProblemKind::kMissingFile, f.uri);
  require_only(verify(dir, true), ProblemKind::kMissingFile, f.uri);
  nlohmann::json j = cli_json(dir, false, 1);
  REQUIRE(j["problems"].size() >= 1);
  CHECK(j["problems"][0]["kind"] == "missing-file");
  CHECK(j["problems"][0]["file"] == f.uri);
  CHECK(j["problems"][0]["operator"].is_string());
  CHECK(j["problems"][0]["subtask"].is_number());
}

TEST_CASE("verify reports a truncated file as a size mismatch - quick and deep", "[corpus][corrupt][ops]") {
  // A truncated upload: the file is there but shorter than its handle declares.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  std::string dir = copy_snapshot(scratch, kNative);
  ReferencedFile f = sst_file(dir, 1);
  fs::resize_file(*f.path, f.actual_size / 2);
  require_only(verify(dir, false), ProblemKind::kSizeMismatch, f.uri);
  require_only(verify(dir, true), ProblemKind::kSizeMismatch, f.uri);
  cli_json(dir, true, 1);
}

TEST_CASE("verify finds a byte flipped inside an SST data block only when deep - by checksum", "[corpus][corrupt][ops]") {
  // The size is right, so the quick checks pass; RocksDB's block checksum catches the flip.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  std::string dir = copy_snapshot(scratch, kNative);
  ReferencedFile f = sst_file(dir, 2);
  {
    // The first data block starts at offset 0 of a block-based table.
    std::fstream io(*f.path, std::ios::in | std::ios::out | std::ios::binary);
    io.seekg(12);
    char c = 0;
    io.read(&c, 1);
    io.seekp(12);
    c = static_cast<char>(c ^ 0x40);
    io.write(&c, 1);
  }
  CHECK(verify(dir, false).clean());
  cli_json(dir, false, 0);
  require_only(verify(dir, true), ProblemKind::kChecksumMismatch, f.uri);
  nlohmann::json j = cli_json(dir, true, 1);
  CHECK(j["problems"][0]["kind"] == "checksum-mismatch");
}

TEST_CASE("verify reports two swapped files as size mismatches of both", "[corpus][corrupt][ops]") {
  // Two files of different sizes trade places (a wrong copy, the wrong bucket): each no
  // longer has the size its handle declares.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  std::string dir = copy_snapshot(scratch, kNative);
  std::vector<ReferencedFile> files = files_of(dir);
  const ReferencedFile* a = nullptr;
  const ReferencedFile* b = nullptr;
  for (const ReferencedFile& f : files) {
    if (!f.exists) continue;
    if (!a) a = &f;
    else if (f.actual_size != a->actual_size) {
      b = &f;
      break;
    }
  }
  REQUIRE(b);
  fs::rename(*a->path, scratch / "swap");
  fs::rename(*b->path, *a->path);
  fs::rename(scratch / "swap", *b->path);
  for (bool deep : {false, true}) {
    VerifyReport r = verify(dir, deep);
    std::set<std::string> named;
    for (const VerifyProblem& p : r.problems) {
      INFO(format_problem(p));
      CHECK(p.kind == ProblemKind::kSizeMismatch);
      named.insert(p.error.file);
    }
    CHECK(named == std::set<std::string>{a->uri, b->uri});
  }
  cli_json(dir, false, 1);
}

TEST_CASE("verify reports a key-group offset beyond its file", "[corpus][corrupt][ops]") {
  // _metadata rewritten by the codec with one key-group offset past the end of its stream:
  // reported by the quick checks, and not a second time by the deep ones.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  std::string dir = copy_snapshot(scratch, kHeap);
  Result<Metadata> m = read_metadata_file(dir + "/_metadata");
  REQUIRE(m.ok());
  std::string op_hex;
  int32_t subtask = -1;
  std::string uri;
  for (OperatorState& op : m->operators) {
    for (SubtaskState& st : op.subtasks) {
      KeyedHandle& h = st.managed_keyed;
      if (h.is_null() || h.offsets.empty() || !h.delegate.is_file()) continue;
      h.offsets.back() = h.delegate.size + 100;
      op_hex = operator_id_hex(op.id);
      subtask = st.index;
      uri = h.delegate.path;
      break;
    }
    if (subtask >= 0) break;
  }
  REQUIRE(subtask >= 0);
  Result<std::string> bytes = encode_metadata(*m);
  REQUIRE(bytes.ok());
  test::write_file(dir + "/_metadata", *bytes);
  for (bool deep : {false, true}) {
    VerifyReport r = verify(dir, deep);
    REQUIRE(r.problems.size() == 1);
    const VerifyProblem& p = r.problems[0];
    INFO(format_problem(p));
    CHECK(p.kind == ProblemKind::kOffsetOutsideFile);
    CHECK(p.operator_id == op_hex);
    CHECK(p.subtask == subtask);
    CHECK(p.error.file == uri);
  }
  test::CliResult text = test::run_cli({"verify", dir});
  CHECK(text.status == 1);
  CHECK(text.out.find("operator " + op_hex + ", subtask " + std::to_string(subtask)) != std::string::npos);
  CHECK(text.out.find("offset-outside-file") != std::string::npos);
  CHECK(text.out.find(uri) != std::string::npos);
}

TEST_CASE("verify reports overlapping and missing key-group ranges", "[corpus][corrupt][ops]") {
  // Two subtasks claiming the same key groups, then one claiming none of its own.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  std::string dir = copy_snapshot(scratch, kHeap);
  Result<Metadata> original = read_metadata_file(dir + "/_metadata");
  REQUIRE(original.ok());
  OperatorState* keyed = nullptr;
  Metadata m = *original;
  for (OperatorState& op : m.operators) {
    size_t with_state = 0;
    for (const SubtaskState& st : op.subtasks) with_state += !st.managed_keyed.is_null();
    if (with_state >= 2) {
      keyed = &op;
      break;
    }
  }
  REQUIRE(keyed);
  KeyedHandle* first = nullptr;
  for (SubtaskState& st : keyed->subtasks)
    if (!st.managed_keyed.is_null()) {
      if (!first) first = &st.managed_keyed;
      else {
        // Claim the first handle's range too (offsets kept consistent with the count).
        st.managed_keyed.range = first->range;
        st.managed_keyed.offsets = first->offsets;
        break;
      }
    }
  REQUIRE(encode_metadata(m).ok());
  test::write_file(dir + "/_metadata", *encode_metadata(m));
  VerifyReport r = verify(dir, false);
  std::set<ProblemKind> kinds;
  for (const VerifyProblem& p : r.problems) kinds.insert(p.kind);
  CHECK(kinds.count(ProblemKind::kKeyGroupOverlap) == 1);
  CHECK(kinds.count(ProblemKind::kKeyGroupGap) == 1);
  CHECK(verify(test::corpus_dir() + "/" + kHeap, false).clean());
}
