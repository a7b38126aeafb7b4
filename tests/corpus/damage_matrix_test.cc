// The damage matrix (issue 11): every file of a snapshot of each layout truncated, flipped or
// zeroed, then every command that reads it run on the damaged copy. The invariant: a command
// either exits 2 naming a file (and an offset, unless the file is missing), or exits 0/1; and
// a command that writes a snapshot exits 0 only when `verify --deep` accepts its input, with an
// output that `verify --deep` accepts too. dump, query and diff exit 0 only on input verify accepts;
// inspect --count may warn about what it cannot read and exit 0.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "ckpt/verify.h"
#include "ckpt/walk.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

enum class Damage { kHalf, kLastByte, kFlipFirst, kFlipMiddle, kFlipLast, kZeroRegion };

const char* damage_name(Damage d) {
  switch (d) {
    case Damage::kHalf: return "truncated to half";
    case Damage::kLastByte: return "truncated by one byte";
    case Damage::kFlipFirst: return "first byte flipped";
    case Damage::kFlipMiddle: return "middle byte flipped";
    case Damage::kFlipLast: return "last byte flipped";
    case Damage::kZeroRegion: return "region zeroed";
  }
  return "";
}

void flip_byte(std::string& bytes, size_t at) { bytes[at] = static_cast<char>(bytes[at] ^ 0x5a); }

// `bytes` damaged; false if the damage does not apply (an empty file).
bool apply_damage(std::string& bytes, Damage d) {
  const size_t n = bytes.size();
  if (n == 0) return false;
  switch (d) {
    case Damage::kHalf: bytes.resize(n / 2); break;
    case Damage::kLastByte: bytes.resize(n - 1); break;
    case Damage::kFlipFirst: flip_byte(bytes, 0); break;
    case Damage::kFlipMiddle: flip_byte(bytes, n / 2); break;
    case Damage::kFlipLast: flip_byte(bytes, n - 1); break;
    case Damage::kZeroRegion: {
      size_t from = n / 4, len = std::max<size_t>(1, std::min<size_t>(64, n / 4));
      bool changed = false;
      for (size_t i = from; i < std::min(n, from + len); ++i) {
        changed = changed || bytes[i] != 0;
        bytes[i] = 0;
      }
      return changed;
    }
  }
  return true;
}

struct LocalFile {
  std::string path;
  std::string kind;  // "_metadata", or the slot, role and RocksDB name kind of its first reference
  bool sst = false;  // by its RocksDB name: shared files of checkpoints are stored under UUIDs
};

std::string rocks_name_kind(const std::string& name) {
  if (name.empty()) return "";
  if (name.ends_with(".sst")) return "sst";
  return name.substr(0, name.find('-'));  // MANIFEST, OPTIONS, CURRENT
}

// The local files of a snapshot: `_metadata`, then every referenced file found (each once).
std::vector<LocalFile> snapshot_files(const std::string& dir) {
  Result<SnapshotLocation> where = locate_snapshot(dir);
  REQUIRE(where.ok());
  Result<Metadata> m = read_metadata_file(where->metadata_path);
  REQUIRE(m.ok());
  std::vector<LocalFile> out = {{where->metadata_path, "_metadata", false}};
  Result<std::vector<ReferencedFile>> files = resolve_files(*m, *where, {});
  REQUIRE(files.ok());
  for (const ReferencedFile& f : *files) {
    if (!f.exists || !f.path || f.references.empty()) continue;
    const FileReference& r = f.references.front();
    std::string kind = std::string(handle_slot_name(r.slot)) + " " + stream_role_name(r.role) + " " +
                       rocks_name_kind(r.local_name);
    out.push_back({*f.path, kind, kind.ends_with(" sst")});
  }
  return out;
}

// Every file (`per_kind` 0), or the first `per_kind` files of each kind.
std::vector<LocalFile> sampled(const std::vector<LocalFile>& files, size_t per_kind) {
  if (per_kind == 0) return files;
  std::vector<LocalFile> out;
  std::map<std::string, size_t> taken;
  for (const LocalFile& f : files)
    if (taken[f.kind]++ < per_kind) out.push_back(f);
  return out;
}

