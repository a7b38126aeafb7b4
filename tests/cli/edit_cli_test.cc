// ckpt edit from the command line: what it prints per operation, --dry-run writing nothing,
// malformed operation specs and a missing --output refused with exit 2.
#include <catch2/catch.hpp>

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/metadata.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;
using ckpt::test::run_cli;
using ckpt::test::run_cli_ok;

namespace {

std::string generated_heap(const ckpt::test::ScratchDir& s) {
  run_cli_ok({"generate", "--output", s / "in", "--backend", "heap", "--operators", "2", "--keys", "50", "--states",
              "value,map"});
  return s / "in";
}

std::string first_operator(const std::string& snapshot) {
  auto m = ckpt::read_metadata_file(snapshot);
  REQUIRE(m.ok());
  return ckpt::operator_id_hex(m->operators.at(0).id);
}

}  // namespace

TEST_CASE("edit prints one line per operation and the output's totals", "[cli]") {
  // A dropped state with its entry count, a new id from a uid, then the written savepoint.
  ckpt::test::ScratchDir s;
  const std::string in = generated_heap(s);
  const std::string op = first_operator(in);
  auto r =
      run_cli_ok({"edit", in, "--output", s / "out", "--drop-state", op + "/value-state", "--set-uid", op + "=orders"});
  const std::string id = ckpt::operator_id_hex(ckpt::operator_id_of_uid("orders"));
  CHECK(r.out.find(fmt::format("operator {}: id {} (uid 'orders')\n", op, id)) != std::string::npos);
  CHECK(r.out.find(fmt::format("operator {}: state 'value-state' dropped (50 entries)\n", op)) != std::string::npos);
  CHECK(r.out.find(s / "out" + ": savepoint-native, 4 subtasks,") != std::string::npos);
  CHECK(fs::exists(s / "out/_metadata"));
}

TEST_CASE("edit --dry-run prints what would change and writes nothing", "[cli]") {
  // Each line says "would change", the totals say nothing was written, and no directory appears.
  ckpt::test::ScratchDir s;
  const std::string in = generated_heap(s);
  const std::string op = first_operator(in);
  auto r = run_cli_ok({"edit", in, "--dry-run", "--drop-operator", op});
  CHECK(r.out.find(fmt::format("would change: operator {}: dropped (2 subtasks)\n", op)) != std::string::npos);
  CHECK(r.out.find("dry run: 2 subtasks, ") != std::string::npos);
  CHECK(r.out.find("nothing written") != std::string::npos);
  CHECK_FALSE(fs::exists(s / "out"));
}

TEST_CASE("edit --delete-keys prints erased entries per state and exits 1 naming keys that matched nothing", "[cli]") {
  // One present key, one absent; the absent one is named on standard error, and an erasure
  // that erased nothing for a key it names does not pass (as dump --key).
  ckpt::test::ScratchDir s;
  const std::string in = generated_heap(s);
  ckpt::test::write_file(s / "keys", "\"user-0000000003\"\n\n\"nobody\"\r\n");
  auto r = ckpt::test::run_cli({"edit", in, "--output", s / "out", "--delete-keys", s / "keys"});
  CHECK(r.status == 1);
  CHECK(r.out.find("state 'value-state': 1 entries of the keys erased") != std::string::npos);
  CHECK(r.err.find("key matched nothing: \"nobody\"") != std::string::npos);
  CHECK(fs::exists(s / "out/_metadata"));
  ckpt::test::write_file(s / "found", "\"user-0000000003\"\n");
  CHECK(ckpt::test::run_cli({"edit", in, "--dry-run", "--delete-keys", s / "found"}).status == 0);
}

