// ckpt compact on a chain grown from a real RocksDB checkpoint: every entry rewritten several
// times in SSTs of its own, as later incremental checkpoints leave them; compaction folds them
// back into one SST per column family with the same entries.
#include <catch2/catch.hpp>

#include <string>

#include "ckpt/compact.h"
#include "testlib/dump_lines.h"
#include "testlib/grown_snapshot.h"
#include "testlib/test_support.h"

using namespace ckpt;

using ckpt::test::dump_lines;

TEST_CASE("compact folds rewritten entries of a grown chain into fewer SSTs - entries unchanged", "[corpus][ops]") {
  // Operator state values are unaffected; keyed entries (values of Long serializers) are
  // overwritten with themselves, so the logical content stays that of the original checkpoint.
  CKPT_REQUIRE_SHARED();
  std::string input = ckpt::test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.16-rocksdb-checkpoint";
  ckpt::test::ScratchDir scratch;
  ckpt::test::GrownSnapshot grown = ckpt::test::grow_snapshot(input, scratch.path(), 3, false);
  const std::string& chk = grown.dir;
  const size_t grown_ssts = grown.ssts;

  // The grown chain's SSTs of one column family overlap, so the dump layer reads it through
  // the RocksDB instance; it must show the original's entries, each once.
  std::vector<std::string> original = dump_lines(input);
  CHECK(dump_lines(chk) == original);
  auto r = compact_snapshot(chk, scratch / "compacted", CompactOptions{});
  REQUIRE(r.ok());
  CHECK(r->sst_files_before == grown_ssts);
  CHECK(r->sst_files_after < r->sst_files_before);
  CHECK(r->files_after < r->files_before);
  CHECK(r->bytes_after < r->bytes_before);
  CHECK(dump_lines(scratch / "compacted") == original);
}
