// testdata/sample-savepoint: reproducible from its generator, and what inspect says about it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "ckpt/metadata.h"
#include "support/byte_reader.h"
#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/sample_savepoint.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::sample_savepoint_dir;

TEST_CASE("regenerating the sample savepoint gives the committed bytes", "[cli]") {
  // The files in testdata/ are exactly what the generator writes today, no more, no less.
  ckpt::test::ScratchDir scratch;
  REQUIRE(ckpt::test::write_sample_savepoint(scratch.path()).ok());
  std::set<std::string> committed, fresh;
  for (const auto& e : fs::directory_iterator(sample_savepoint_dir())) committed.insert(e.path().filename().string());
  for (const auto& e : fs::directory_iterator(scratch.path())) fresh.insert(e.path().filename().string());
  CHECK(committed == fresh);
  for (const auto& name : fresh) {
    INFO(name);
    CHECK(ckpt::test::read_file(sample_savepoint_dir() + "/" + name) == ckpt::test::read_file(scratch / name));
  }
}

TEST_CASE("the sample savepoint is a native savepoint with a keyed operator and a source", "[cli]") {
  // Read back through the CLI and the decoder: kinds, ranges, and the heap key-group layout.
  auto r = ckpt::test::run_cli({"inspect", "--json", sample_savepoint_dir()});
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["metadata_version"] == 4);
  CHECK(j["kind"] == "savepoint-native");
  REQUIRE(j["operators"].size() == 2);
  CHECK(j["operators"][0]["kinds"] == nlohmann::json::array({"operator-list"}));
  CHECK(j["operators"][1]["kinds"] == nlohmann::json::array({"keyed-full"}));
  CHECK(j["operators"][1]["parallelism"] == 2);
  CHECK(j["operators"][1]["subtasks"][1]["handles"][0]["key_group_range"] == nlohmann::json::array({64, 127}));
  CHECK(j["file_count"] == 3);
  CHECK(j["missing_file_count"] == 0);

  // Every key group offset points at that key group's number, as the heap layout has it, and
  // the entries add up to the sample's keys.
  auto m = ckpt::decode_metadata(ckpt::test::read_file(sample_savepoint_dir() + "/_metadata"));
  REQUIRE(m.ok());
  size_t entries = 0;
  for (const auto& st : m->operators[1].subtasks) {
    std::string bytes = ckpt::test::read_file(sample_savepoint_dir() + "/" + st.managed_keyed.delegate.path);
    for (int32_t i = 0; i < st.managed_keyed.range.count; ++i) {
      ckpt::ByteReader in(bytes);
      in.seek(static_cast<size_t>(st.managed_keyed.offsets[i]));
      CHECK(in.i32() == st.managed_keyed.range.first + i);
      CHECK(in.i16() == 0);
      int32_t n = in.i32();
      for (int32_t e = 0; e < n; ++e) {
        CHECK(in.u8() == 0);
        int64_t key = in.i64();
        CHECK(in.i64() == ckpt::test::sample_counts().at(key));
        ++entries;
      }
      REQUIRE(in.ok());
    }
  }
  CHECK(entries == ckpt::test::sample_counts().size());
}

TEST_CASE("a run on local files does not load libcurl", "[cli]") {
  // libcurl and what it pulls in (TLS, Kerberos, LDAP) were most of a short run's start-up: it
  // is loaded on the first object-store request only (s3/curl_library.cc). The loader's own log
  // names every library it maps; tests/cli/s3_cli_test.cc shows when a store's requests load it.
  auto traced = ckpt::test::run_shell("LD_DEBUG=files '" + ckpt::test::build_dir() + "/tools/ckpt' inspect '" +
                                      sample_savepoint_dir() + "' 2>&1 >/dev/null");
  REQUIRE(traced.status == 0);
  INFO(traced.out);
  CHECK(traced.out.find("librocksdb") != std::string::npos);  // the log is there
  CHECK(traced.out.find("libcurl") == std::string::npos);
}
