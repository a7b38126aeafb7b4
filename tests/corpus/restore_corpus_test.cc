// ckpt restore on Flink's own RocksDB snapshots: instances that RocksDB's ldb opens, whose
// column families are the operator's states and whose entries read back equal ckpt dump.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>
#include <rocksdb/db.h>

#include "ckpt/dump.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "ckpt/restore.h"
#include "state/rocksdb/rocks_instance_reader.h"
#include "testlib/cli_run.h"
#include "testlib/native_snapshot.h"
#include "testlib/test_support.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

const char* kLdb = "/usr/bin/ldb";

struct KeyedLines : DumpSink {
  std::vector<std::string> keyed;
  std::vector<std::string> problems;
  void entry(const Entry& e) override {
    if (e.kind != EntryKind::kOperator) keyed.push_back(to_ndjson(e));
  }
  void problem(const Error& e) override { problems.push_back(e.to_string()); }
};

bool has_native_handle(const Metadata& m) {
  for (const OperatorState& op : m.operators)
    for (const SubtaskState& st : op.subtasks)
      if (st.managed_keyed.type == handle_type::kIncremental || st.managed_keyed.type == handle_type::kIncrementalV1)
        return true;
  return false;
}

// Corpus snapshots whose keyed state is held by RocksDB native handles.
std::vector<std::string> native_snapshots() {
  std::vector<std::string> out;
  for (const std::string& dir : test::corpus_snapshots()) {
    Result<Metadata> m = read_metadata_file(dir);
    if (m.ok() && has_native_handle(*m)) out.push_back(dir);
  }
  return out;
}

// Keyed entries of `snapshot` as ckpt dump prints them, subtasks ascending.
std::vector<std::string> dump_keyed(const std::string& snapshot, const DumpOptions& options = {}) {
  KeyedLines lines;
  Result<DumpSummary> r = dump_snapshot(snapshot, options, lines);
  INFO(snapshot);
  REQUIRE(r.ok());
  REQUIRE(lines.problems.empty());
  return lines.keyed;
}

// A `_metadata` in `dir` whose native handles read their SSTs from the restored instances
// (every *.sst in the instance directory) and nothing else; the meta data stream stays the
// snapshot's. Dumping it reads the instances back through ckpt.
std::string readback_snapshot(const std::string& snapshot, const RestoreReport& report, const std::string& dir) {
  Result<SnapshotLocation> where = locate_snapshot(snapshot);
  REQUIRE(where.ok());
  Result<Metadata> m = read_metadata_file(where->metadata_path);
  REQUIRE(m.ok());
  FileResolver resolver(where->directory, {});
  std::map<std::pair<std::string, int32_t>, std::string> restored;
  for (const RestoredInstance& i : report.instances) restored[{i.operator_id, i.subtask}] = i.directory;
  for (OperatorState& op : m->operators) {
    for (SubtaskState& st : op.subtasks) {
      KeyedHandle keyed;
      auto it = restored.find({operator_id_hex(op.id), st.index});
      if (it != restored.end()) {
        keyed = st.managed_keyed;
        // Heap and canonical handles become native ones; their proxy leads their stream.
        if (keyed.type != handle_type::kIncrementalV1) keyed.type = handle_type::kIncremental;
        keyed.offsets.clear();
        keyed.shared_files.clear();
        keyed.private_files.clear();
        for (const auto& e : fs::directory_iterator(it->second)) {
          if (e.path().extension() != ".sst") continue;
          NamedStream f;
          f.name = e.path().filename().string();
          f.handle.type = handle_type::kFile;
          f.handle.path = fs::absolute(e.path()).string();
          f.handle.size = static_cast<int64_t>(e.file_size());
          keyed.shared_files.push_back(std::move(f));
        }
        if (keyed.delegate.is_file()) {
          auto found = resolver.find(keyed.delegate.type, keyed.delegate.path);
          REQUIRE(found);
          keyed.delegate.type = handle_type::kFile;
          keyed.delegate.path = fs::absolute(found->path).string();
        }
      }
      SubtaskState only;
      only.index = st.index;
      only.managed_keyed = std::move(keyed);
      st = std::move(only);
    }
  }
  fs::create_directories(dir);
  Result<std::string> bytes = encode_metadata(*m);
  REQUIRE(bytes.ok());
  test::write_file(dir + "/_metadata", *bytes);
  return dir;
}

