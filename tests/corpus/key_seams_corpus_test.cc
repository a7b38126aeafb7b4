// The paths a new user takes first, on Flink's own snapshots (issue 26): a key is given as one
// JSON text in any form dump prints it, an erasure says what it left, and a command that could
// not read a state does not exit 0 unless told to.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::run_cli;

namespace {

// Flink SQL's GROUP BY b over (1, "Hi"), (2, "Hello"), (2, "Hello world"): one key row per b
// in the aggregate, and the sink's buffered rows, whose first field is b.
std::string group_aggregate() {
  return ckpt::test::sql_corpus_dir() + "/stream-exec-group-aggregate_1/group-aggregate-simple";
}

size_t output_lines_of(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("dump --key takes a bracketed key as one JSON text on a Tuple-keyed job", "[cli][corpus]") {
  CKPT_REQUIRE_SHARED();
  const std::string snap = ckpt::test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-hashmap-savepoint";
  auto r = run_cli({"dump", snap, "--key", "[3]"});
  CHECK(r.status == 0);
  size_t of_key = 0;
  for (size_t at = r.out.find("\"key\":[3],"); at != std::string::npos; at = r.out.find("\"key\":[3],", at + 1)) ++of_key;
  CHECK(of_key > 0);
  CHECK(of_key == output_lines_of(r.out));
  // Spaces inside the brackets, and the '=' form, are the same key.
  CHECK(run_cli({"dump", snap, "--key", "[ 3 ]"}).out == r.out);
  CHECK(run_cli({"dump", snap, "--key=[3]"}).out == r.out);
  // One flag, one key: the snapshot after it stays the positional.
  CHECK(run_cli({"dump", "--key", "[3]", snap}).out == r.out);
}

TEST_CASE("every form dump prints a SQL key finds it in dump --key and edit --delete-keys", "[cli][corpus][sql]") {
  CKPT_REQUIRE_SHARED();
  const std::string dir = group_aggregate();
  if (!fs::exists(dir + "/savepoint/_metadata")) CKPT_SKIP("no " << dir);
  const std::string plan = dir + "/plan/group-aggregate-simple.json";
  auto plain = run_cli({"dump", dir + "/savepoint", "--key", R"({"fields":[2],"kind":"+I"})"});
  REQUIRE(plain.status == 0);
  REQUIRE(output_lines_of(plain.out) == 1);
  // The form --plan prints, and both forms without the kind.
  auto named = run_cli({"dump", dir + "/savepoint", "--plan", plan});
  REQUIRE(named.out.find(R"("key":{"fields":{"b":2},"kind":"+I"})") != std::string::npos);
  ckpt::test::ScratchDir s;
  for (const char* key : {R"({"fields":{"b":2},"kind":"+I"})", R"({"fields":{"b":2}})", R"({"fields":[2]})"}) {
    INFO(key);
    auto r = run_cli({"dump", dir + "/savepoint", "--key", key});
    CHECK(r.status == 0);
    CHECK(r.out == plain.out);
    ckpt::test::write_file(s / "keys", std::string(key) + "\n");
    auto e = run_cli({"edit", dir + "/savepoint", "--dry-run", "--delete-keys", s / "keys"});
    CHECK(e.status == 0);
    CHECK(e.out.find("state 'accState': 1 entries of the keys erased") != std::string::npos);
  }
}

TEST_CASE("edit --delete-keys reports where an erased SQL key remains and --dry-run says the same", "[cli][corpus][sql]") {
  // The aggregate's entry of b=2 is erased; the sink still buffers two rows whose field is 2.
  CKPT_REQUIRE_SHARED();
  const std::string dir = group_aggregate();
  if (!fs::exists(dir + "/savepoint/_metadata")) CKPT_SKIP("no " << dir);
  ckpt::test::ScratchDir s;
  ckpt::test::write_file(s / "keys", "{\"fields\":{\"b\":2},\"kind\":\"+I\"}\n");
  auto dry = run_cli({"edit", dir + "/savepoint", "--dry-run", "--delete-keys", s / "keys"});
  REQUIRE(dry.status == 0);
  auto done = run_cli({"edit", dir + "/savepoint", "--output", s / "out", "--delete-keys", s / "keys", "--json"});
  REQUIRE(done.status == 0);
  auto doc = nlohmann::json::parse(done.out);
  REQUIRE(doc["remaining_keys"].size() == 1);
  const auto& left = doc["remaining_keys"][0];
  CHECK(left["state"] == "sink-results");
  CHECK(left["place"] == "value");
  CHECK(left["entry_count"] == 2);
  CHECK(left["key"] == "{\"fields\":{\"b\":2},\"kind\":\"+I\"}");
  const std::string line = "remain: operator " + left["operator"].get<std::string>() +
                           ": state 'sink-results': key {\"fields\":{\"b\":2},\"kind\":\"+I\"} in the values of 2 entries";
  CHECK(dry.out.find("would " + line) != std::string::npos);
  auto text = run_cli({"edit", dir + "/savepoint", "--output", s / "out2", "--delete-keys", s / "keys"});
  CHECK(text.out.find(line.substr(0, 6) + "s" + line.substr(6)) != std::string::npos);  // "remains: ..."
  // What is left is what dump of the output shows.
  auto after = run_cli({"dump", s / "out", "--key", "{\"fields\":[2]}"});
  CHECK(after.status == 1);
}

TEST_CASE("verify --deep and inspect --count exit 1 on states they could not read unless --allow-unread", "[cli][corpus]") {
  // A Flink 1.3 savepoint whose key serializer is a class ckpt does not know (TupleSerializer
  // renamed in its Java-serialized form, the stream otherwise intact): nothing decoded is not "ok".
  CKPT_REQUIRE_SHARED();
  const std::string original =
      ckpt::test::shared_dir() + "/testdata/flink-old/stateful-udf-migration-itcase-flink1.3-savepoint";
  if (!fs::exists(original + "/_metadata")) CKPT_SKIP("no " << original);
  ckpt::test::ScratchDir s;
  const std::string snap = s / "unknown-key-serializer";
  fs::create_directories(snap);
  std::string bytes = ckpt::test::read_file(original + "/_metadata");
  const std::string known = "runtime.TupleSerializer", unknown = "runtime.TupleSerialixer";
  for (size_t at = bytes.find(known); at != std::string::npos; at = bytes.find(known, at + 1))
    bytes.replace(at, known.size(), unknown);
  ckpt::test::write_file(snap + "/_metadata", bytes);
  auto v = run_cli({"verify", "--deep", snap});
  CHECK(v.status == 1);
  CHECK(v.out.find(": ok (") == std::string::npos);
  CHECK(v.out.find("not checked: ") != std::string::npos);
  CHECK(v.err.find("--allow-unread") != std::string::npos);
  CHECK(run_cli({"verify", "--deep", "--allow-unread", snap}).status == 0);
  auto vj = nlohmann::json::parse(run_cli({"verify", "--deep", "--json", snap}).out);
  CHECK(vj["complete"] == false);
  CHECK(vj["clean"] == true);
  auto i = run_cli({"inspect", "--count", snap});
  CHECK(i.status == 1);
  CHECK(i.out.find("states not read:") != std::string::npos);
  CHECK(run_cli({"inspect", "--count", "--allow-unread", snap}).status == 0);
}
