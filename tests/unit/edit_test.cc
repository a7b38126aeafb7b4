// ckpt edit on generated snapshots of every layout: each operation's output verifies --deep,
// dumps to the input's entries minus the change, and diff reports that change alone; refusals
// leave nothing behind.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "ckpt/edit.h"
#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "testlib/edit_checks.h"
#include "testlib/test_support.h"
#include "testlib/dump_lines.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

const GenerateBackend kBackends[] = {GenerateBackend::kRocksDb, GenerateBackend::kHeap, GenerateBackend::kCanonical};

std::string generated(const test::ScratchDir& tmp, GenerateBackend backend) {
  GenerateOptions o;
  o.output = tmp / "in";
  o.backend = backend;
  o.operators = 2;
  o.parallelism = 2;
  o.keys = 200;
  o.value_size = 8;
  o.states = {"value", "list", "map"};
  REQUIRE(generate_snapshot(o).ok());
  return o.output;
}

std::vector<std::string> operator_ids(const std::string& snapshot) {
  auto m = read_metadata_file(snapshot);
  REQUIRE(m.ok());
  std::vector<std::string> ids;
  for (const OperatorState& op : m->operators) ids.push_back(operator_id_hex(op.id));
  return ids;
}

EditOptions to(const std::string& out) {
  EditOptions o;
  o.output = out;
  o.jobs = 2;
  return o;
}

const char* backend_name(GenerateBackend b) {
  return b == GenerateBackend::kRocksDb ? "rocksdb" : b == GenerateBackend::kHeap ? "heap" : "canonical";
}

}  // namespace

TEST_CASE("read_key_lines reads one typed key a line and names the file and line of one that is not JSON", "[ops]") {
  test::ScratchDir tmp;
  const std::string path = tmp / "keys";
  test::write_file(path, "\"user-1\"\r\n\n  \t\n42\n[1, \"a\"]\n{\"kind\":\"+I\",\"fields\":[6]}");
  Result<std::vector<Value>> keys = read_key_lines(path);
  REQUIRE(keys.ok());
  REQUIRE(keys->size() == 4);
  CHECK((*keys)[0] == Value::string("user-1"));
  CHECK((*keys)[1] == Value::integer(42));
  CHECK((*keys)[2].json() == R"([1,"a"])");
  CHECK((*keys)[3].keys() == std::vector<std::string>{"kind", "fields"});
  test::write_file(path, "1\n\n{\"a\":\n");
  Result<std::vector<Value>> bad = read_key_lines(path);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kInvalidArgument);
  CHECK(bad.error().file == path);
  CHECK(bad.error().message.find("line 3: key {\"a\": is not JSON") != std::string::npos);
}

TEST_CASE("edit --drop-state removes one keyed state and its meta data in every layout", "[ops]") {
  // The map state of the first operator is gone from every subtask's proxy and entries; the
  // other operator keeps its map state; the output is in the input's layout.
  for (GenerateBackend backend : kBackends) {
    INFO(backend_name(backend));
    test::ScratchDir tmp;
    const std::string in = generated(tmp, backend);
    const std::string op = operator_ids(in).at(0);
    EditOptions o = to(tmp / "out");
    o.drop_states = {{op, "map-state"}};
    auto r = edit_snapshot(in, o);
    if (!r.ok()) FAIL(r.error().to_string());
    REQUIRE(r->changes.size() == 1);
    test::ExpectedEdit e;
    e.removed = [&](const Entry& d) { return d.operator_id == op && d.state == "map-state"; };
    e.structure = {fmt::format("state-removed {} map-state", op)};
    e.changed_states = {{op, "map-state"}};
    size_t removed = 0;
    test::check_edit(in, tmp / "out", e, &removed);
    CHECK(removed > 200);  // 1 to 3 fields of each of the operator's keys
    CHECK(r->changes[0].entries == removed);
    // The input's layout: the same handle types.
    auto a = read_metadata_file(in), b = read_metadata_file(tmp / "out");
    REQUIRE((a.ok() && b.ok()));
    for (size_t i = 0; i < a->operators.size(); ++i)
      for (size_t s = 0; s < a->operators[i].subtasks.size(); ++s)
        CHECK(int(a->operators[i].subtasks[s].managed_keyed.type) ==
              int(b->operators[i].subtasks[s].managed_keyed.type));
  }
}

