// ckpt convert on Flink's own snapshots: converted state equals what Flink itself wrote for the
// other backend (entries, handle kinds, state meta data), round trips keep every snapshot's
// logical state, and RocksDB's own tools read what was written.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ckpt/convert.h"
#include "ckpt/dump.h"
#include "ckpt/metadata.h"
#include "ckpt/resolve.h"
#include "state/raw_keyed_reader.h"
#include "state/rocksdb/rocks_instance_writer.h"
#include "testlib/snapshot_metadata.h"
#include "testlib/test_support.h"

using namespace ckpt;
using test::metadata_of;
namespace fs = std::filesystem;

namespace {

// Snapshots that cannot be converted, and why; each must keep failing this way.
const std::map<std::string, std::string> kUnconvertible = {};

// Changelog checkpoints whose logs name no key serializer for some operators (no materialized
// part, no timers: Flink's restore takes it from the job), and the snapshot of the same job
// that supplies them. Their dumps show those keys as hex.
const std::map<std::string, std::string> kKeySerializersFrom = {
    {"new-stateful-udf-migration-itcase-flink1.17-hashmap-checkpoint",
     "new-stateful-udf-migration-itcase-flink1.17-hashmap-savepoint"},
};

struct ComparableLines : DumpSink {
  std::multiset<std::string> lines;
  bool skip_processing_timers = false;
  void entry(const Entry& e) override {
    // Processing-time timers hold the wall clock of the run that wrote them: they differ
    // between Flink's runs of one job on two backends.
    if (skip_processing_timers && e.state.find("_timer_state/processing") == 0) return;
    lines.insert(to_ndjson(e));
  }
  void problem(const Error& e) override { FAIL(e.to_string()); }
};

std::multiset<std::string> comparable_dump_lines(const std::string& snapshot, bool skip_processing = false) {
  ComparableLines sink;
  sink.skip_processing_timers = skip_processing;
  DumpOptions o;
  o.jobs = 2;
  auto r = dump_snapshot(snapshot, o, sink);
  INFO(snapshot);
  REQUIRE(r.ok());
  return sink.lines;
}

std::string corpus(const std::string& name) { return test::corpus_dir() + "/" + name; }
bool exists(const std::string& name) { return fs::exists(corpus(name) + "/_metadata"); }

Result<ConvertSummary> convert(const std::string& in, ConvertTarget to, const std::string& out) {
  ConvertOptions o;
  o.to = to;
  o.output = out;
  o.jobs = 2;
  auto keys = kKeySerializersFrom.find(fs::path(in).filename().string());
  if (keys != kKeySerializersFrom.end()) o.key_serializers_from = corpus(keys->second);
  return convert_snapshot(in, o);
}

// state name -> (backend type, options, serializer classes): what a backend's proxy says about
// a state, without the order (heap and RocksDB list states differently).
using StateFacts = std::map<std::string, std::string>;

StateFacts proxy_facts(const std::string& dir, const KeyedHandle& h, int32_t max_parallelism) {
  auto where = locate_snapshot(dir);
  REQUIRE(where.ok());
  auto source = open_raw_keyed(h, StreamOpener::for_snapshot(*where, {}), max_parallelism);
  INFO(dir);
  REQUIRE(source.ok());
  StateFacts facts;
  for (const StateMetaInfo& s : source->meta.states) {
    std::string f = fmt::format("type {}", s.backend_type);
    for (const auto& [k, v] : s.options) f += fmt::format(" {}={}", k, v);
    for (const auto& [role, snap] : s.serializers) f += fmt::format(" {}:{}", role, snap.snapshot_class);
    facts[s.name] = f;
  }
  return facts;
}

// Per operator and subtask: our handle's type equals Flink's, and both proxies describe the
// same states the same way.
void same_kinds_and_meta(const std::string& ours, const std::string& flinks, bool compare_types) {
  Metadata a = metadata_of(ours), b = metadata_of(flinks);
  REQUIRE(a.operators.size() == b.operators.size());
  for (size_t i = 0; i < a.operators.size(); ++i) {
    const OperatorState& oa = a.operators[i];
    auto ob = std::find_if(b.operators.begin(), b.operators.end(), [&](const OperatorState& o) { return o.id == oa.id; });
    REQUIRE(ob != b.operators.end());
    for (const SubtaskState& sa : oa.subtasks) {
      // Two runs of a job may record different subtasks (finished sources): match by index.
      auto sb = std::find_if(ob->subtasks.begin(), ob->subtasks.end(),
                             [&](const SubtaskState& x) { return x.index == sa.index; });
      INFO(ours << " operator " << operator_id_hex(oa.id) << " subtask " << sa.index);
      if (sb == ob->subtasks.end()) {
        CHECK(sa.managed_keyed.is_null());
        continue;
      }
      const KeyedHandle& ka = sa.managed_keyed;
      const KeyedHandle& kb = sb->managed_keyed;
      if (ka.is_null() != kb.is_null()) {
        // Only allowed where Flink's heap backend lists untouched timer queues that its RocksDB
        // backend does not write at all (the dump comparison shows there are no entries).
        const bool ours_null = ka.is_null();
        const std::string& dir = ours_null ? flinks : ours;
        const OperatorState& op = ours_null ? *ob : oa;
        for (const auto& [name, facts] : proxy_facts(dir, ours_null ? kb : ka, op.max_parallelism))
          CHECK(name.starts_with("_timer_state/"));
        continue;
      }
      if (ka.is_null()) continue;
      if (compare_types) CHECK(int(ka.type) == int(kb.type));
      CHECK(ka.range == kb.range);
      CHECK(proxy_facts(ours, ka, oa.max_parallelism) == proxy_facts(flinks, kb, ob->max_parallelism));
    }
  }
}

const char* kJobs[] = {"new-stateful-udf-migration-itcase", "new-stateful-broadcast-udf-migration-itcase",
                       "type-serializer-snapshot-migration-itcase"};
const char* kVersions[] = {"1.15", "1.16", "1.17", "1.18", "1.19", "1.20"};

// Converts `from` to `to` and checks it against Flink's snapshot `expected` of the same job.
void against_flink(const std::string& from, ConvertTarget to, const std::string& expected, bool compare_types) {
  if (!exists(from) || !exists(expected)) return;
  test::ScratchDir tmp;
  auto r = convert(corpus(from), to, tmp / "out");
  if (kUnconvertible.count(from)) {
    INFO(from);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find(kUnconvertible.at(from)) != std::string::npos);
    return;
  }
  INFO(from << " -> " << convert_target_name(to) << " vs " << expected);
  REQUIRE(r.ok());
  CHECK(comparable_dump_lines(tmp / "out", true) == comparable_dump_lines(corpus(expected), true));
  same_kinds_and_meta(tmp / "out", corpus(expected), compare_types);
}

}  // namespace

