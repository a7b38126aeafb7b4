// The damage sweep (issue 27): every byte of one small SST, of one heap stream and of one
// `_metadata` flipped in turn, each damaged snapshot read by dump, verify --deep, convert and
// edit (in-process; every 64th also by the ckpt binary, where a signal or a hang shows). The
// invariants: no signal, no hang; a writer exits 0 only on input verify --deep accepts, with an
// output verify --deep accepts; dump exits 0 only with the undamaged entries, or, where the
// layout has no checksum, on input verify accepts with as many entries (a flipped byte inside a
// key, a value or a name of a heap stream or `_metadata` is another key, value or name: nothing
// can tell it from one written so). Fixtures are generated small so that the sweep fits in the
// sanitizer job.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "ckpt/verify.h"
#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

bool deep_verify_accepts(const std::string& dir) {
  VerifyOptions o;
  o.deep = true;
  Result<VerifyReport> r = verify_snapshot(dir, o);
  return r.ok() && r->clean();
}

size_t lines_of(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

struct Sweep {
  std::string snapshot;  // the snapshot the damaged file belongs to
  std::string file;      // the file whose bytes are flipped
  bool checksummed = false;  // its layout detects any flipped byte that carries information
  std::string convert_to;    // a layout other than the input's, cheap to write
  std::string out;           // where writers write
  std::string original_dump;
  size_t cases = 0, refused = 0;

  void writer(std::vector<std::string> args, bool accepted) {
    fs::remove_all(out);
    args.insert(args.end(), {"--output", out});
    test::CliResult r = test::run_cli(args);
    INFO(args[0] << " exit " << r.status << ": " << r.err);
    REQUIRE((r.status == 0 || r.status == 2));
    if (r.status == 2) {
      CHECK(r.err.find("ckpt: error: '") != std::string::npos);
      CHECK_FALSE(fs::exists(out));
      return;
    }
    CHECK(accepted);
    CHECK(deep_verify_accepts(out));
  }

  void one(uint64_t at) {
    INFO(file << " byte " << at << " flipped");
    const bool accepted = deep_verify_accepts(snapshot);
    test::CliResult dump = test::run_cli({"dump", snapshot});
    INFO("dump exit " << dump.status << ": " << dump.err);
    REQUIRE(dump.status <= 2);
    if (dump.status == 0 && dump.out != original_dump) {
      CHECK_FALSE(checksummed);
      CHECK(accepted);
      CHECK(lines_of(dump.out) == lines_of(original_dump));
    }
    if (!accepted) ++refused;
    writer({"convert", snapshot, "--to", convert_to}, accepted);
    writer({"edit", snapshot, "--max-parallelism", "16", "--to", convert_to}, accepted);
    if (at % 64 == 0) {
      for (const char* verb : {"dump", "verify"}) {
        std::vector<std::string> args = {verb, snapshot};
        if (std::string(verb) == "verify") args.push_back("--deep");
        test::CliResult r = test::run_cli_process(args, 30);
        INFO(verb << " (binary) exit " << r.status << ": " << r.err);
        CHECK(r.status <= 2);  // 124/137: hung; 128+n: signal n
      }
    }
    ++cases;
  }

  void run() {
    test::CliResult good = test::run_cli_ok({"dump", snapshot});
    original_dump = good.out;
    REQUIRE(deep_verify_accepts(snapshot));
    const std::string bytes = test::read_file(file);
    for (uint64_t at = 0; at < bytes.size(); ++at) {
      std::string bad = bytes;
      bad[at] = static_cast<char>(bad[at] ^ 0x5a);
      test::write_file(file, bad);
      one(at);
    }
    test::write_file(file, bytes);
    INFO(cases << " cases, " << refused << " refused by verify --deep");
    CHECK(cases == bytes.size());
    CHECK(refused > 0);
  }
};

std::string generated(const std::string& dir, GenerateBackend backend) {
  GenerateOptions o;
  o.output = dir;
  o.backend = backend;
  o.parallelism = 1;
  o.max_parallelism = 8;
  o.keys = 3;
  o.value_size = 2;
  REQUIRE(generate_snapshot(o).ok());
  return dir;
}

// The smallest file `_metadata` references whose RocksDB name ends with `suffix` (any file: "").
std::string smallest_file(const std::string& dir, const std::string& suffix) {
  Result<SnapshotLocation> where = locate_snapshot(dir);
  REQUIRE(where.ok());
  Result<Metadata> m = read_metadata_file(where->metadata_path);
  REQUIRE(m.ok());
  std::string best;
  for (const ReferencedFile& f : resolve_files(*m, *where, {})) {
    if (!f.exists || !f.path || f.references.empty() || !f.references.front().local_name.ends_with(suffix)) continue;
    if (best.empty() || fs::file_size(*f.path) < fs::file_size(best)) best = *f.path;
  }
  REQUIRE_FALSE(best.empty());
  return best;
}

}  // namespace

TEST_CASE("damage sweep - every byte of a small sst", "[damage][corrupt][cli]") {
  test::ScratchDir scratch(test::memory_temp_dir());
  Sweep s;
  s.snapshot = generated(scratch / "sp", GenerateBackend::kRocksDb);
  s.file = smallest_file(s.snapshot, ".sst");
  s.checksummed = true;
  s.convert_to = "heap";
  s.out = scratch / "out";
  s.run();
}

TEST_CASE("damage sweep - every byte of a heap stream", "[damage][corrupt][cli]") {
  test::ScratchDir scratch(test::memory_temp_dir());
  Sweep s;
  s.snapshot = generated(scratch / "sp", GenerateBackend::kHeap);
  s.file = smallest_file(s.snapshot, "");
  s.convert_to = "canonical";
  s.out = scratch / "out";
  s.run();
}

TEST_CASE("damage sweep - every byte of a _metadata", "[damage][corrupt][cli]") {
  test::ScratchDir scratch(test::memory_temp_dir());
  Sweep s;
  s.snapshot = generated(scratch / "sp", GenerateBackend::kHeap);
  s.file = s.snapshot + "/_metadata";
  s.convert_to = "canonical";
  s.out = scratch / "out";
  s.run();
}