TEST_CASE("edit --drop-operator leaves one operator out and keeps the other byte for byte in dumps", "[ops]") {
  // Every layout: the dropped operator is the only structural change and the only entries lost.
  for (GenerateBackend backend : kBackends) {
    INFO(backend_name(backend));
    test::ScratchDir tmp;
    const std::string in = generated(tmp, backend);
    const std::string op = operator_ids(in).at(1);
    EditOptions o = to(tmp / "out");
    o.drop_operators = {op.substr(0, 8)};  // an id prefix names it too
    REQUIRE(edit_snapshot(in, o).ok());
    CHECK(operator_ids(tmp / "out") == std::vector<std::string>{operator_ids(in).at(0)});
    test::ExpectedEdit e;
    e.removed = [&](const Entry& d) { return d.operator_id == op; };
    e.structure = {fmt::format("operator-removed {} ", op)};
    e.changed_states = {{op, "*"}};
    test::check_edit(in, tmp / "out", e);
  }
}

TEST_CASE("edit --set-uid gives the operator the murmur3 hash of the uid and keeps its state", "[ops]") {
  // The id is Flink's hash of the uid (StreamGraphHasherV2); entries move with the operator.
  test::ScratchDir tmp;
  const std::string in = generated(tmp, GenerateBackend::kRocksDb);
  const std::string op = operator_ids(in).at(0);
  EditOptions o = to(tmp / "out");
  o.set_uids = {{op, "enrich-orders"}};
  auto r = edit_snapshot(in, o);
  REQUIRE(r.ok());
  const std::string id = operator_id_hex(operator_id_of_uid("enrich-orders"));
  CHECK(r->changes.at(0).new_id == id);
  CHECK(operator_ids(tmp / "out").at(0) == id);
  test::ExpectedEdit e;
  e.new_ids = {{op, id}};
  // diff --keys sees the same states and entries under the new id: one operator renamed.
  e.structure = {fmt::format("operator-renamed {} {}", op, id)};
  test::check_edit(in, tmp / "out", e);
}

TEST_CASE("edit refuses ids two operators would share and operator names that fit nothing", "[ops]") {
  // --set-id onto another operator's id, --set-uid of a uid another operator already hashes
  // from, an unknown operator, an unknown state: each is an error and no output appears.
  test::ScratchDir tmp;
  const std::string in = generated(tmp, GenerateBackend::kHeap);
  const auto ids = operator_ids(in);
  auto refused = [&](EditOptions o, const std::string& needle) {
    o.output = tmp / "out";
    auto r = edit_snapshot(in, o);
    REQUIRE_FALSE(r.ok());
    INFO(r.error().to_string());
    CHECK(r.error().to_string().find(needle) != std::string::npos);
    CHECK_FALSE(fs::exists(tmp / "out"));
  };
  EditOptions o;
  o.set_ids = {{ids[1], ids[0]}};
  refused(o, "would share the id " + ids[0]);
  o = {};
  o.set_ids = {{ids[0], "not-hex"}};
  refused(o, "is not 32 hex digits");
  o = {};
  o.drop_operators = {"no-such-uid"};
  refused(o, "no operator with id, id prefix, uid or name 'no-such-uid'");
  o = {};
  o.drop_states = {{ids[0], "no-such-state"}};
  refused(o, "has no state 'no-such-state'");
  o = {};
  o.drop_operators = {ids[0]};
  o.set_uids = {{ids[0], "x"}};
  refused(o, "is dropped");
}

TEST_CASE("edit --dry-run counts what it would drop and writes nothing", "[ops]") {
  // The same counts as the real run, and no output directory.
  test::ScratchDir tmp;
  const std::string in = generated(tmp, GenerateBackend::kCanonical);
  const std::string op = operator_ids(in).at(0);
  EditOptions o = to(tmp / "dry");
  o.dry_run = true;
  o.drop_states = {{op, "list-state"}};
  auto dry = edit_snapshot(in, o);
  REQUIRE(dry.ok());
  CHECK_FALSE(fs::exists(tmp / "dry"));
  o.dry_run = false;
  o.output = tmp / "out";
  auto real = edit_snapshot(in, o);
  REQUIRE(real.ok());
  CHECK(dry->changes.at(0).entries == real->changes.at(0).entries);
  CHECK(dry->changes.at(0).entries == 200);  // one list per key
  CHECK(dry->written.entries == real->written.entries);
}