bool has_native_handles(const std::string& dir) {
  Result<Metadata> m = read_metadata_file(locate_snapshot(dir)->metadata_path);
  REQUIRE(m.ok());
  for (const OperatorState& op : m->operators)
    for (const SubtaskState& st : op.subtasks)
      if (st.managed_keyed.type == handle_type::kIncremental || st.managed_keyed.type == handle_type::kIncrementalV1)
        return true;
  return false;
}

// verify --deep through the library: accepted, or rejected (a problem, or no decodable `_metadata`).
bool verify_accepts(const std::string& dir) {
  VerifyOptions o;
  o.deep = true;
  Result<VerifyReport> r = verify_snapshot(dir, o);
  return r.ok() && r->clean();
}

// An exit-2 message names a file ('...': ...) and, unless the file is missing, an offset.
void require_located(const test::CliResult& r) {
  INFO(r.err);
  CHECK(r.err.find("ckpt: error: '") != std::string::npos);
  bool missing = r.err.find("not found") != std::string::npos;
  CHECK((missing || r.err.find(" at offset 0x") != std::string::npos));
}

struct Matrix {
  const test::ScratchDir& scratch;
  std::string original;  // an undamaged copy, for diff
  bool compact = false;
  size_t runs = 0;
  size_t rejected = 0;  // damaged inputs verify rejected

  // One command that writes OUT: exit 2 leaves nothing at OUT; exit 0 only on accepted input,
  // with an output verify --deep accepts.
  void writer(std::vector<std::string> args, const std::string& out, bool accepted) {
    fs::remove_all(out);
    args.push_back("--output");
    args.push_back(out);
    test::CliResult r = test::run_cli(args);
    ++runs;
    INFO(args[0] << " " << (args.size() > 2 ? args[2] : "") << " exit " << r.status << ": " << r.err);
    REQUIRE((r.status == 0 || r.status == 2));
    if (r.status == 2) {
      require_located(r);
      CHECK_FALSE(fs::exists(out));
      return;
    }
    CHECK(accepted);
    if (args[0] != "restore") {
      VerifyOptions o;
      o.deep = true;
      Result<VerifyReport> v = verify_snapshot(out, o);
      REQUIRE(v.ok());
      std::string problems;
      for (const VerifyProblem& p : v->problems) problems += format_problem(p) + "\n";
      INFO(problems);
      CHECK(v->clean());
    }
    fs::remove_all(out);
  }

  // A command that only reads: exit 2 names a file; with `strict`, exit 0 only on accepted
  // input (inspect reports what it could not read as warnings, by design).
  void reader(const std::vector<std::string>& args, bool accepted, bool strict = true) {
    test::CliResult r = test::run_cli(args);
    ++runs;
    INFO(args[0] << " exit " << r.status << ": " << r.err);
    REQUIRE((r.status == 0 || r.status == 1 || r.status == 2));
    if (r.status == 2) require_located(r);
    if (r.status == 0 && strict) CHECK(accepted);
  }

  void run_all(const std::string& dir) {
    bool accepted = verify_accepts(dir);
    if (!accepted) ++rejected;
    // Parts verify could not read are not damage: this matrix judges what it finds.
    test::CliResult v = test::run_cli({"verify", dir, "--deep", "--allow-unread"});
    ++runs;
    INFO("verify --deep exit " << v.status << ": " << v.out << v.err);
    CHECK(v.status == (accepted ? 0 : v.status == 2 ? 2 : 1));
    if (v.status == 2) require_located(v);
    reader({"dump", dir}, accepted);
    // A query reads entries as dump does: no clean answer from what dump refuses.
    reader({"query", dir, "SELECT count(*) FROM entries"}, accepted);
    reader({"inspect", dir, "--count"}, accepted, false);
    reader({"diff", original, dir, "--keys"}, accepted);
    const std::string out = scratch / "out";
    for (const char* to : {"heap", "rocksdb", "canonical"}) writer({"convert", dir, "--to", to}, out, accepted);
    if (compact) writer({"compact", dir}, out, accepted);
    // Damage inside an SST's blocks is found by restore's checksums, read with --full-check.
    writer({"restore", dir, "--full-check"}, out, accepted);
  }
};

