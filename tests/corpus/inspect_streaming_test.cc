// inspect_snapshot() summarises operators as the decoder hands them over; inspect_metadata()
// summarises a whole decoded model. Both must give the same report.
#include <catch2/catch.hpp>

#include <sstream>

#include "ckpt/inspect.h"
#include "ckpt/io.h"
#include "ckpt/json.h"
#include "testlib/test_support.h"

using namespace ckpt;

TEST_CASE("inspect of a snapshot as streamed equals inspect of its whole decoded model", "[corpus][ops]") {
  // Proves on all 107 Flink snapshots (every version, handle kind and snapshot kind in the corpus,
  // canonical savepoints before V4 included) that the streaming report, text and JSON with -v,
  // is the model's report byte for byte.
  CKPT_REQUIRE_SHARED();
  auto snapshots = test::corpus_snapshots();
  REQUIRE(snapshots.size() >= 100);
  size_t inferred_canonical = 0;
  for (const std::string& dir : snapshots) {
    INFO(dir);
    InspectOptions options;
    auto streamed = inspect_snapshot(dir, options);
    REQUIRE(streamed.ok());
    auto where = locate_snapshot(dir);
    REQUIRE(where.ok());
    auto m = read_metadata_file(where->metadata_path);
    REQUIRE(m.ok());
    Result<InspectReport> whole_or = inspect_metadata(*m, *where, options);
    REQUIRE(whole_or.ok());
    InspectReport whole = std::move(whole_or).value();
    whole.metadata_size = streamed->metadata_size;
    CHECK(streamed->kind == whole.kind);
    CHECK(streamed->kind_inferred == whole.kind_inferred);
    if (whole.kind_inferred && whole.kind == SnapshotKind::kSavepointCanonical) ++inferred_canonical;
    for (bool verbose : {false, true}) {
      std::ostringstream a, b;
      write_inspect_text(*streamed, verbose, a);
      write_inspect_text(whole, verbose, b);
      CHECK(a.str() == b.str());
      std::string ja, jb;
      JsonWriter wa(ja, kJsonIndent), wb(jb, kJsonIndent);
      write_inspect_json(*streamed, verbose, wa);
      write_inspect_json(whole, verbose, wb);
      CHECK(ja == jb);
    }
  }
  // The corpus holds pre-V4 canonical savepoints, whose kind only their handles tell.
  CHECK(inferred_canonical > 0);
}