TEST_CASE("edit --to writes the edited state in another layout", "[ops]") {
  // A heap savepoint edited into RocksDB: the drop and the conversion in one pass.
  test::ScratchDir tmp;
  const std::string in = generated(tmp, GenerateBackend::kHeap);
  const std::string op = operator_ids(in).at(1);
  EditOptions o = to(tmp / "out");
  o.to = ConvertTarget::kRocksDb;
  o.drop_states = {{op, "value-state"}};
  REQUIRE(edit_snapshot(in, o).ok());
  auto m = read_metadata_file(tmp / "out");
  REQUIRE(m.ok());
  for (const OperatorState& x : m->operators)
    for (const SubtaskState& st : x.subtasks) CHECK(int(st.managed_keyed.type) == int(handle_type::kIncremental));
  test::ExpectedEdit e;
  e.removed = [&](const Entry& d) { return d.operator_id == op && d.state == "value-state"; };
  e.structure = {fmt::format("state-removed {} value-state", op)};
  e.changed_states = {{op, "value-state"}};
  test::check_edit(in, tmp / "out", e);
}

TEST_CASE("edit --delete-keys erases exactly the listed keys over seeds and layouts", "[ops]") {
  // Property over seeds: a random tenth of the keys (and one absent key) erased from every
  // state of every operator; the output dumps as the input without exactly those keys' entries,
  // each state counts one pair per key (a list is one RocksDB pair) or per map field, and the
  // absent key is the one reported unmatched.
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const GenerateBackend backend = kBackends[seed % 3];
    INFO("seed " << seed << " " << backend_name(backend));
    test::ScratchDir tmp;
    GenerateOptions g;
    g.output = tmp / "in";
    g.backend = backend;
    g.operators = 2;
    g.parallelism = 3;
    g.max_parallelism = seed % 2 ? 128 : 300;  // one- and two-byte key-group prefixes
    g.keys = 150;
    g.value_size = 4;
    g.seed = seed;
    g.states = {"value", "list", "map"};
    REQUIRE(generate_snapshot(g).ok());
    std::set<std::string> keys;
    for (const std::string& line : test::dump_set(g.output)) {
      size_t at = line.find("\"key\":\"user-");
      if (at == std::string::npos) continue;
      const std::string key = line.substr(at + 6, line.find('"', at + 7) - at - 5);
      if (std::hash<std::string>{}(key + std::to_string(seed)) % 10 == 0) keys.insert(key);
    }
    REQUIRE(keys.size() > 3);
    EditOptions o = to(tmp / "out");
    o.delete_keys = test::keys_of({keys.begin(), keys.end()});
    o.delete_keys.push_back(Value::string("user-absent"));
    auto r = edit_snapshot(g.output, o);
    REQUIRE(r.ok());
    CHECK(r->unmatched_keys == std::vector<Value>{Value::string("user-absent")});
    test::ExpectedEdit e;
    e.removed = [&](const Entry& d) { return keys.count(test::json_of(d.key)) > 0; };
    for (const std::string& op : operator_ids(g.output))
      for (const char* state : {"value-state", "list-state", "map-state"}) e.changed_states.insert({op, state});
    size_t removed = 0;
    test::check_edit(g.output, tmp / "out", e, &removed);
    uint64_t pairs = 0;
    for (const EditSummary::KeysErased& k : r->erased) {
      if (k.state != "map-state") CHECK(k.entries == keys.size());
      pairs += k.entries;
    }
    CHECK(r->erased.size() == 6);
    CHECK(pairs <= removed);
  }
}

TEST_CASE("edit --delete-keys --operator leaves the other operators' keys alone", "[ops]") {
  // The key is erased from the named operator and kept, with every entry, by the other.
  test::ScratchDir tmp;
  const std::string in = generated(tmp, GenerateBackend::kRocksDb);
  const auto ids = operator_ids(in);
  EditOptions o = to(tmp / "out");
  o.delete_keys = {Value::string("user-0000000007")};
  o.keys_operator = ids[0];
  auto r = edit_snapshot(in, o);
  REQUIRE(r.ok());
  CHECK(r->unmatched_keys.empty());
  for (const EditSummary::KeysErased& k : r->erased) CHECK(k.operator_id == ids[0]);
  test::ExpectedEdit e;
  e.removed = [&](const Entry& d) { return d.operator_id == ids[0] && test::json_of(d.key) == "\"user-0000000007\""; };
  e.changed_states = {{ids[0], "*"}};
  size_t removed = 0;
  test::check_edit(in, tmp / "out", e, &removed);
  CHECK(removed >= 3);  // a value, 1 to 3 list elements, 1 to 3 map fields
}