// Every subtask into `out`, two at a time, every entry read back by the check.
Result<RestoreReport> restore_fully_checked(const std::string& snapshot, const std::string& out) {
  RestoreOptions options;
  options.output = out;
  options.jobs = 2;
  options.full_check = true;
  return restore_snapshot(snapshot, options);
}

// `ldb --db=DIR list_column_families`: its exit status and output.
std::pair<int, std::string> ldb_list(const std::string& db) {
  std::string cmd = std::string(kLdb) + " --db='" + db + "' list_column_families 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = ::pclose(p);
  return {status, out};
}

// Keyed state names per (operator, subtask) in the independent decoding of the snapshot.
std::map<std::pair<std::string, int32_t>, std::set<std::string>> expected_keyed_states(const std::string& snapshot) {
  std::map<std::pair<std::string, int32_t>, std::set<std::string>> out;
  std::ifstream in(test::expected_dir() + "/" + fs::path(snapshot).filename().string() + ".ndjson");
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["kind"] != "keyed" || j.value("raw_keyed", false)) continue;
    out[{j["operator"], j["subtask"]}].insert(j["state"].get<std::string>());
  }
  return out;
}

}  // namespace

TEST_CASE("every native RocksDB snapshot restores to instances that ldb opens and that read back as dumped",
          "[corpus][ops]") {
  // For each of the corpus's incremental checkpoints and native savepoints: every subtask
  // with keyed state becomes an instance; ldb lists its column families, which include every
  // state the independent decoding found there and nothing the meta data does not name; and
  // the instances' SSTs, read through ckpt, give exactly the keyed entries of ckpt dump.
  CKPT_REQUIRE_SHARED();
  std::vector<std::string> snapshots = native_snapshots();
  CHECK(snapshots.size() >= 20);
  CKPT_REQUIRE_PROGRAM(kLdb);
  size_t instances = 0;
  for (const std::string& snapshot : snapshots) {
    INFO(snapshot);
    test::ScratchDir scratch;
    Result<RestoreReport> r = restore_fully_checked(snapshot, scratch / "out");
    REQUIRE(r.ok());
    REQUIRE_FALSE(r->instances.empty());
    CHECK(r->skipped.empty());
    auto expected = expected_keyed_states(snapshot);
    for (const RestoredInstance& i : r->instances) {
      INFO(i.directory);
      CHECK(fs::exists(i.directory + "/CURRENT"));
      std::set<std::string> cfs(i.column_families.begin(), i.column_families.end());
      for (const std::string& s : expected[{i.operator_id, i.subtask}]) CHECK(cfs.count(s) == 1);
      auto [status, out] = ldb_list(i.directory);
      INFO(out);
      CHECK(status == 0);
      for (const std::string& cf : i.column_families) CHECK(out.find(cf) != std::string::npos);
      ++instances;
    }
    std::string back = readback_snapshot(snapshot, *r, scratch / "readback");
    CHECK(dump_keyed(back) == dump_keyed(snapshot));
  }
  CHECK(instances >= snapshots.size());
}

TEST_CASE("heap and canonical snapshots restore to RocksDB instances that read back as dumped", "[corpus][ops]") {
  // Heap checkpoints, heap native savepoints, canonical savepoints and full RocksDB snapshots
  // become instances in Flink's RocksDB layout: ldb opens them, and their entries read back
  // through ckpt are the snapshot's keyed entries (as sets: heap order is a hash table's).
  // Subtasks ckpt cannot rebuild (dump's known gaps) are skipped with their reason. Building
  // an instance costs RocksDB's fsyncs, so the Flink versions where layouts changed stand for
  // all: 1.8 (first canonical), 1.15 (hashmap backend), 1.16 (serializer upgrade job), 1.20.
  CKPT_REQUIRE_SHARED();
  CKPT_REQUIRE_PROGRAM(kLdb);
  size_t restored = 0, skipped = 0;
  for (const std::string& snapshot : test::corpus_snapshots()) {
    bool sampled = false;
    for (const char* v : {"flink1.8-", "flink1.15-", "flink1.20-", "type-serializer", "rocks-db-1.12"})
      sampled |= snapshot.find(v) != std::string::npos;
    if (!sampled) continue;
    Result<Metadata> m = read_metadata_file(snapshot);
    REQUIRE(m.ok());
    if (has_native_handle(*m)) continue;
    INFO(snapshot);
    test::ScratchDir scratch;
    Result<RestoreReport> r = restore_fully_checked(snapshot, scratch / "out");
    if (!r.ok()) {
      // Nothing restorable: no keyed state, or only subtasks ckpt cannot rebuild.
      INFO(r.error().to_string());
      CHECK(r.error().code == ErrorCode::kNotFound);
      ++skipped;
      continue;
    }
    skipped += r->skipped.size();
    for (const RestoredInstance& i : r->instances) {
      auto [status, out] = ldb_list(i.directory);
      INFO(out);
      CHECK(status == 0);
    }
    // Managed keyed state only: timers of legacy raw keyed state are no column family.
    std::set<std::tuple<std::string, int32_t, std::string>> cfs;
    for (const RestoredInstance& i : r->instances)
      for (const std::string& cf : i.column_families) cfs.emplace(i.operator_id, i.subtask, cf);
    std::vector<std::string> want;
    for (const std::string& line : dump_keyed(snapshot)) {
      nlohmann::json j = nlohmann::json::parse(line);
      if (cfs.count({j["operator"], j["subtask"], j["state"]})) want.push_back(line);
    }
    std::vector<std::string> got = dump_keyed(readback_snapshot(snapshot, *r, scratch / "readback"));
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    if (r->skipped.empty()) CHECK(got == want);
    restored += r->instances.size();
  }
  CHECK(restored > 30);
  CHECK(skipped <= 10);
}