TEST_CASE("heap checkpoints converted to rocksdb equal Flink's own rocksdb checkpoints", "[corpus][ops]") {
  // For every job and version with both, the converted state dumps as Flink's RocksDB
  // checkpoint does (processing-time timers aside), with incremental handles where Flink wrote
  // them and the same state meta data.
  CKPT_REQUIRE_SHARED();
  int compared = 0;
  for (const char* job : kJobs)
    for (const char* v : kVersions) {
      std::string heap = fmt::format("{}-flink{}-hashmap-checkpoint", job, v);
      std::string rocks = fmt::format("{}-flink{}-rocksdb-checkpoint", job, v);
      if (!exists(heap) || !exists(rocks)) continue;
      // Flink 1.15 wrote a full (canonical layout) RocksDB checkpoint: its handle type differs.
      against_flink(heap, ConvertTarget::kRocksDb, rocks, std::string(v) != "1.15");
      ++compared;
    }
  CHECK(compared >= 12);
}

TEST_CASE("rocksdb checkpoints converted to heap equal Flink's own heap checkpoints", "[corpus][ops]") {
  // The other direction: key-groups handles with ids as Flink's heap checkpoints have, same
  // entries, same state meta data.
  CKPT_REQUIRE_SHARED();
  int compared = 0;
  for (const char* job : kJobs)
    for (const char* v : kVersions) {
      std::string heap = fmt::format("{}-flink{}-hashmap-checkpoint", job, v);
      std::string rocks = fmt::format("{}-flink{}-rocksdb-checkpoint", job, v);
      // A changelog checkpoint is not the heap layout Flink's heap backend writes otherwise.
      if (!exists(heap) || !exists(rocks) || kUnconvertible.count(heap) || kKeySerializersFrom.count(heap)) continue;
      against_flink(rocks, ConvertTarget::kHeap, heap, true);
      ++compared;
    }
  CHECK(compared >= 11);
}

