// ckpt generate: deterministic, identical logical state in every layout, keys in Flink's key
// groups, and chains of incremental RocksDB checkpoints that share SST files as Flink's do.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/dump.h"
#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "ops/generate/generate_model.h"
#include "support/byte_writer.h"
#include "types/snapshot_bytes.h"
#include "types/value_decoder.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

struct LineSetSink : DumpSink {
  std::multiset<std::string> lines;
  void entry(const Entry& e) override { lines.insert(to_ndjson(e)); }
  void problem(const Error& e) override { FAIL(e.to_string()); }
};

std::multiset<std::string> dump_line_set(const std::string& snapshot) {
  LineSetSink sink;
  auto r = dump_snapshot(snapshot, DumpOptions{}, sink);
  INFO(snapshot);
  REQUIRE(r.ok());
  return sink.lines;
}

GenerateOptions small(const std::string& out, GenerateBackend backend) {
  GenerateOptions o;
  o.output = out;
  o.backend = backend;
  o.operators = 2;
  o.parallelism = 3;
  o.max_parallelism = 200;  // two-byte key-group prefixes
  o.keys = 300;
  o.value_size = 12;
  o.states = {"value", "list", "map"};
  o.seed = 42;
  o.jobs = 2;
  return o;
}

// Every regular file under `dir`, relative path -> bytes.
std::map<std::string, std::string> file_tree(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = test::read_file(e.path().string());
  return out;
}

std::set<std::string> referenced_files(const Metadata& m) {
  std::set<std::string> out;
  for (const OperatorState& op : m.operators)
    for (const SubtaskState& st : op.subtasks)
      for (const auto* list : {&st.managed_keyed.shared_files, &st.managed_keyed.private_files})
        for (const NamedStream& f : *list) out.insert(f.handle.path);
  return out;
}

std::set<std::string> shared_files(const Metadata& m) {
  std::set<std::string> out;
  for (const OperatorState& op : m.operators)
    for (const SubtaskState& st : op.subtasks)
      for (const NamedStream& f : st.managed_keyed.shared_files) out.insert(f.handle.path);
  return out;
}

}  // namespace

TEST_CASE("generate is deterministic for a seed and differs between seeds", "[unit][ops]") {
  // Heap and canonical output of two runs with the same options are byte-identical trees; RocksDB
  // output has the same files and the same entries (RocksDB stamps each DB and SST with fresh
  // session ids of its own). Another seed changes the state.
  test::ScratchDir tmp;
  for (GenerateBackend b : {GenerateBackend::kRocksDb, GenerateBackend::kHeap, GenerateBackend::kCanonical}) {
    GenerateOptions a = small(tmp / "a", b), c = small(tmp / "c", b), d = small(tmp / "d", b);
    d.seed = 43;
    REQUIRE(generate_snapshot(a).ok());
    REQUIRE(generate_snapshot(c).ok());
    REQUIRE(generate_snapshot(d).ok());
    auto ta = file_tree(tmp / "a"), tc = file_tree(tmp / "c");
    CHECK(ta.size() > 1);
    if (b == GenerateBackend::kRocksDb) {
      std::set<std::string> na, nc;
      for (const auto& [name, bytes] : ta) na.insert(name);
      for (const auto& [name, bytes] : tc) nc.insert(name);
      CHECK(na == nc);
    } else {
      CHECK(ta == tc);
    }
    auto da = dump_line_set(tmp / "a");
    CHECK(da == dump_line_set(tmp / "c"));
    CHECK(da != dump_line_set(tmp / "d"));
    for (const char* n : {"a", "c", "d"}) fs::remove_all(tmp / n);
  }
}

