// diff --keys compares entries by what they are, not where they are: a key moved to another
// key group by a new max parallelism is the same entry, and an operator given a new id with
// the same states and entries is one operator renamed (issue 26).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "ckpt/metadata.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

using ckpt::test::run_cli;
using ckpt::test::run_cli_ok;

namespace {

std::string small_job(const ckpt::test::ScratchDir& s) {
  run_cli_ok({"generate", "--output", s / "a", "--operators", "2", "--parallelism", "2", "--keys", "60", "--states",
              "value,map"});
  return s / "a";
}

}  // namespace

TEST_CASE("diff --keys after edit --max-parallelism finds every entry the same", "[cli]") {
  ckpt::test::ScratchDir s;
  const std::string a = small_job(s);
  run_cli_ok({"edit", a, "--max-parallelism", "256", "--output", s / "b"});
  auto r = run_cli({"diff", "--keys", "--json", a, s / "b"});
  CHECK(r.status == 1);  // the max parallelism itself changed
  auto doc = nlohmann::json::parse(r.out);
  uint64_t same = 0;
  for (const auto& k : doc["keys"]) {
    INFO(k.dump());
    CHECK(k["added_count"] == 0);
    CHECK(k["removed_count"] == 0);
    CHECK(k["changed_count"] == 0);
    same += k["same_count"].get<uint64_t>();
  }
  CHECK(same >= 240);
  for (const auto& c : doc["structure"]) CHECK(c["change"] == "max-parallelism");
}

TEST_CASE("diff --keys reports an operator given a new uid as renamed in text and JSON", "[cli]") {
  ckpt::test::ScratchDir s;
  const std::string a = small_job(s);
  auto m = ckpt::read_metadata_file(a);
  REQUIRE(m.ok());
  const std::string op = ckpt::operator_id_hex(m->operators.at(0).id);
  const std::string id = ckpt::operator_id_hex(ckpt::operator_id_of_uid("orders"));
  run_cli_ok({"edit", a, "--set-uid", op + "=orders", "--output", s / "b"});
  auto doc = nlohmann::json::parse(run_cli({"diff", "--keys", "--json", a, s / "b"}).out);
  CHECK(doc["structure"].empty());  // no operator removed and added
  REQUIRE(doc["renamed_operators"].size() == 1);
  CHECK(doc["renamed_operators"][0]["operator_a"] == op);
  CHECK(doc["renamed_operators"][0]["operator_b"] == id);
  CHECK(doc["differs"] == true);
  for (const auto& k : doc["keys"]) CHECK(k["added_count"].get<uint64_t>() + k["removed_count"].get<uint64_t>() == 0);
  auto text = run_cli({"diff", "--keys", a, s / "b"});
  CHECK(text.out.find("operator-renamed operator " + id + ": " + op + " -> " + id) != std::string::npos);
  // A new uid on an operator whose entries also changed is not a rename.
  ckpt::test::write_file(s / "keys", "\"user-0000000003\"\n");
  run_cli_ok({"edit", a, "--set-uid", op + "=orders", "--delete-keys", s / "keys", "--output", s / "c"});
  auto changed = nlohmann::json::parse(run_cli({"diff", "--keys", "--json", a, s / "c"}).out);
  bool added = false;
  for (const auto& c : changed["structure"]) added |= c["change"] == "operator-added";
  CHECK(changed["renamed_operators"].empty());
  CHECK(added);
}