TEST_CASE("heap and rocksdb snapshots converted to canonical equal Flink's canonical savepoints", "[corpus][ops]") {
  // Both backends' checkpoints become canonical savepoints (type 7 handles) equal to the
  // canonical savepoints Flink took of the same job with either backend.
  CKPT_REQUIRE_SHARED();
  int compared = 0;
  for (const char* job : kJobs)
    for (const char* v : kVersions)
      for (const char* backend : {"hashmap", "rocksdb"}) {
        std::string from = fmt::format("{}-flink{}-{}-checkpoint", job, v, backend);
        std::string expected = fmt::format("{}-flink{}-{}-savepoint", job, v, backend);
        if (!exists(from) || !exists(expected)) continue;
        against_flink(from, ConvertTarget::kCanonical, expected, true);
        ++compared;
      }
  CHECK(compared >= 24);
}

namespace {

// Flink's minor version in a corpus directory name ("...-flink1.16-..." -> 16).
int minor_version(const std::string& name) {
  size_t at = name.find("-flink1.");
  return at == std::string::npos ? 0 : std::atoi(name.c_str() + at + 8);
}

// Converts every convertible corpus snapshot of `job` written by Flink 1.[from..to] through
// `first` then `second` and checks that the result dumps exactly as the original.
void round_trips(const std::string& job, int from, int to, ConvertTarget first, ConvertTarget second,
                 int at_least = 10) {
  int checked = 0;
  for (const std::string& dir : test::corpus_snapshots()) {
    std::string name = fs::path(dir).filename().string();
    if (!name.starts_with(job + "-flink") || kUnconvertible.count(name)) continue;
    if (minor_version(name) < from || minor_version(name) > to) continue;
    auto original = comparable_dump_lines(dir);
    test::ScratchDir tmp;
    INFO(name << " via " << convert_target_name(first) << " to " << convert_target_name(second));
    REQUIRE(convert(dir, first, tmp / "a").ok());
    if (kKeySerializersFrom.count(name)) {
      // Keys the source dumps as hex are decoded once converted (the test below compares its
      // conversion with Flink's): the trip must keep the converted state.
      auto converted = comparable_dump_lines(tmp / "a");
      CHECK(converted.size() == original.size());
      original = converted;
    }
    REQUIRE(convert(tmp / "a", second, tmp / "b").ok());
    CHECK(comparable_dump_lines(tmp / "b") == original);
    ++checked;
  }
  CHECK(checked >= at_least);
}

}  // namespace

// Whatever the source layout (heap, canonical, native RocksDB, any Flink version), going
// through the other backend and back dumps exactly as the original. Split by job, direction
// and Flink version so that each test stays well under a minute (every RocksDB instance costs
// RocksDB's own fsyncs).
TEST_CASE("udf job on Flink 1.8-1.15: heap -> rocksdb -> heap keeps every snapshot's logical state", "[corpus][ops]") {
  // Every snapshot of the udf job from Flink 1.8-1.15 survives the trip.
  CKPT_REQUIRE_SHARED();
  round_trips("new-stateful-udf-migration-itcase", 8, 15, ConvertTarget::kRocksDb, ConvertTarget::kHeap);
}

TEST_CASE("udf job on Flink 1.16-1.20: heap -> rocksdb -> heap keeps every snapshot's logical state", "[corpus][ops]") {
  // Every snapshot of the udf job from Flink 1.16-1.20 survives the trip.
  CKPT_REQUIRE_SHARED();
  round_trips("new-stateful-udf-migration-itcase", 16, 20, ConvertTarget::kRocksDb, ConvertTarget::kHeap);
}

TEST_CASE("udf job on Flink 1.8-1.15: rocksdb -> heap -> rocksdb keeps every snapshot's logical state", "[corpus][ops]") {
  // Every snapshot of the udf job from Flink 1.8-1.15 survives the trip.
  CKPT_REQUIRE_SHARED();
  round_trips("new-stateful-udf-migration-itcase", 8, 15, ConvertTarget::kHeap, ConvertTarget::kRocksDb);
}

TEST_CASE("udf job on Flink 1.16-1.20: rocksdb -> heap -> rocksdb keeps every snapshot's logical state", "[corpus][ops]") {
  // Every snapshot of the udf job from Flink 1.16-1.20 survives the trip.
  CKPT_REQUIRE_SHARED();
  round_trips("new-stateful-udf-migration-itcase", 16, 20, ConvertTarget::kHeap, ConvertTarget::kRocksDb);
}

TEST_CASE("broadcast job on Flink 1.8-1.15: heap -> rocksdb -> heap keeps every snapshot's logical state", "[corpus][ops]") {
  // Every snapshot of the broadcast job from Flink 1.8-1.15 survives the trip.
  CKPT_REQUIRE_SHARED();
  round_trips("new-stateful-broadcast-udf-migration-itcase", 8, 15, ConvertTarget::kRocksDb, ConvertTarget::kHeap);
}