TEST_CASE("generated snapshots hold the same state in every layout with keys in Flink's key groups", "[unit][ops]") {
  // RocksDB, heap and canonical output dump identically; every key lies in the key group
  // Flink's hash assigns it; each operator has one value and one list entry per key and 1-3
  // map entries per key, with values of the requested size.
  test::ScratchDir tmp;
  std::multiset<std::string> first;
  for (GenerateBackend b : {GenerateBackend::kRocksDb, GenerateBackend::kHeap, GenerateBackend::kCanonical}) {
    std::string out = tmp / fmt::format("out-{}", static_cast<int>(b));
    REQUIRE(generate_snapshot(small(out, b)).ok());
    auto lines = dump_line_set(out);
    if (first.empty()) first = lines;
    CHECK(lines == first);
  }
  std::map<std::string, std::map<std::string, int>> per_state;  // operator -> state -> entries
  std::map<std::string, std::set<std::string>> map_keys;
  for (const std::string& line : first) {
    auto e = nlohmann::json::parse(line);
    std::string key = e["key"];
    CHECK(e["key_group"] == key_group_for_hash(java_string_hash(key), 200));
    CHECK(e["namespace"] == "VoidNamespace");
    per_state[e["operator"]][e["state"]]++;
    if (e["state"] == "value-state") CHECK(e["value"]["bytes"].get<std::string>().size() == 24);
    if (e["state"] == "map-state") map_keys[e["operator"]].insert(key);
  }
  REQUIRE(per_state.size() == 2);
  for (auto& [op, states] : per_state) {
    CHECK(states["value-state"] == 300);
    CHECK(states["list-state"] == 300);
    CHECK(states["map-state"] >= 300);
    CHECK(states["map-state"] <= 900);
    CHECK(map_keys[op].size() == 300);
  }
}

TEST_CASE("a generated chain shares sst files between consecutive checkpoints and replaces some", "[unit][ops]") {
  // chk-1..chk-4 under one root: every referenced file exists, each checkpoint reuses SSTs of
  // the previous one under shared/, adds new ones and drops replaced ones, private files are
  // per checkpoint, and every checkpoint dumps with its changed keys only in rewritten buckets.
  test::ScratchDir tmp;
  GenerateOptions o = small(tmp / "job", GenerateBackend::kRocksDb);
  o.chain = 4;
  o.churn = 0.5;
  o.states = {"value", "map"};
  REQUIRE(generate_snapshot(o).ok());
  CHECK(fs::is_directory(tmp / "job/shared"));
  CHECK(fs::is_directory(tmp / "job/taskowned"));
  std::vector<Metadata> chain;
  for (int c = 1; c <= 4; ++c) {
    auto m = read_metadata_file(tmp / fmt::format("job/chk-{}", c));
    REQUIRE(m.ok());
    CHECK(m->kind() == SnapshotKind::kCheckpoint);
    CHECK(m->checkpoint_id == c);
    for (const std::string& uri : referenced_files(*m)) {
      REQUIRE(uri.rfind("file:/", 0) == 0);
      CHECK(fs::exists(uri.substr(5)));
    }
    chain.push_back(std::move(m).value());
  }
  for (int c = 1; c < 4; ++c) {
    auto before = shared_files(chain[c - 1]), after = shared_files(chain[c]);
    std::set<std::string> kept, added, dropped;
    for (const auto& f : after) (before.count(f) ? kept : added).insert(f);
    for (const auto& f : before)
      if (!after.count(f)) dropped.insert(f);
    INFO("chk-" << c << " -> chk-" << c + 1);
    CHECK(!kept.empty());
    CHECK(!added.empty());
    CHECK(dropped.size() == added.size());  // one SST per state and bucket: replaced one for one
  }
  auto d1 = dump_line_set(tmp / "job/chk-1"), d2 = dump_line_set(tmp / "job/chk-2");
  CHECK(d1 != d2);
  size_t common = 0;
  for (const auto& l : d1) common += d2.count(l);
  CHECK(common > d1.size() / 4);  // most buckets stay as they were
}