TEST_CASE("restore with --key-groups keeps exactly those key groups - copied or linked", "[corpus][ops]") {
  // A rescaled restore's clip, on a generated snapshot with 64 key groups per subtask (the
  // corpus's subtasks hold one each): the instance holds the requested key groups only, read
  // back equal to ckpt dump filtered to them, in copy and in link mode; subtasks holding none
  // of them are not written.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  test::NativeSnapshotSpec spec;
  spec.template_dir = test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint";
  spec.out = scratch / "snapshot";
  spec.bytes = 400000;
  spec.subtasks = 2;
  REQUIRE(test::write_native_snapshot(spec).ok());
  std::vector<std::string> all = dump_keyed(spec.out);
  REQUIRE(all.size() > 10000);
  for (bool link : {false, true}) {
    INFO("link " << link);
    std::string out = scratch / (link ? "linked" : "copied");
    RestoreOptions options;
    options.output = out;
    options.key_groups = std::make_pair(10, 20);
    options.link = link;
    options.full_check = link;  // entries counted by reading them, or from table properties
    Result<RestoreReport> r = restore_snapshot(spec.out, options);
    REQUIRE(r.ok());
    REQUIRE(r->instances.size() == 1);
    CHECK(r->instances[0].subtask == 0);
    CHECK(r->instances[0].key_groups == KeyGroupRange{10, 11});
    CHECK((r->instances[0].linked_files > 0) == link);
    DumpOptions filter;
    filter.key_groups = std::make_pair(10, 20);
    std::vector<std::string> want = dump_keyed(spec.out, filter);
    REQUIRE(want.size() > 1000);
    CHECK(r->instances[0].entries == want.size());
    CHECK(dump_keyed(readback_snapshot(spec.out, *r, out + "-readback")) == want);
  }
  // Unclipped and linked: every entry of both subtasks, and the snapshot's SSTs shared.
  RestoreOptions options;
  options.output = scratch / "whole";
  options.link = true;
  options.jobs = 2;
  Result<RestoreReport> r = restore_snapshot(spec.out, options);
  REQUIRE(r.ok());
  REQUIRE(r->instances.size() == 2);
  CHECK(dump_keyed(readback_snapshot(spec.out, *r, scratch / "whole-readback")) == all);
  for (const RestoredInstance& i : r->instances) {
    CHECK(i.linked_files > 0);
    for (const auto& e : fs::directory_iterator(i.directory))
      if (e.path().extension() == ".sst") CHECK(fs::hard_link_count(e.path()) == 2);
  }
}

