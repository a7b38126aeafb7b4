// A Flink 2.0 `_metadata` (V5: each operator record led by its name and uid) over real state:
// the sample savepoint's V4 file written again as V5 must inspect with the names and dump the
// same entries, as a 2.x savepoint of the same state would (formats/metadata.md §2, §5). The V5
// bytes themselves are pinned by the hand-built file of metadata_handbuilt_test.cc.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ckpt/inspect.h"
#include "ckpt/metadata.h"
#include "testlib/edit_checks.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

TEST_CASE("the sample savepoint under a V5 metadata file inspects with its operator names and dumps as under V4",
          "[unit][format]") {
  const std::string sample = test::sample_savepoint_dir();
  test::ScratchDir tmp;
  const fs::path v5 = tmp / "v5";
  fs::copy(sample, v5, fs::copy_options::recursive);
  auto m = decode_metadata(test::read_file(sample + "/_metadata"));
  REQUIRE(m.ok());
  REQUIRE(m->version == 4);
  REQUIRE(m->properties.present);  // V5 keeps V4's properties trailer
  m->version = 5;
  int n = 0;
  for (OperatorState& op : m->operators) op.name = "operator-" + std::to_string(n++);
  auto bytes = encode_metadata(*m);
  REQUIRE(bytes.ok());
  test::write_file((v5 / "_metadata").string(), *bytes);

  auto back = decode_metadata(*bytes);
  REQUIRE(back.ok());
  CHECK(back->version == 5);
  CHECK(back->operators.front().name == "operator-0");
  CHECK(back->operators.front().uid.empty());  // "" stored: absent, as Flink 2.0 writes it

  auto report = inspect_snapshot(v5.string(), InspectOptions{});
  REQUIRE(report.ok());
  CHECK(report->metadata_version == 5);
  REQUIRE_FALSE(report->operators.empty());
  CHECK(report->operators.front().name == "operator-0");
  CHECK(report->missing_files == 0);
  CHECK(test::dump_set(v5.string()) == test::dump_set(sample));
}