// Every damage of every sampled file of the snapshot at `dir` (restored after each);
// `original` is an undamaged equal of it.
void run_matrix(const test::ScratchDir& scratch, const std::string& dir, const std::string& original,
                size_t per_kind) {
  Matrix mx{scratch, original, has_native_handles(dir)};
  // The undamaged snapshot passes every command.
  REQUIRE(verify_accepts(dir));
  mx.run_all(dir);
  const std::vector<Damage> all = {Damage::kHalf,       Damage::kLastByte, Damage::kFlipFirst,
                                   Damage::kFlipMiddle, Damage::kFlipLast, Damage::kZeroRegion};
  const std::vector<Damage> sst = {Damage::kFlipMiddle, Damage::kZeroRegion};
  for (const LocalFile& file : sampled(snapshot_files(dir), per_kind)) {
    const std::string good = test::read_file(file.path);
    for (Damage d : file.sst ? sst : all) {
      std::string bad = good;
      if (!apply_damage(bad, d)) continue;
      test::write_file(file.path, bad);
      INFO("file " << file.path << ", " << damage_name(d));
      mx.run_all(dir);
      test::write_file(file.path, good);
    }
  }
  INFO(mx.runs << " runs");
  CHECK(mx.rejected > 0);
}

std::string generated_at(const std::string& output, GenerateBackend backend, int32_t chain = 0) {
  GenerateOptions o;
  o.output = output;
  o.backend = backend;
  o.parallelism = 2;
  o.max_parallelism = 16;
  o.keys = 40;
  o.value_size = 16;
  o.states = {"value", "list", "map"};
  o.chain = chain;
  REQUIRE(generate_snapshot(o).ok());
  return chain ? o.output + "/chk-" + std::to_string(chain) : o.output;
}

// Generated twice: a chain's handles are absolute, so a copy would share the damaged files.
void generated_matrix(GenerateBackend backend, int32_t chain) {
  test::ScratchDir scratch(test::memory_temp_dir());
  std::string dir = generated_at(scratch / "damaged", backend, chain);
  run_matrix(scratch, dir, generated_at(scratch / "original", backend, chain), 0);
}

// Flink's snapshots: the first file of each kind (the checkpoints hold dozens alike).
void corpus_matrix(const char* name) {
  test::ScratchDir scratch(test::memory_temp_dir());
  std::string dir = scratch / "damaged", original = scratch / "original";
  fs::copy(test::corpus_dir() + "/" + name, dir, fs::copy_options::recursive);
  fs::copy(dir, original, fs::copy_options::recursive);
  run_matrix(scratch, dir, original, 1);
}

}  // namespace

TEST_CASE("damage matrix - generated heap savepoint", "[damage][cli]") { generated_matrix(GenerateBackend::kHeap, 0); }

TEST_CASE("damage matrix - generated rocksdb native savepoint", "[damage][cli]") {
  generated_matrix(GenerateBackend::kRocksDb, 0);
}

TEST_CASE("damage matrix - generated incremental rocksdb checkpoint", "[damage][cli]") {
  generated_matrix(GenerateBackend::kRocksDb, 2);
}

TEST_CASE("damage matrix - generated canonical savepoint", "[damage][cli]") {
  generated_matrix(GenerateBackend::kCanonical, 0);
}

TEST_CASE("damage matrix - Flink heap checkpoint", "[damage][corpus][cli]") {
  CKPT_REQUIRE_SHARED();
  corpus_matrix("new-stateful-udf-migration-itcase-flink1.20-hashmap-checkpoint");
}

TEST_CASE("damage matrix - Flink incremental rocksdb checkpoint", "[damage][corpus][cli]") {
  CKPT_REQUIRE_SHARED();
  corpus_matrix("new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint");
}

TEST_CASE("damage matrix - Flink canonical savepoint", "[damage][corpus][cli]") {
  CKPT_REQUIRE_SHARED();
  corpus_matrix("new-stateful-udf-migration-itcase-flink1.20-rocksdb-savepoint");
}

TEST_CASE("damage matrix - Flink broadcast operator state savepoint", "[damage][corpus][cli]") {
  CKPT_REQUIRE_SHARED();
  corpus_matrix("new-stateful-broadcast-udf-migration-itcase-flink1.20-hashmap-savepoint-native");
}