TEST_CASE("edit --json gives each change with its operator ids and counts and the output's totals", "[cli]") {
  // The same facts as the text lines, for a script: ids before and after, the state, the
  // entries each operation touched, the keys erased and the keys that matched nothing; on a
  // failure the error object, with nothing written.
  ckpt::test::ScratchDir s;
  const std::string in = generated_heap(s);
  const std::string op = first_operator(in);
  ckpt::test::write_file(s / "keys", "\"user-0000000003\"\n\"nobody\"\n");
  auto r = ckpt::test::run_cli({"edit", "--json", in, "--output", s / "out", "--drop-state", op + "/value-state",
                                "--set-uid", op + "=orders", "--delete-keys", s / "keys"});
  CHECK(r.status == 1);  // "nobody" matched nothing
  auto doc = nlohmann::json::parse(r.out);
  const std::string id = ckpt::operator_id_hex(ckpt::operator_id_of_uid("orders"));
  CHECK(doc["schema"] == "ckpt.edit/1");
  CHECK(doc["output"] == s / "out");
  CHECK(doc["dry_run"] == false);
  CHECK(doc["kind"] == "savepoint-native");
  CHECK(doc["subtask_count"] == 4);
  REQUIRE(doc["changes"].size() == 2);
  const auto& set_uid = doc["changes"][0];
  CHECK(set_uid["operation"] == "set-uid");
  CHECK(set_uid["operator"] == op);
  CHECK(set_uid["new_operator"] == id);
  CHECK(set_uid["uid"] == "orders");
  const auto& drop = doc["changes"][1];
  CHECK(drop["operation"] == "drop-state");
  CHECK(drop["state"] == "value-state");
  // Each of the state's 50 entries is counted once: by the key erasure that took it first, or
  // by the drop. Erasures name the operator by its output id.
  uint64_t erased_value = 0, erased_map = 0;
  for (const auto& e : doc["erased_keys"]) {
    if (e["operator"] != id) continue;
    if (e["state"] == "value-state") erased_value += e["entry_count"].get<uint64_t>();
    if (e["state"] == "map-state") erased_map += e["entry_count"].get<uint64_t>();
  }
  CHECK(erased_value == 1);
  CHECK(drop["entry_count"].get<uint64_t>() + erased_value == 50);
  CHECK(erased_map > 0);
  CHECK(doc["unmatched_keys"] == nlohmann::json::array({"\"nobody\""}));
  // What the document says was written is what inspect reads back.
  auto out = nlohmann::json::parse(run_cli_ok({"inspect", "--json", s / "out"}).out);
  CHECK(out["operators"][0]["id"] == id);

  auto bad = run_cli({"edit", "--json", in, "--output", s / "bad", "--drop-operator", "ffffffff"});
  CHECK(bad.status == 2);
  CHECK(nlohmann::json::parse(bad.out)["schema"] == "ckpt.error/1");
  CHECK_FALSE(fs::exists(s / "bad"));
}

TEST_CASE("edit refuses malformed operation specs and a missing output with exit 2", "[cli]") {
  // Nothing is read before a spec is refused, and nothing is written.
  ckpt::test::ScratchDir s;
  const std::string in = generated_heap(s);
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{"edit", in}, "--output is required (or --dry-run)"},
      {{"edit", in, "--dry-run", "--set-uid", "no-equals-sign"}, "--set-uid: 'no-equals-sign' is not OP=UID"},
      {{"edit", in, "--dry-run", "--set-id", "=abc"}, "--set-id: '=abc' is not OP=HEX"},
      {{"edit", in, "--dry-run", "--drop-state", "op-only/"}, "--drop-state: 'op-only/' is not OP/STATE"},
      {{"edit", in, "--dry-run", "--to", "parquet"}, "unknown conversion target 'parquet'"},
      {{"edit", in, "--dry-run", "--operator", "x"}, "--operator restricts --delete-keys"},
      {{"edit", in, "--dry-run", "--delete-keys", s / "none"}, "none"},
      {{"edit", in, "--dry-run", "--max-parallelism", "0"}, "--max-parallelism: '0' is not M or OP=M"},
      {{"edit", in, "--dry-run", "--max-parallelism", "op=40000"}, "'op=40000' is not M or OP=M with M in 1..32768"},
      {{"edit", in, "--dry-run", "--max-parallelism", "=8"}, "'=8' is not M or OP=M"},
      {{"edit", in, "--dry-run", "--max-parallelism", "op=8x"}, "'op=8x' is not M or OP=M"},
      {{"edit", in, "--dry-run", "--max-parallelism", "8", "--max-parallelism", "16"}, "8 and 16 given for every"},
      {{"edit", in, "--dry-run", "--max-parallelism", "no-such-op=8"}, "no-such-op"},
      {{"edit", in, "--dry-run", "--max-parallelism", first_operator(in) + "=8", "--max-parallelism",
        first_operator(in) + "=16"},
       "is given 8 and 16"},
  };
  for (const Case& c : cases) {
    auto r = run_cli(c.args);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
  CHECK_FALSE(fs::exists(s / "out"));
}

