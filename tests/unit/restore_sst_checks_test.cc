// restore's checks of a native snapshot's SSTs (issue 33): by default each SST is opened (footer,
// properties, first and last keys) and linked or copied unread, so a restore costs a few reads
// per file; --full-check checksums every block first.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ckpt/generate.h"
#include "ckpt/restore.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

// A RocksDB native savepoint of one subtask whose value state's SST holds many data blocks.
std::string many_block_snapshot(const test::ScratchDir& scratch) {
  GenerateOptions o;
  o.output = scratch / "sp";
  o.backend = GenerateBackend::kRocksDb;
  o.parallelism = 1;
  o.max_parallelism = 8;
  o.keys = 3000;
  o.value_size = 64;
  o.states = {"value"};
  Result<GenerateSummary> s = generate_snapshot(o);
  INFO((s.ok() ? "" : s.error().to_string()));
  REQUIRE(s.ok());
  return o.output;
}

// The largest SST under `dir`.
std::string largest_sst(const std::string& dir) {
  std::string best;
  uintmax_t best_size = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".sst" && e.file_size() > best_size) {
      best = e.path().string();
      best_size = e.file_size();
    }
  REQUIRE_FALSE(best.empty());
  return best;
}

}  // namespace

TEST_CASE("restore links SSTs unread by default and checksums them only with full_check", "[ops]") {
  test::ScratchDir scratch;
  const std::string snapshot = many_block_snapshot(scratch);
  const std::string sst = largest_sst(snapshot);
  std::string bytes = test::read_file(sst);
  REQUIRE(bytes.size() > 64 * 1024);  // dozens of 4 KiB data blocks before index and properties
  // A value byte in a data block in the middle: neither the first nor the last block, which
  // opening the table and reading its first and last keys read.
  bytes[bytes.size() / 3] ^= 0x40;
  test::write_file(sst, bytes);

  RestoreOptions o;
  o.link = true;
  o.output = scratch / "linked";
  Result<RestoreReport> linked = restore_snapshot(snapshot, o);
  INFO((linked.ok() ? "" : linked.error().to_string()));
  REQUIRE(linked.ok());
  REQUIRE(linked->instances.size() == 1);
  CHECK(linked->instances[0].linked_files >= 1);
  CHECK(linked->instances[0].entries == 3000);  // from the table properties

  o.output = scratch / "checked";
  o.full_check = true;
  Result<RestoreReport> checked = restore_snapshot(snapshot, o);
  REQUIRE_FALSE(checked.ok());
  INFO(checked.error().to_string());
  CHECK(checked.error().message.find("checksum") != std::string::npos);
  // The SST as `_metadata` names it, relative to the snapshot.
  CHECK_FALSE(checked.error().file.empty());
  CHECK(sst.ends_with("/" + checked.error().file));
  CHECK(checked.error().offset.has_value());
  CHECK_FALSE(fs::exists(o.output));
}
