// What goes wrong between ckpt and a bucket is an error that says so: a bit flipped in transit
// (tests/s3/stand_in.py in front of moto flips one in every state file under "flip-bit/") fails
// the command naming the object instead of printing other entries with exit 0, a directory the
// store fails to list is that failure, not files missing from the snapshot, and under --json a
// failure of the store is the ckpt.error/1 object on stdout.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "testlib/cli_run.h"
#include "testlib/s3_fixtures.h"

using namespace ckpt;
using nlohmann::json;

namespace {

// The one error object a failed --json run leaves on stdout.
json error_object(const test::CliResult& r) {
  INFO(r.out << r.err);
  CHECK(r.status == 2);
  json j = json::parse(r.out);  // throws (fails the test) unless stdout is exactly one document
  CHECK(j["schema"] == "ckpt.error/1");
  return j["error"];
}

}  // namespace

TEST_CASE("s3 a bit flipped in transit fails the command naming the object", "[cli][s3][faults]") {
  auto m = test::unchecked_moto();
  REQUIRE(m->create_bucket("ckpt-flip"));
  test::ScratchDir dir;
  test::run_cli_ok(
      {"generate", "--backend", "heap", "--keys", "200", "--states", "value,map", "--output", dir / "snap"});
  REQUIRE(m->upload_tree(dir / "snap", "ckpt-flip", "intact/snap"));
  REQUIRE(m->upload_tree(dir / "snap", "ckpt-flip", "flip-bit/snap"));
  const test::FailingStore store = test::failing_store_before(*m, 6);  // six attempts: the default
  const std::string disk = test::run_cli_ok({"dump", dir / "snap"}).out;
  CHECK(test::run_cli_ok({"dump", "s3://ckpt-flip/intact/snap"}).out == disk);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"dump", "s3://ckpt-flip/flip-bit/snap"},
        {"restore", "s3://ckpt-flip/flip-bit/snap", "--output", dir / "restored"},
        {"convert", "s3://ckpt-flip/flip-bit/snap", "--to", "rocksdb", "--output", dir / "converted"}}) {
    test::CliResult r = test::run_cli(args);
    INFO(args[0] << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("'s3://ckpt-flip/flip-bit/snap/") != std::string::npos);
    CHECK(r.err.find("damaged in transit: MD5 of the bytes is") != std::string::npos);
  }
  // The flipped bits reached the client: the proxy answered every state file.
  CHECK(store.proxy->requests().find("\"GET\", \"path\": \"/ckpt-flip/flip-bit/snap/") != std::string::npos);
}

TEST_CASE("s3 a directory the store fails to list is a failure of the store and no file missing from the snapshot",
          "[cli][s3][faults]") {
  auto m = test::unchecked_moto();
  REQUIRE(m->create_bucket("ckpt-list"));
  {
    // An incremental chain: chk-2's SSTs are in the job's shared/, which the stand-in fails to list.
    test::StoreEnvironment env(m->endpoint(), m->credentials());
    test::run_cli_ok({"generate", "--chain", "2", "--keys", "40", "--states", "value", "--output",
                      "s3://ckpt-list/x/unlisted/job"});
    test::run_cli_ok({"verify", "s3://ckpt-list/x/unlisted/job/chk-2"});
  }
  const test::FailingStore store = test::failing_store_before(*m);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"verify", "s3://ckpt-list/x/unlisted/job/chk-2"},
                                               {"dump", "s3://ckpt-list/x/unlisted/job/chk-2"},
                                               {"inspect", "s3://ckpt-list/x/unlisted/job/chk-2"}}) {
    test::CliResult r = test::run_cli(args);
    INFO(args[0] << "\n" << r.out << r.err);
    // Status 2 (could not check), never 1 (checked: files missing).
    CHECK(r.status == 2);
    CHECK(r.err.find("'s3://ckpt-list/x/unlisted/job/shared") != std::string::npos);
    CHECK(r.err.find("HTTP 500 InternalError") != std::string::npos);
    CHECK(r.out.find("missing") == std::string::npos);
    CHECK(r.err.find("not found") == std::string::npos);
  }
  CHECK(store.proxy->requests().find("unlisted%2Fjob%2Fshared") != std::string::npos);
}

TEST_CASE("s3 failures of the store under --json print the error object on stdout", "[cli][s3][faults]") {
  auto m = test::unchecked_moto();
  REQUIRE(m->create_bucket("ckpt-json"));
  test::ScratchDir dir;
  test::run_cli_ok({"generate", "--backend", "heap", "--keys", "40", "--states", "value", "--output", dir / "snap"});
  REQUIRE(m->upload_tree(dir / "snap", "ckpt-json", "snap"));
  {
    // Before the command runs: the store refuses the listing of the input, or the output lies
    // inside the input.
    test::StoreEnvironment env(m->endpoint(), m->credentials());
    json e = error_object(test::run_cli({"inspect", "--json", "s3://no-such-bucket/job/chk-1"}));
    CHECK(e["file"] == "s3://no-such-bucket/job/chk-1/");
    CHECK(e["message"].get<std::string>().find("HTTP 404") != std::string::npos);
    e = error_object(test::run_cli(
        {"convert", "--json", "s3://ckpt-json/snap", "--to", "rocksdb", "--output", "s3://ckpt-json/snap/inside"}));
    CHECK(e["file"] == "s3://ckpt-json/snap/inside");
  }
  // After it: the upload of the output fails at its `_metadata`. The document that described the
  // output gives way to the error object.
  const test::FailingStore store = test::failing_store_before(*m);
  json e = error_object(
      test::run_cli({"convert", "--json", "s3://ckpt-json/snap", "--to", "rocksdb", "--output", "s3://ckpt-json/out"}));
  CHECK(e["file"] == "s3://ckpt-json/out/_metadata");
  CHECK(e["message"].get<std::string>().find("HTTP 500 InternalError") != std::string::npos);
  CHECK(test::keys_under(*m, "ckpt-json", "out/").empty());
}