TEST_CASE("edit --max-parallelism OP=M changes the operators named and M alone the others", "[cli]") {
  // Operators of one savepoint may need different max parallelisms (a SQL job's singletons have
  // 1): OP=M sets OP's, a bare M every other operator's; named back, the input is given back.
  ckpt::test::ScratchDir s;
  const std::string in = generated_heap(s);
  auto m = ckpt::read_metadata_file(in + "/_metadata");
  REQUIRE(m.ok());
  REQUIRE(m->operators.size() == 2);
  const std::string a = ckpt::operator_id_hex(m->operators[0].id), b = ckpt::operator_id_hex(m->operators[1].id);
  const int32_t own_a = m->operators[0].max_parallelism, own_b = m->operators[1].max_parallelism;
  auto one = run_cli_ok({"edit", in, "--max-parallelism", a + "=64", "--output", s / "one"});
  CHECK(one.out.find(fmt::format("operator {}: max parallelism {} -> 64 (", a, own_a)) != std::string::npos);
  CHECK(one.out.find("operator " + b) == std::string::npos);
  auto edited = ckpt::read_metadata_file(s / "one/_metadata");
  REQUIRE(edited.ok());
  CHECK(edited->operators[0].max_parallelism == 64);
  CHECK(edited->operators[1].max_parallelism == own_b);

  run_cli_ok({"edit", s / "one", "--max-parallelism", "300", "--max-parallelism", a + "=2", "--output", s / "two"});
  edited = ckpt::read_metadata_file(s / "two/_metadata");
  REQUIRE(edited.ok());
  CHECK(edited->operators[0].max_parallelism == 2);
  CHECK(edited->operators[1].max_parallelism == 300);

  run_cli_ok({"edit", s / "two", "--max-parallelism", fmt::format("{}={}", a, own_a), "--max-parallelism",
              fmt::format("{}={}", b, own_b), "--output", s / "back"});
  auto diff = run_cli({"diff", "--keys", in, s / "back"});
  INFO(diff.out << diff.err);
  CHECK(diff.status == 0);
  CHECK(run_cli_ok({"dump", in}).out == run_cli_ok({"dump", s / "back"}).out);
}

TEST_CASE("edit --upsert and --delete-where print their counts and refuse a bad line or predicate with exit 2", "[cli]") {
  // A key's dumped line upserted back is unchanged; a predicate over a column the state lacks
  // names it and the columns it has; a line that is not JSON names the file and line.
  ckpt::test::ScratchDir s;
  const std::string in = generated_heap(s);
  const std::string line = run_cli_ok({"dump", in, "--key", "\"user-0000000003\"", "--state", "value-state"}).out;
  ckpt::test::write_file(s / "up.ndjson", line);
  auto r = run_cli_ok({"edit", in, "--dry-run", "--upsert", s / "up.ndjson"});
  CHECK(r.out.find("state 'value-state': 0 upserted, 0 added, 1 unchanged, 0 deleted") != std::string::npos);
  r = run_cli_ok({"edit", in, "--dry-run", "--delete-where", "value-state=key = 'user-0000000003'"});
  CHECK(r.out.find("state 'value-state': 0 upserted, 0 added, 0 unchanged, 1 deleted") != std::string::npos);
  auto bad = ckpt::test::run_cli({"edit", in, "--output", s / "out", "--delete-where", "value-state=nope = 1"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("no such column: nope") != std::string::npos);
  ckpt::test::write_file(s / "bad.ndjson", line + "{\n");
  bad = ckpt::test::run_cli({"edit", in, "--output", s / "out", "--upsert", s / "bad.ndjson"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find(s / "bad.ndjson" + ":" + std::to_string(std::count(line.begin(), line.end(), '\n') + 1) + ": ") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(s / "out"));
}