TEST_CASE("ckpt restore refuses a non-empty output without --force - and replaces it with", "[corpus][cli]") {
  // The output appears whole or not at all; --force swaps the old content for the new.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  std::string snapshot = test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.20-rocksdb-savepoint-native";
  std::string out = scratch / "out";
  fs::create_directories(out);
  test::write_file(out + "/keep-me", "x");
  test::CliResult refused = test::run_cli({"restore", snapshot, "--output", out});
  CHECK(refused.status == 2);
  CHECK(refused.err.find("not empty") != std::string::npos);
  CHECK(fs::exists(out + "/keep-me"));
  test::CliResult forced = test::run_cli({"restore", snapshot, "--output", out, "--force", "-j", "2"});
  INFO(forced.err);
  REQUIRE(forced.status == 0);
  CHECK_FALSE(fs::exists(out + "/keep-me"));
  CHECK(forced.out.find("try: ldb --db=" + out + "/") != std::string::npos);
  test::CliResult js = test::run_cli({"restore", snapshot, "--output", scratch / "json", "--json", "--subtask", "1"});
  REQUIRE(js.status == 0);
  nlohmann::json j = nlohmann::json::parse(js.out);
  REQUIRE(j["instances"].size() >= 1);
  for (const auto& i : j["instances"]) CHECK(i["subtask"] == 1);
  // Nothing but the instances is left behind: no temporary directories beside the output.
  for (const auto& e : fs::directory_iterator(scratch.path()))
    CHECK(e.path().filename().string().find("ckpt-tmp") == std::string::npos);
}

// Every entry of every state column family of a restored instance: (family, key, value),
// processing-time timers without their time.
std::set<std::tuple<std::string, std::string, std::string>> instance_entries(const std::string& dir) {
  FlinkInstance instance;
  INFO(dir);
  REQUIRE(open_flink_instance(dir, true, instance).ok());
  std::set<std::tuple<std::string, std::string, std::string>> out;
  for (size_t i = 0; i < instance.names.size(); ++i) {
    if (instance.names[i] == "default") continue;
    std::unique_ptr<rocksdb::Iterator> it(instance.db->NewIterator(rocksdb::ReadOptions(), instance.handles[i]));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      std::string key = it->key().ToString();
      // Processing-time timers hold the wall clock of the run that registered them: two runs
      // of a job agree on the key-group prefix, key and namespace, not on the time (the 8
      // bytes after a one-byte prefix: max parallelism <= 128 in these snapshots).
      if (instance.names[i] == "_timer_state/processing_timer" && key.size() >= 9) key.erase(1, 8);
      out.emplace(instance.names[i], key, it->value().ToString());
    }
    REQUIRE(it->status().ok());
  }
  REQUIRE(instance.close().ok());
  return out;
}

TEST_CASE("a changelog checkpoint restores to the instances Flink's RocksDB checkpoint of the job restores to", "[corpus][cli]") {
  // Proves changelog handles restore (materialized part plus replayed change logs, re-framed
  // into RocksDB instances): Flink 1.17's changelog checkpoint and its RocksDB checkpoint of the
  // same job give, per operator and subtask, the same entries in the same column families. Two
  // operators store no key serializer in the changelog checkpoint: without
  // --key-serializers-from they are skipped with that reason, with it they restore too.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir scratch;
  const std::string base = test::corpus_dir() + "/new-stateful-udf-migration-itcase-flink1.17-";
  const std::string changelog = base + "hashmap-checkpoint", rocks = base + "rocksdb-checkpoint";

  test::CliResult without = test::run_cli({"restore", changelog, "--output", scratch / "partial"});
  CHECK(without.status == 0);
  CHECK(without.out.find("skipped operator") != std::string::npos);
  CHECK(without.out.find("stores no key serializer") != std::string::npos);

  RestoreOptions options;
  options.output = scratch / "changelog";
  options.jobs = 2;
  options.full_check = true;
  options.key_serializers_from = rocks;
  Result<RestoreReport> a = restore_snapshot(changelog, options);
  REQUIRE(a.ok());
  CHECK(a->skipped.empty());
  Result<RestoreReport> b = restore_fully_checked(rocks, scratch / "rocks");
  REQUIRE(b.ok());
  std::map<std::pair<std::string, int32_t>, std::string> flink;
  for (const RestoredInstance& i : b->instances) flink[{i.operator_id, i.subtask}] = i.directory;
  size_t entries = 0;
  for (const RestoredInstance& i : a->instances) {
    auto other = flink.find({i.operator_id, i.subtask});
    INFO(i.operator_id << " subtask " << i.subtask);
    REQUIRE(other != flink.end());
    auto mine = instance_entries(i.directory);
    CHECK(mine == instance_entries(other->second));
    entries += mine.size();
    flink.erase(other);
  }
  CHECK(entries == 32);
  // Flink's RocksDB backend also wrote instances for subtasks without state (timer families
  // only); the changelog checkpoint has no keyed handle there.
  for (const auto& [where, dir] : flink) {
    INFO(where.first << " subtask " << where.second);
    CHECK(instance_entries(dir).empty());
  }
}
