// The properties trailer of every real V4 `_metadata`: decoded as the reference decoder reads
// it, and written back byte for byte.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "format/java/java_serialization.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

// The start of the trailer. Searching is safe here only because the test checks the result
// against an independent decoding; the library finds the trailer by parsing.
const std::string kTrailerStart =
    std::string("\xac\xed\x00\x05\x73\x72\x00\x38", 8) + "org.apache.flink.runtime.checkpoint.CheckpointProperties";

}  // namespace

TEST_CASE("every V4 corpus trailer decodes as the reference decoder says and re-encodes exactly", "[corpus][format]") {
  // Proves decode agrees with flink-expected/*.metadata.json on every field and that
  // encode(decode(t)) == t for each distinct trailer Flink wrote (checkpoint, canonical and
  // native savepoints, forced or not).
  CKPT_REQUIRE_SHARED();
  std::set<std::string> distinct;
  std::set<std::string> kinds;
  int v4_files = 0;
  for (const std::string& dir : test::corpus_snapshots()) {
    std::string bytes = test::read_file(dir + "/_metadata");
    REQUIRE(bytes.size() >= 8);
    std::string name = std::filesystem::path(dir).filename().string();
    nlohmann::json expected = nlohmann::json::parse(test::read_file(test::expected_dir() + "/" + name + ".metadata.json"));
    INFO(name);
    if (expected["version"].get<int>() < 4) {
      CHECK(expected["properties"].is_null());
      continue;
    }
    ++v4_files;
    size_t at = bytes.rfind(kTrailerStart);
    REQUIRE(at != std::string::npos);
    std::string trailer = bytes.substr(at);
    auto p = decode_checkpoint_properties(trailer, at);
    REQUIRE(p.ok());
    const nlohmann::json& e = expected["properties"];
    const nlohmann::json& t = e["checkpointType"];
    CHECK(p->present);
    CHECK(p->forced == e["forced"].get<bool>());
    CHECK(p->discard_subsumed == e["discardSubsumed"].get<bool>());
    CHECK(p->discard_finished == e["discardFinished"].get<bool>());
    CHECK(p->discard_cancelled == e["discardCancelled"].get<bool>());
    CHECK(p->discard_failed == e["discardFailed"].get<bool>());
    CHECK(p->discard_suspended == e["discardSuspended"].get<bool>());
    CHECK(p->unclaimed == e["unclaimed"].get<bool>());
    CHECK(p->type_class == t["class"].get<std::string>());
    CHECK(p->type_name == t["name"].get<std::string>());
    CHECK(p->sharing_files_strategy == t.value("sharingFilesStrategy", ""));
    CHECK(p->format_type == t.value("formatType", ""));
    CHECK(p->post_checkpoint_action == t.value("postCheckpointAction", ""));
    CHECK(encode_checkpoint_properties(*p) == trailer);
    distinct.insert(trailer);
    kinds.insert(p->type_class + "/" + p->format_type + "/" + (p->forced ? "forced" : "unforced"));
  }
  CHECK(v4_files == 66);
  CHECK(distinct.size() == 5);
  CHECK(kinds.size() == 5);
}

TEST_CASE("a corpus trailer cut or extended anywhere is rejected at an offset inside the file", "[corpus][corrupt][format]") {
  // Proves that on real bytes every truncation fails cleanly, with the absolute offset of the
  // problem no later than the cut, and that an extra byte after the trailer is reported.
  CKPT_REQUIRE_SHARED();
  std::string bytes = test::read_file(test::corpus_dir() +
                                      "/new-stateful-udf-migration-itcase-flink1.18-rocksdb-savepoint-native/_metadata");
  size_t at = bytes.rfind(kTrailerStart);
  REQUIRE(at != std::string::npos);
  std::string_view trailer = std::string_view(bytes).substr(at);
  for (size_t n = 0; n < trailer.size(); ++n) {
    auto p = decode_checkpoint_properties(trailer.substr(0, n), at);
    REQUIRE_FALSE(p.ok());
    REQUIRE(p.error().offset.has_value());
    CHECK(*p.error().offset <= at + n);
  }
  auto extended = decode_checkpoint_properties(std::string(trailer) + '\0', at);
  REQUIRE_FALSE(extended.ok());
  CHECK(*extended.error().offset == bytes.size());
}