TEST_CASE("broadcast job on Flink 1.16-1.20: heap -> rocksdb -> heap keeps every snapshot's logical state", "[corpus][ops]") {
  // Every snapshot of the broadcast job from Flink 1.16-1.20 survives the trip.
  CKPT_REQUIRE_SHARED();
  round_trips("new-stateful-broadcast-udf-migration-itcase", 16, 20, ConvertTarget::kRocksDb, ConvertTarget::kHeap);
}

TEST_CASE("broadcast job on Flink 1.8-1.15: rocksdb -> heap -> rocksdb keeps every snapshot's logical state", "[corpus][ops]") {
  // Every snapshot of the broadcast job from Flink 1.8-1.15 survives the trip.
  CKPT_REQUIRE_SHARED();
  round_trips("new-stateful-broadcast-udf-migration-itcase", 8, 15, ConvertTarget::kHeap, ConvertTarget::kRocksDb);
}

TEST_CASE("broadcast job on Flink 1.16-1.20: rocksdb -> heap -> rocksdb keeps every snapshot's logical state", "[corpus][ops]") {
  // Every snapshot of the broadcast job from Flink 1.16-1.20 survives the trip.
  CKPT_REQUIRE_SHARED();
  round_trips("new-stateful-broadcast-udf-migration-itcase", 16, 20, ConvertTarget::kHeap, ConvertTarget::kRocksDb);
}

TEST_CASE("type-serializer job: heap -> rocksdb -> heap and back keep every variant's logical state", "[corpus][ops]") {
  // Values of a job-defined serializer survive both trips byte for byte in all six variants:
  // their heap lengths are inferred, and RocksDB's and the heap writer's framing keep them.
  CKPT_REQUIRE_SHARED();
  round_trips("type-serializer-snapshot-migration-itcase", 16, 16, ConvertTarget::kRocksDb, ConvertTarget::kHeap, 6);
  round_trips("type-serializer-snapshot-migration-itcase", 16, 16, ConvertTarget::kHeap, ConvertTarget::kRocksDb, 6);
}

TEST_CASE("type-serializer job: its heap snapshots convert to what Flink wrote for rocksdb and canonical", "[corpus][ops]") {
  // The heap checkpoint and heap native savepoint, whose values need the job's classes, become
  // RocksDB snapshots equal to Flink's RocksDB checkpoint and native savepoint, and canonical
  // savepoints equal to the canonical savepoints Flink took with either backend.
  CKPT_REQUIRE_SHARED();
  const std::string job = "type-serializer-snapshot-migration-itcase-flink1.16-";
  REQUIRE(exists(job + "hashmap-checkpoint"));
  int compared = 0;
  for (const char* heap : {"hashmap-checkpoint", "hashmap-savepoint-native"}) {
    for (const char* rocks : {"rocksdb-checkpoint", "rocksdb-savepoint-native"}) {
      against_flink(job + heap, ConvertTarget::kRocksDb, job + rocks, true);
      ++compared;
    }
    for (const char* canonical : {"hashmap-savepoint", "rocksdb-savepoint"}) {
      against_flink(job + heap, ConvertTarget::kCanonical, job + canonical, true);
      ++compared;
    }
  }
  CHECK(compared == 8);
}

