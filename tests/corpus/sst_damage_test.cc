// Damage that RocksDB would pass on (issue 27): a byte flipped in a table's first data block
// that a scan through the instance skipped silently, one in its properties block that made
// RocksDB abort, and a byte of a canonical stream that the writers copied without decoding.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

void flip_sst_byte(const std::string& path, uint64_t at, uint8_t mask) {
  std::string bytes = test::read_file(path);
  REQUIRE(at < bytes.size());
  bytes[at] = static_cast<char>(bytes[at] ^ mask);
  test::write_file(path, bytes);
}

// The local paths of the SSTs `dir`'s `_metadata` references, in reference order.
std::vector<std::string> sst_paths(const std::string& dir) {
  Result<SnapshotLocation> where = locate_snapshot(dir);
  REQUIRE(where.ok());
  Result<Metadata> m = read_metadata_file(where->metadata_path);
  REQUIRE(m.ok());
  std::vector<std::string> out;
  Result<std::vector<ReferencedFile>> files = resolve_files(*m, *where, {});
  REQUIRE(files.ok());
  for (const ReferencedFile& f : *files)
    for (const FileReference& r : f.references)
      if (f.exists && f.path && r.local_name.ends_with(".sst")) {
        out.push_back(*f.path);
        break;
      }
  return out;
}

// exit 2, naming `path` and an offset inside it.
void require_refused(const test::CliResult& r, const std::string& path) {
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(fs::path(path).filename().string() + "'") != std::string::npos);
  std::smatch m;
  REQUIRE(std::regex_search(r.err, m, std::regex(" at offset 0x([0-9a-f]+)")));
  CHECK(std::stoull(m[1].str(), nullptr, 16) < fs::file_size(path));
}

}  // namespace

TEST_CASE("sst damage - a flipped properties byte is an error with file and offset - not an abort",
          "[corpus][corrupt][cli]") {
  // len-96 of Flink 1.20's small SSTs is the last byte of the properties block's restart count:
  // its top bit announces a hash index, which librocksdb 7.8 asserts on before any checksum.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  const std::string dir = scratch / "ckpt";
  fs::copy(test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint", dir,
           fs::copy_options::recursive);
  const std::vector<std::string> ssts = sst_paths(dir);
  REQUIRE_FALSE(ssts.empty());
  const std::string sst = ssts.front();
  flip_sst_byte(sst, fs::file_size(sst) - 96, 0x80);
  for (const char* verb : {"dump", "inspect"}) {
    std::vector<std::string> args = {verb, dir};
    if (std::string(verb) == "inspect") args.push_back("--count");
    test::CliResult r = test::run_cli_process(args);
    INFO(verb << ": " << r.err);
    CHECK(r.status <= 2);  // no signal
  }
  test::CliResult dump = test::run_cli_process({"dump", dir});
  require_refused(dump, sst);
  CHECK(dump.err.find("properties block") != std::string::npos);
  test::CliResult verify = test::run_cli_process({"verify", dir, "--deep"});
  INFO(verify.out << verify.err);
  CHECK(verify.status == 1);
  CHECK(verify.out.find("checksum-mismatch: sst properties block") != std::string::npos);
}

TEST_CASE("sst damage - a flipped first data block of a shared sst stops dump and edit", "[corrupt][cli]") {
  // The state's other SSTs made it read through the instance, whose scan ended early at the
  // bad block with no error: dump printed fewer entries and edit wrote them, both exiting 0.
  test::ScratchDir scratch;
  GenerateOptions o;
  o.output = scratch / "job";
  o.chain = 2;
  o.parallelism = 1;
  o.max_parallelism = 8;
  o.keys = 400;
  o.value_size = 48;  // tables of two data blocks: a damaged last one also failed the first scan
  o.fragment_ssts = true;
  REQUIRE(generate_snapshot(o).ok());
  const std::string chk = o.output + "/chk-2";
  const std::vector<std::string> ssts = sst_paths(chk);
  REQUIRE(ssts.size() >= 4);
  for (const std::string& sst : ssts) {
    if (sst.find("/shared/") == std::string::npos) continue;
    INFO(sst);
    const std::string good = test::read_file(sst);
    flip_sst_byte(sst, 12, 0x40);  // a key byte of the first entry: the first data block starts the table
    require_refused(test::run_cli({"dump", chk}), sst);
    const std::string out = scratch / "out";
    test::CliResult edit = test::run_cli({"edit", chk, "--max-parallelism", "16", "--output", out});
    require_refused(edit, sst);
    CHECK_FALSE(fs::exists(out));
    // -j 2: one thread reads while the other writes the output's lanes of SSTs.
    edit = test::run_cli({"edit", chk, "--max-parallelism", "16", "--output", out, "-j", "2"});
    require_refused(edit, sst);
    CHECK_FALSE(fs::exists(out));
    test::write_file(sst, good);
  }
}

TEST_CASE("sst damage - writers refuse a canonical stream byte that dump refuses", "[corrupt][cli]") {
  // A canonical stream has no checksum: convert, edit and restore copied keys and values as
  // bytes and exited 0 where dump and verify --deep found them undecodable.
  test::ScratchDir scratch;
  GenerateOptions o;
  o.output = scratch / "sp";
  o.backend = GenerateBackend::kCanonical;
  o.parallelism = 1;
  o.max_parallelism = 16;
  o.keys = 40;
  o.value_size = 16;
  o.states = {"value", "list", "map"};
  REQUIRE(generate_snapshot(o).ok());
  std::string state;
  for (const auto& e : fs::directory_iterator(o.output))
    if (e.path().filename() != "_metadata") state = e.path().string();
  REQUIRE_FALSE(state.empty());
  const std::string good = test::read_file(state);
  const std::string out = scratch / "out";
  int refused = 0;
  for (uint64_t at = 0; at < good.size() && refused < 4; at += 97) {
    flip_sst_byte(state, at, 0x40);
    // Damage, not a serializer ckpt does not know (which verify lists as unchecked and the
    // writers copy as they would any value they cannot decode).
    if (test::run_cli({"dump", o.output}).status == 2 && test::run_cli({"verify", o.output, "--deep"}).status == 1) {
      ++refused;
      INFO("byte " << at << " flipped");
      for (std::vector<std::string> args : {std::vector<std::string>{"convert", o.output, "--to", "rocksdb"},
                                            std::vector<std::string>{"edit", o.output, "--max-parallelism", "32"},
                                            std::vector<std::string>{"restore", o.output}}) {
        args.insert(args.end(), {"--output", out});
        test::CliResult r = test::run_cli(args);
        INFO(args[0] << " exit " << r.status << ": " << r.err);
        CHECK(r.status == 2);
        CHECK_FALSE(fs::exists(out));
        fs::remove_all(out);
      }
    }
    test::write_file(state, good);
  }
  CHECK(refused == 4);
}