TEST_CASE("ldb opens generated instances and sst_dump reads their files", "[unit][ops]") {
  // A chain checkpoint laid out under its RocksDB names, and a generated native savepoint's
  // instance directory, open with RocksDB's own ldb; sst_dump reads every shared SST.
  CKPT_REQUIRE_PROGRAM("/usr/bin/ldb");
  CKPT_REQUIRE_PROGRAM("/usr/bin/sst_dump");
  test::ScratchDir tmp;
  GenerateOptions o = small(tmp / "job", GenerateBackend::kRocksDb);
  o.chain = 2;
  REQUIRE(generate_snapshot(o).ok());
  auto m = read_metadata_file(tmp / "job/chk-2");
  REQUIRE(m.ok());
  const KeyedHandle& h = m->operators[0].subtasks[1].managed_keyed;
  fs::create_directories(tmp / "inst");
  for (const auto* list : {&h.shared_files, &h.private_files})
    for (const NamedStream& f : *list) fs::copy_file(f.handle.path.substr(5), tmp / ("inst/" + f.name));
  std::string out = tmp / "out.txt";
  for (const char* cf : {"value-state", "list-state", "map-state"}) {
    std::string cmd = fmt::format("/usr/bin/ldb --db='{}' --column_family={} scan > '{}' 2>&1", tmp / "inst", cf, out);
    INFO(cmd << "\n" << test::read_file(out));
    REQUIRE(std::system(cmd.c_str()) == 0);
    CHECK(test::read_file(out).find("Failed") == std::string::npos);
  }
  for (const auto& e : fs::directory_iterator(tmp / "job/shared")) {
    fs::copy_file(e.path(), tmp / "one.sst", fs::copy_options::overwrite_existing);
    std::string cmd = fmt::format("/usr/bin/sst_dump --file='{}' --command=check > '{}' 2>&1", tmp / "one.sst", out);
    INFO(cmd << "\n" << test::read_file(out));
    CHECK(std::system(cmd.c_str()) == 0);
  }
}

TEST_CASE("generate refuses impossible options", "[unit][ops]") {
  // Unknown state kinds, a chain on a heap backend, parallelism above max parallelism.
  test::ScratchDir tmp;
  GenerateOptions o = small(tmp / "x", GenerateBackend::kRocksDb);
  o.states = {"value", "tree"};
  CHECK(generate_snapshot(o).error().code == ErrorCode::kInvalidArgument);
  o = small(tmp / "x", GenerateBackend::kHeap);
  o.chain = 2;
  CHECK(generate_snapshot(o).error().code == ErrorCode::kInvalidArgument);
  o = small(tmp / "x", GenerateBackend::kRocksDb);
  o.parallelism = 300;
  CHECK(generate_snapshot(o).error().code == ErrorCode::kInvalidArgument);
  CHECK_FALSE(fs::exists(tmp / "x"));
}

TEST_CASE("generate's keyed proxy has the bytes formats/keyed-state.md gives a StringSerializer job", "[unit][ops]") {
  GenerateOptions o = small("unused", GenerateBackend::kRocksDb);
  o.states = {"value", "map"};
  auto model = GenerateModel::make(o);
  REQUIRE(model.ok());
  auto written = write_keyed_backend_meta(model->meta());
  REQUIRE(written.ok());
  // The proxy built field by field from the spec (formats/keyed-state.md §3, §4): version 6, no compression, the key
  // serializer in its proxy form, two KEY_VALUE states in VoidNamespace.
  const char* kString = "org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot";
  const char* kBytes =
      "org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer$"
      "BytePrimitiveArraySerializerSnapshot";
  const char* kVoid = "org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot";
  ByteWriter w;
  w.i32(6);
  w.boolean(false);
  w.i32(2);
  write_simple_snapshot(w, kString);
  w.i16(2);
  auto state = [&](const char* name, const char* type, auto&& value) {
    w.utf(name);
    w.i32(0);
    w.i32(1);
    w.utf("KEYED_STATE_TYPE");
    w.utf(type);
    w.i32(2);
    w.utf("VALUE_SERIALIZER");
    w.i32(2);
    value();
    w.utf("NAMESPACE_SERIALIZER");
    w.i32(2);
    write_simple_snapshot(w, kVoid);
  };
  state("value-state", "VALUE", [&] { write_simple_snapshot(w, kBytes); });
  state("map-state", "MAP", [&] {
    write_composite_snapshot(w, "org.apache.flink.api.common.typeutils.base.MapSerializerSnapshot", {kString, kBytes});
  });
  CHECK(*written == w.buffer());
  REQUIRE(model->meta().states.size() == 2);
  CHECK(model->meta().states[1].kind() == StateKind::kMap);
}