TEST_CASE("a changelog checkpoint converts to each backend as the state its change logs replay to", "[corpus][ops]") {
  // Flink 1.17's changelog checkpoint (change logs only) becomes rocksdb, heap and canonical
  // snapshots without changelog handles that dump alike; every entry the source dumps with a
  // decoded key is among them, and the rest (keys the logs cannot name) match in number.
  // Without a snapshot supplying the missing key serializers it is refused, naming why.
  CKPT_REQUIRE_SHARED();
  const std::string name = "new-stateful-udf-migration-itcase-flink1.17-hashmap-checkpoint";
  REQUIRE(exists(name));
  auto source = comparable_dump_lines(corpus(name));
  std::multiset<std::string> decoded;
  size_t hex_keys = 0;
  for (const std::string& l : source) {
    if (l.find("changelog without key serializer snapshot") != std::string::npos) ++hex_keys;
    else decoded.insert(l);
  }
  CHECK(hex_keys == 8);  // the two flat-map operators' value states
  test::ScratchDir tmp;
  std::multiset<std::string> first;
  for (ConvertTarget to : {ConvertTarget::kRocksDb, ConvertTarget::kHeap, ConvertTarget::kCanonical}) {
    const std::string out = tmp / convert_target_name(to);
    INFO(convert_target_name(to));
    REQUIRE(convert(corpus(name), to, out).ok());
    auto lines = comparable_dump_lines(out);
    CHECK(lines.size() == source.size());
    CHECK(std::includes(lines.begin(), lines.end(), decoded.begin(), decoded.end()));
    if (first.empty()) first = lines;
    CHECK(lines == first);
    for (const OperatorState& op : metadata_of(out).operators)
      for (const SubtaskState& st : op.subtasks) {
        CHECK(st.managed_keyed.type != handle_type::kChangelogBackend);
        CHECK(st.managed_keyed.non_materialized.empty());
      }
  }
  ConvertOptions o;
  o.to = ConvertTarget::kRocksDb;
  o.output = tmp / "refused";
  auto refused = convert_snapshot(corpus(name), o);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::kNotSupported);
  CHECK(refused.error().message.find("stores no key serializer snapshot") != std::string::npos);
}

TEST_CASE("ldb scans every written instance and sst_dump reads every written sst", "[corpus][ops]") {
  // RocksDB's own tools accept the converted instances: every column family scans with ldb,
  // every SST reads with sst_dump, and the family names are the operator's state names.
  CKPT_REQUIRE_SHARED();
  CKPT_REQUIRE_PROGRAM("/usr/bin/ldb");
  CKPT_REQUIRE_PROGRAM("/usr/bin/sst_dump");
  test::ScratchDir tmp;
  REQUIRE(convert(corpus("new-stateful-udf-migration-itcase-flink1.20-hashmap-checkpoint"), ConvertTarget::kRocksDb,
                  tmp / "out")
              .ok());
  Metadata m = metadata_of(tmp / "out");
  int instances = 0, ssts = 0;
  for (const OperatorState& op : m.operators)
    for (const SubtaskState& st : op.subtasks) {
      if (st.managed_keyed.type != handle_type::kIncremental) continue;
      std::string dir = tmp / fmt::format("out/rocksdb-{}-{}", operator_id_hex(op.id), st.index);
      auto facts = proxy_facts(tmp / "out", st.managed_keyed, op.max_parallelism);
      std::string out = tmp / "ldb.txt";
      for (const auto& [state, unused] : facts) {
        std::string cmd = fmt::format("/usr/bin/ldb --db='{}' --column_family='{}' scan --hex > '{}' 2>&1", dir, state, out);
        INFO(cmd << "\n" << test::read_file(out));
        REQUIRE(std::system(cmd.c_str()) == 0);
        CHECK(test::read_file(out).find("Failed") == std::string::npos);
      }
      ++instances;
      for (const NamedStream& f : st.managed_keyed.private_files) {
        if (f.name.size() < 4 || f.name.substr(f.name.size() - 4) != ".sst") continue;
        std::string cmd = fmt::format("/usr/bin/sst_dump --file='{}/{}' --command=scan > '{}' 2>&1", dir, f.name, out);
        INFO(cmd << "\n" << test::read_file(out));
        REQUIRE(std::system(cmd.c_str()) == 0);
        CHECK(test::read_file(out).find("Corruption") == std::string::npos);
        ++ssts;
      }
    }
  CHECK(instances >= 10);
  CHECK(ssts >= 10);
}

TEST_CASE("a failed conversion leaves nothing behind and a non-empty output is refused", "[corpus][ops]") {
  // The output appears atomically: an unconvertible input leaves no directory, and an existing
  // non-empty output directory is refused before anything is read.
  CKPT_REQUIRE_SHARED();
  test::ScratchDir tmp;
  ConvertOptions no_keys;  // without the snapshot that supplies its missing key serializers
  no_keys.to = ConvertTarget::kRocksDb;
  no_keys.output = tmp / "out";
  auto bad = convert_snapshot(corpus("new-stateful-udf-migration-itcase-flink1.17-hashmap-checkpoint"), no_keys);
  REQUIRE_FALSE(bad.ok());
  CHECK_FALSE(fs::exists(tmp / "out"));
  for (const auto& e : fs::directory_iterator(tmp.path())) FAIL("left behind: " << e.path());
  fs::create_directories(tmp / "full");
  test::write_file(tmp / "full/x", "x");
  auto refused = convert(corpus("new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint"),
                         ConvertTarget::kHeap, tmp / "full");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::kInvalidArgument);
}
