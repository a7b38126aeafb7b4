// ckpt edit on Flink's own snapshots: states dropped from every layout and Flink version of the
// corpus jobs, operators dropped, and ids set from the uids of flink-sql's compiled plans equal
// the ids Flink's planner gave those operators.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "ckpt/convert.h"
#include "ckpt/edit.h"
#include "ckpt/entries.h"
#include "ckpt/io.h"
#include "ckpt/metadata.h"
#include "ckpt/names.h"
#include "testlib/edit_checks.h"
#include "testlib/snapshot_metadata.h"
#include "testlib/test_support.h"
#include "testlib/dump_lines.h"

using namespace ckpt;
using test::metadata_of;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> snapshots_of(const std::string& job) {
  std::vector<std::string> out;
  for (const std::string& dir : test::corpus_snapshots())
    if (fs::path(dir).filename().string().starts_with(job + "-flink")) out.push_back(dir);
  return out;
}

// A changelog checkpoint whose logs name no key serializer for some operators, and the snapshot
// of the job that supplies them (as in convert_corpus_test).
constexpr const char* kChangelogOnly = "new-stateful-udf-migration-itcase-flink1.17-hashmap-checkpoint";
constexpr const char* kChangelogKeysFrom = "new-stateful-udf-migration-itcase-flink1.17-hashmap-savepoint";

std::string corpus_sibling(const std::string& dir, const char* name) {
  return (fs::path(dir).parent_path() / name).string();
}

// The first (operator, state) of `kind` entries ("keyed", "operator") the dump shows.
std::optional<std::pair<std::string, std::string>> first_state(const std::string& dir, const std::string& kind) {
  struct First : DumpSink {
    std::string kind;
    std::optional<std::pair<std::string, std::string>> found;
    void entry(const Entry& e) override {
      if (!found && entry_kind_name(e.kind) == kind) found = {{e.operator_id, e.state}};
    }
    void problem(const Error& e) override { FAIL(e.to_string()); }
  } sink;
  sink.kind = kind;
  REQUIRE(dump_snapshot(dir, DumpOptions{}, sink).ok());
  return sink.found;
}

// Drops the first state of `kind` of each snapshot of `job` and checks the output against it.
int drop_first_states(const std::string& job, const std::string& kind) {
  int edited = 0;
  for (const std::string& dir : snapshots_of(job)) {
    auto state = first_state(dir, kind);
    if (!state) continue;
    INFO(dir << ": " << state->first << "/" << state->second);
    test::ScratchDir tmp;
    EditOptions o;
    o.output = tmp / "out";
    o.jobs = 2;
    o.drop_states = {*state};
    if (dir.ends_with(kChangelogOnly)) o.key_serializers_from = corpus_sibling(dir, kChangelogKeysFrom);
    auto r = edit_snapshot(dir, o);
    if (!r.ok()) FAIL(r.error().to_string());
    test::ExpectedEdit e;
    e.removed = [&](const Entry& d) { return d.operator_id == state->first && d.state == state->second; };
    e.structure = {fmt::format("state-removed {} {}", state->first, state->second)};
    e.changed_states = {*state};
    // Keys the changelog source dumps as hex are decoded once rewritten: compare with the
    // source's conversion, which convert_corpus_test compares with Flink's own.
    std::string base = dir;
    if (!o.key_serializers_from.empty()) {
      ConvertOptions c;
      c.to = ConvertTarget::kHeap;
      c.output = base = tmp / "converted";
      c.key_serializers_from = o.key_serializers_from;
      REQUIRE(convert_snapshot(dir, c).ok());
    }
    size_t removed = 0;
    test::check_edit(base, o.output, e, &removed);
    CHECK(removed > 0);
    if (kind == "operator") {
      // No subtask's handle lists the state any more.
      for (const OperatorState& op : metadata_of(o.output).operators)
        for (const SubtaskState& st : op.subtasks)
          for (const OperatorHandle& h : st.managed_operator)
            for (const OperatorStateEntry& s : h.states)
              CHECK_FALSE((operator_id_hex(op.id) == state->first && s.name == state->second));
    }
    ++edited;
  }
  return edited;
}

}  // namespace

TEST_CASE("edit --drop-state removes a broadcast state from every broadcast-job snapshot", "[ops][corpus]") {
  // Every Flink version and layout: the operator-state stream is rewritten without the state's
  // meta data and elements, the other operator states read back element for element.
  CKPT_REQUIRE_SHARED();
  CHECK(drop_first_states("new-stateful-broadcast-udf-migration-itcase", "operator") >= 40);
}

TEST_CASE("edit --drop-state removes a keyed state from every udf-job snapshot", "[ops][corpus]") {
  // Heap, canonical, RocksDB native and changelog snapshots of Flink 1.8-1.20, each written
  // back in its own layout without the state.
  CKPT_REQUIRE_SHARED();
  CHECK(drop_first_states("new-stateful-udf-migration-itcase", "keyed") >= 40);
}

TEST_CASE("edit --drop-operator on corpus savepoints leaves exactly that operator out", "[ops][corpus]") {
  // Each layout of Flink 1.20's udf job: the first operator with keyed state goes, the rest stays.
  CKPT_REQUIRE_SHARED();
  int edited = 0;
  for (const std::string& dir : snapshots_of("new-stateful-udf-migration-itcase")) {
    if (dir.find("flink1.20") == std::string::npos) continue;
    auto state = first_state(dir, "keyed");
    REQUIRE(state);
    INFO(dir << ": " << state->first);
    test::ScratchDir tmp;
    EditOptions o;
    o.output = tmp / "out";
    o.drop_operators = {state->first};
    REQUIRE(edit_snapshot(dir, o).ok());
    test::ExpectedEdit e;
    e.removed = [&](const Entry& d) { return d.operator_id == state->first; };
    e.structure = {fmt::format("operator-removed {} ", state->first)};
    e.changed_states = {{state->first, "*"}};
    test::check_edit(dir, o.output, e);
    CHECK(metadata_of(o.output).operators.size() + 1 == metadata_of(dir).operators.size());
    ++edited;
  }
  CHECK(edited >= 6);
}

TEST_CASE("edit --set-uid with flink-sql plan uids gives back the ids Flink's planner wrote", "[ops][corpus][sql]") {
  // Every operator of every flink-sql savepoint is first given a raw id (--set-id), then
  // --set-uid with the uid its compiled plan names: the id is the one Flink stored, so the
  // hash is Flink's, and the state is the original's entry for entry.
  CKPT_REQUIRE_SHARED();
  size_t operators = 0;
  for (const std::string& dir : test::sql_corpus_snapshots()) {
    INFO(dir);
    OperatorNames names;
    REQUIRE(names.add_plan_file(test::sql_plan_of(dir)).ok());
    const Metadata original = metadata_of(dir);
    test::ScratchDir tmp;
    EditOptions away, back;
    away.output = tmp / "away";
    back.output = tmp / "back";
    for (size_t i = 0; i < original.operators.size(); ++i) {
      const OperatorState& op = original.operators[i];
      const std::string uid = names.uid_of(op);
      REQUIRE_FALSE(uid.empty());
      const std::string raw = fmt::format("{:032x}", i + 1);
      away.set_ids.push_back({operator_id_hex(op.id), raw});
      back.set_uids.push_back({raw, uid});
      ++operators;
    }
    REQUIRE(edit_snapshot(dir, away).ok());
    auto r = edit_snapshot(away.output, back);
    REQUIRE(r.ok());
    const Metadata edited = metadata_of(back.output);
    REQUIRE(edited.operators.size() == original.operators.size());
    for (size_t i = 0; i < original.operators.size(); ++i) {
      CHECK(edited.operators[i].id == original.operators[i].id);
      CHECK(r->changes.at(i).new_id == operator_id_hex(original.operators[i].id));
    }
    test::ExpectedEdit same;
    test::check_edit(dir, back.output, same);
  }
  CHECK(operators > 95);
}

namespace {

// An entry's operator and the key group it was found in (-1: none).
using Place = std::pair<std::string, int32_t>;

struct Placed : DumpSink {
  // entry without its place -> where it was found
  std::multimap<std::string, Place> groups;
  void entry(const Entry& e) override {
    Entry x = e;
    const int32_t kg = x.key_group.value_or(-1);
    x.key_group.reset();
    x.subtask = 0;
    groups.emplace(to_ndjson(x), Place{e.operator_id, kg});
  }
  void problem(const Error& e) override { FAIL(e.to_string()); }
};

std::multimap<std::string, Place> placed(const std::string& dir) {
  Placed sink;
  REQUIRE(dump_snapshot(dir, DumpOptions{}, sink).ok());
  return sink.groups;
}

}  // namespace

namespace {

// The key group Flink gives a SQL key, from the bytes RowDataSerializer wrote (i32 length, then
// the BinaryRowData), written here from Flink's source apart from the library's code:
// BinaryRowData#hashCode is MurmurHashUtils.hashBytesByWords (seed 42) over the row's bytes read
// as little-endian ints; KeyGroupRangeAssignment.assignToKeyGroup takes MathUtils.murmurHash of
// that, modulo the max parallelism.
int32_t sql_key_group(std::string_view raw_key, int32_t max_parallelism) {
  REQUIRE(raw_key.size() >= 4);
  const auto* b = reinterpret_cast<const unsigned char*>(raw_key.data());
  const uint32_t length = uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
  REQUIRE(length <= raw_key.size() - 4);
  REQUIRE(length % 4 == 0);
  auto mix_k1 = [](uint32_t k) {
    k *= 0xcc9e2d51u;
    k = (k << 15) | (k >> 17);
    return k * 0x1b873593u;
  };
  auto mix_h1 = [](uint32_t h, uint32_t k) {
    h ^= k;
    h = (h << 13) | (h >> 19);
    return h * 5 + 0xe6546b64u;
  };
  auto fmix = [](uint32_t h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
  };
  uint32_t h1 = 42;
  for (uint32_t i = 0; i < length; i += 4) {
    const unsigned char* w = b + 4 + i;
    h1 = mix_h1(h1, mix_k1(uint32_t{w[0]} | uint32_t{w[1]} << 8 | uint32_t{w[2]} << 16 | uint32_t{w[3]} << 24));
  }
  const int32_t code = static_cast<int32_t>(fmix(h1 ^ length));
  // MathUtils.murmurHash(int): one round on the code, fmix with length 4, made non-negative.
  int32_t m = static_cast<int32_t>(fmix(mix_h1(0, mix_k1(static_cast<uint32_t>(code))) ^ 4u));
  if (m < 0) m = m == INT32_MIN ? 0 : -m;
  return m % max_parallelism;
}

// Each SQL key's (and timer's) key group in `dir` is the one Flink gives it at its operator's
// max parallelism, in the subtask whose range holds it. Returns the entries checked.
size_t check_sql_key_groups(const std::string& dir) {
  auto reader = EntryReader::open(dir);
  REQUIRE(reader.ok());
  std::map<std::string, std::pair<int32_t, int32_t>> sizes;  // operator -> parallelism, max parallelism
  for (const OperatorState& op : (*reader)->metadata().operators)
    sizes[operator_id_hex(op.id)] = {op.parallelism, op.max_parallelism};
  size_t checked = 0;
  Status s = (*reader)->for_each([&](const Entry& e) -> Status {
    if (e.kind == EntryKind::kOperator) return Status::OK();
    INFO(dir << " " << e.operator_id << " " << e.state);
    REQUIRE(e.has_raw);
    const auto [parallelism, max_parallelism] = sizes.at(e.operator_id);
    // A managed timer's key is inside its queue element (TimerSerializer), after the timestamp.
    const bool in_element = e.raw_key.empty() && e.kind == EntryKind::kTimer && e.raw_value.size() > 8;
    const int32_t kg = sql_key_group(in_element ? e.raw_value.substr(8) : e.raw_key, max_parallelism);
    CHECK(e.key_group == kg);
    CHECK(e.subtask == static_cast<int32_t>(int64_t{kg} * parallelism / max_parallelism));
    ++checked;
    return Status::OK();
  });
  REQUIRE(s.ok());
  return checked;
}

bool has_keyed_state(const Metadata& m) {
  for (const OperatorState& op : m.operators)
    for (const SubtaskState& st : op.subtasks)
      if (!st.managed_keyed.is_null() || !st.raw_keyed.is_null()) return true;
  return false;
}

// The max parallelisms of the operators with keyed state.
std::set<int32_t> keyed_max_parallelisms(const Metadata& m) {
  std::set<int32_t> out;
  for (const OperatorState& op : m.operators)
    for (const SubtaskState& st : op.subtasks)
      if (!st.managed_keyed.is_null() || !st.raw_keyed.is_null()) out.insert(op.max_parallelism);
  return out;
}

// Every file under `dir`, by relative path, with its bytes.
std::map<std::string, std::string> snapshot_bytes_by_file(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& f : fs::recursive_directory_iterator(dir))
    if (f.is_regular_file()) {
      auto bytes = read_whole_file(f.path().string());
      REQUIRE(bytes.ok());
      out[fs::relative(f.path(), dir).string()] = std::move(bytes).value();
    }
  return out;
}

// A snapshot's files by name, but its heap and canonical keyed streams by what Flink reads of
// them: each stream's proxy and each key group's block, by operator, subtask and key group
// (`_metadata` with those streams' names and offsets left out). A regrouping to a multiple of
// the max parallelism writes key groups in the order they are regrouped (-j 2: either order).
std::map<std::string, std::string> snapshot_bytes_by_content(const std::string& dir) {
  auto files = snapshot_bytes_by_file(dir);
  auto m = read_metadata_file(dir + "/_metadata");
  REQUIRE(m.ok());
  for (OperatorState& op : m->operators)
    for (SubtaskState& st : op.subtasks) {
      KeyedHandle& h = st.managed_keyed;
      if (h.type != handle_type::kKeyGroups && h.type != handle_type::kKeyGroupsWithId &&
          h.type != handle_type::kSavepointKeyGroups)
        continue;
      auto file = files.find(h.delegate.path);
      REQUIRE(file != files.end());
      const std::string stream = std::move(file->second);
      files.erase(file);
      std::vector<uint64_t> starts;
      for (int64_t off : h.offsets)
        if (off > 0) starts.push_back(static_cast<uint64_t>(off));
      std::sort(starts.begin(), starts.end());
      const std::string where = fmt::format("{}/{}", operator_id_hex(op.id), st.index);
      files[where + "/proxy"] = stream.substr(0, starts.empty() ? stream.size() : starts.front());
      for (size_t i = 0; i < h.offsets.size(); ++i) {
        const uint64_t at = static_cast<uint64_t>(h.offsets[i]);
        if (at == 0) continue;
        auto next = std::upper_bound(starts.begin(), starts.end(), at);
        const uint64_t end = next == starts.end() ? stream.size() : *next;
        files[fmt::format("{}/key-group-{}", where, h.range.first + static_cast<int32_t>(i))] =
            stream.substr(at, end - at);
      }
      h.delegate.path = "stream";
      std::fill(h.offsets.begin(), h.offsets.end(), 0);
    }
  auto encoded = encode_metadata(*m);
  REQUIRE(encoded.ok());
  files["_metadata"] = *encoded;
  return files;
}

// `dir` taken to max parallelism 128, then 4096 (or through `steps`, every operator at once), then
// back to each operator's own max parallelism, named operator by operator (a SQL job has its
// singletons at 1 and its keyed operators at 128): at each step every key is where Flink puts it
// (SQL keys: hashed here from their bytes; every key: at a multiple of its operator's own max
// parallelism, its group modulo that is the group Flink stored it in), and the round trip dumps as
// the input and has the bytes of the snapshot rewritten at its own max parallelisms directly, in
// every layout the rewrite writes deterministically (heap and canonical key groups block by block,
// raw keyed timers; RocksDB's SSTs are compared by their entries; with `compare_bytes`). Returns the number of SQL keys
// checked.
size_t check_rescale_round_trip(const std::string& dir, bool sql, std::vector<int32_t> steps = {128, 4096},
                                bool compare_bytes = true) {
  INFO(dir);
  const Metadata m = metadata_of(dir);
  std::map<std::string, int32_t> own;  // operator -> the max parallelism Flink wrote it at
  std::vector<std::pair<std::string, int32_t>> back;
  for (const OperatorState& op : m.operators) {
    own[operator_id_hex(op.id)] = op.max_parallelism;
    back.emplace_back(operator_id_hex(op.id), op.max_parallelism);
  }
  test::ScratchDir tmp;
  size_t keys = 0;
  std::string from = dir;
  std::multimap<std::string, Place> flink;
  for (size_t step = 0; step <= steps.size(); ++step) {
    const bool last = step == steps.size();
    EditOptions o;
    o.output = tmp / fmt::format("{}-mp{}", step, last ? 0 : steps[step]);
    o.jobs = 2;
    if (last)
      o.operator_max_parallelism = back;
    else
      o.max_parallelism = steps[step];
    auto r = edit_snapshot(from, o);
    if (!r.ok()) FAIL(r.error().to_string());
    auto max_of = [&](const std::string& op) { return last ? own.at(op) : steps[step]; };
    for (const OperatorState& op : metadata_of(o.output).operators)
      CHECK(op.max_parallelism == max_of(operator_id_hex(op.id)));
    from = o.output;
    if (sql) keys += check_sql_key_groups(from);
    if (flink.empty()) flink = placed(dir);
    auto ours = placed(from);
    REQUIRE(flink.size() == ours.size());
    for (auto f = flink.begin(), g = ours.begin(); f != flink.end(); ++f, ++g) {
      REQUIRE(f->first == g->first);
      const auto& [op, kg] = f->second;
      if (kg >= 0 && max_of(op) % own.at(op) == 0) CHECK(g->second.second % own.at(op) == kg);
    }
  }
  test::check_edit(dir, from, test::ExpectedEdit{});
  if (!compare_bytes) return keys;
  EditOptions direct;
  direct.output = tmp / "direct";
  direct.operator_max_parallelism = back;
  REQUIRE(edit_snapshot(dir, direct).ok());
  const auto want = snapshot_bytes_by_content(direct.output), got = snapshot_bytes_by_content(from);
  CHECK(want.size() == got.size());
  for (const auto& [name, bytes] : want) {
    if (name.find(".sst") != std::string::npos || name.find("MANIFEST") != std::string::npos ||
        name.find("OPTIONS") != std::string::npos)
      continue;  // RocksDB stamps its files with ids and times of the writing run
    INFO(name);
    auto other = got.find(name);
    REQUIRE(other != got.end());
    CHECK(other->second == bytes);
  }
  return keys;
}

}  // namespace

TEST_CASE("edit --max-parallelism on every udf-job snapshot agrees with Flink's key groups", "[ops][corpus][slow]") {
  // Flink wrote these at max parallelism M (4 in this job). At 1024 M each key's new group
  // modulo M must be the group Flink gave it; 1024 M -> 96 -> M must give back Flink's own
  // snapshot entry for entry, key groups included, in the snapshot's own layout. Flink 1.8-1.9
  // RocksDB jobs keep their timers in raw keyed state: they move with their keys.
  CKPT_REQUIRE_SHARED();
  int edited = 0;
  for (const std::string& dir : snapshots_of("new-stateful-udf-migration-itcase")) {
    if (dir.ends_with(kChangelogOnly)) continue;  // its keys dump as hex (see above)
    const int32_t flink_max = metadata_of(dir).operators.at(0).max_parallelism;
    check_rescale_round_trip(dir, false, {1024 * flink_max, 96}, false);  // bytes: the tests below
    ++edited;
  }
  CHECK(edited >= 49);
}

TEST_CASE("edit --max-parallelism takes a sample of keyed savepoints to 128 and 4096 and back", "[ops][corpus][sql]") {
  // One snapshot of each layout and generation: heap and RocksDB of Flink 1.8 (its timers in
  // raw keyed state, moved with their keys), heap, native and incremental RocksDB of 1.20, and
  // SQL jobs with RowData keys (an aggregate with timers, a join). The whole corpus: the
  // [large] test below.
  CKPT_REQUIRE_SHARED();
  const std::string flink = test::corpus_dir();
  for (const char* name : {"new-stateful-udf-migration-itcase-flink1.8-rocksdb-savepoint",
                           "new-stateful-udf-migration-itcase-flink1.8-savepoint",
                           "new-stateful-udf-migration-itcase-flink1.20-hashmap-savepoint",
                           "new-stateful-udf-migration-itcase-flink1.20-rocksdb-savepoint-native",
                           "new-stateful-udf-migration-itcase-flink1.20-rocksdb-checkpoint"})
    check_rescale_round_trip(flink + "/" + name, false);
  size_t keys = 0;
  for (const char* name : {"stream-exec-group-aggregate_1/agg-with-state-ttl-hint/savepoint",
                           "stream-exec-join_1/join-with-state-ttl-hint/savepoint"})
    keys += check_rescale_round_trip(test::sql_corpus_dir() + "/" + name, true);
  CHECK(keys > 0);
}

TEST_CASE("edit --max-parallelism gives each operator of a SQL savepoint its own max parallelism back",
          "[ops][corpus][sql]") {
  // A window rank job: its keyed operators are at max parallelism 1 (a global window rank) and
  // 128. All at 128, then 4096, then each operator named with its own: Flink's key groups at
  // every step, and the input again, byte for byte as rewritten directly.
  CKPT_REQUIRE_SHARED();
  const std::string dir =
      test::sql_corpus_dir() + "/stream-exec-window-rank_1/window-rank-tumble-tvf-agg-max-top-n/savepoint";
  CHECK(keyed_max_parallelisms(metadata_of(dir)) == std::set<int32_t>{1, 128});
  CHECK(check_rescale_round_trip(dir, true) > 0);
}

TEST_CASE("edit --max-parallelism takes every keyed corpus snapshot to 128 and 4096 and back",
          "[ops][corpus][sql][large]") {
  // Every snapshot with keyed state of flink/ (but the changelog checkpoint whose keys need
  // another snapshot's serializers) and every flink-sql savepoint, as the sample above, those
  // whose keyed operators have two max parallelisms (1 and 128) included.
  CKPT_REQUIRE_SHARED();
  int edited = 0;
  for (const std::string& dir : test::corpus_snapshots()) {
    if (dir.ends_with(kChangelogOnly) || !has_keyed_state(metadata_of(dir))) continue;
    check_rescale_round_trip(dir, false);
    ++edited;
  }
  CHECK(edited >= 90);
  size_t keys = 0;
  int sql = 0, mixed = 0;
  for (const std::string& dir : test::sql_corpus_snapshots()) {
    if (!has_keyed_state(metadata_of(dir))) continue;
    keys += check_rescale_round_trip(dir, true);
    ++sql;
    mixed += keyed_max_parallelisms(metadata_of(dir)).size() > 1;
  }
  CHECK(sql >= 58);
  CHECK(mixed >= 2);
  CHECK(keys > 400);
}

namespace {

// f(entry) for every entry of `sp`'s dump.
void for_each_dumped_entry(const std::string& sp, const std::function<void(const Entry&)>& f) {
  struct All : DumpSink {
    const std::function<void(const Entry&)>* f;
    void entry(const Entry& e) override { (*f)(e); }
    void problem(const Error& e) override { FAIL(e.to_string()); }
  } all;
  all.f = &f;
  REQUIRE(dump_snapshot(sp, DumpOptions{}, all).ok());
}

// Runs an expiring edit of `sp` into a scratch output and checks it (ckpt::test::check_edit):
// exactly the entries `expired` says are gone, each change is an expiry of a state whose
// entries may differ, and the changes' counts add up to what went. Returns that number.
size_t check_expiry(const std::string& sp, EditOptions o, const std::function<bool(const Entry&)>& expired) {
  test::ScratchDir tmp;
  o.output = tmp / "out";
  auto r = edit_snapshot(sp, o);
  if (!r.ok()) FAIL(r.error().to_string());
  test::ExpectedEdit e;
  e.removed = expired;
  for (const EditChange& ch : r->changes) {
    CHECK(ch.what == "expire");
    e.changed_states.insert({ch.operator_id, ch.state});
  }
  size_t removed = 0;
  test::check_edit(sp, o.output, e, &removed);
  uint64_t counted = 0;
  for (const EditChange& ch : r->changes) counted += ch.entries;
  CHECK(counted == removed);
  return removed;
}

}  // namespace

TEST_CASE("edit --expire on flink-sql TTL savepoints drops what Flink's TTL cleanup would", "[ops][corpus][sql]") {
  // The aggregate's accState and the join's left and right records, values of Flink's
  // TtlSerializer: at now = newest last access + ttl every entry is expired (the equal edge),
  // one ms earlier the newest stays; the output dumps as the input without exactly the entries
  // whose last access + ttl <= now.
  CKPT_REQUIRE_SHARED();
  struct Case {
    const char* savepoint;
    std::vector<std::string> states;
  };
  const std::vector<Case> cases = {
      {"stream-exec-group-aggregate_1/agg-with-state-ttl-hint/savepoint", {"accState"}},
      {"stream-exec-join_1/join-with-state-ttl-hint/savepoint", {"left-records", "right-records"}},
  };
  const int64_t ttl = 10'000;
  for (const Case& c : cases) {
    const std::string sp = test::sql_corpus_dir() + "/" + c.savepoint;
    INFO(sp);
    std::set<std::string> names(c.states.begin(), c.states.end());
    auto last_access = [&](const Entry& e) -> std::optional<int64_t> {
      if (!names.count(e.state)) return std::nullopt;
      return nlohmann::json::parse(e.value.json()).at("ttl_ts").get<int64_t>();
    };
    int64_t newest = 0;
    for_each_dumped_entry(sp, [&](const Entry& e) {
      if (auto ts = last_access(e)) newest = std::max(newest, *ts);
    });
    REQUIRE(newest > 0);
    for (int64_t now : {newest + ttl, newest + ttl - 1}) {
      EditOptions o;
      for (const std::string& s : c.states) o.expire.push_back({s, ttl});
      o.now = now;
      size_t removed = check_expiry(sp, o, [&](const Entry& d) {
        auto ts = last_access(d);
        return ts && *ts + ttl <= now;
      });
      CHECK(removed > 0);
    }
  }
}

TEST_CASE("edit --plan expires each flink-sql state by the TTL its node's compiled plan gives", "[ops][corpus][sql]") {
  // The plans say "1 s" for the aggregate and "1 d" (left) and "4 d" (right) for the join: at
  // now = the oldest last access of a state + its TTL (the equal edge) that state's oldest
  // entries go and nothing of a state with a longer TTL does; then at newest + 4 d all of them.
  // The output dumps as the input without exactly the entries whose last access + their own
  // state's TTL <= now, and no state of the plan's other nodes ("0 ms": no TTL) changes.
  CKPT_REQUIRE_SHARED();
  struct Case {
    const char* dir;
    std::map<std::string, int64_t> ttls;  // what the plan file says, in ms
  };
  const std::vector<Case> cases = {
      {"stream-exec-group-aggregate_1/agg-with-state-ttl-hint", {{"accState", 1000}}},
      {"stream-exec-join_1/join-with-state-ttl-hint", {{"left-records", 86'400'000}, {"right-records", 4 * 86'400'000LL}}},
  };
  for (const Case& c : cases) {
    const std::string dir = test::sql_corpus_dir() + "/" + c.dir;
    const std::string sp = dir + "/savepoint";
    std::string plan;
    for (const auto& f : fs::directory_iterator(dir + "/plan")) plan = f.path().string();
    INFO(sp);
    auto last_access = [&](const Entry& e) -> std::optional<std::pair<int64_t, int64_t>> {
      auto ttl = c.ttls.find(e.state);
      if (ttl == c.ttls.end()) return std::nullopt;
      return std::make_pair(nlohmann::json::parse(e.value.json()).at("ttl_ts").get<int64_t>(), ttl->second);
    };
    int64_t first_due = INT64_MAX, last_due = 0;  // min and max of last access + ttl
    for_each_dumped_entry(sp, [&](const Entry& e) {
      if (auto a = last_access(e)) {
        first_due = std::min(first_due, a->first + a->second);
        last_due = std::max(last_due, a->first + a->second);
      }
    });
    REQUIRE(last_due > 0);
    for (int64_t now : {first_due, last_due, first_due - 1}) {
      EditOptions o;
      o.plan = plan;
      o.now = now;
      size_t removed = check_expiry(sp, o, [&](const Entry& d) {
        auto a = last_access(d);
        return a && a->first + a->second <= now;
      });
      if (now == first_due - 1) CHECK(removed == 0);
      else CHECK(removed > 0);
    }
  }
}

TEST_CASE("edit --plan refuses a plan that names no operator of the snapshot and needs --now", "[ops][corpus][sql]") {
  CKPT_REQUIRE_SHARED();
  const std::string agg = test::sql_corpus_dir() + "/stream-exec-group-aggregate_1/agg-with-state-ttl-hint";
  const std::string join = test::sql_corpus_dir() + "/stream-exec-join_1/join-with-state-ttl-hint";
  test::ScratchDir tmp;
  EditOptions o;
  o.output = tmp / "out";
  o.plan = agg + "/plan/agg-with-state-ttl-hint.json";
  auto no_now = edit_snapshot(join + "/savepoint", o);
  REQUIRE_FALSE(no_now.ok());
  CHECK(no_now.error().message.find("--plan needs --now") != std::string::npos);
  o.now = 0;
  auto other = edit_snapshot(join + "/savepoint", o);
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().message.find("names no operator of the snapshot") != std::string::npos);
  CHECK_FALSE(fs::exists(tmp / "out"));
}

TEST_CASE("edit --delete-keys erases a key's values and timers from every udf-job snapshot", "[ops][corpus]") {
  // Key [3] (a Tuple1<Long>) in every operator: its value states and its processing- and
  // event-time timers go, in every Flink version and layout; [42] matches nothing and is listed.
  // Snapshots whose timers are raw keyed state (Flink 1.8-1.9 RocksDB) are refused whole.
  CKPT_REQUIRE_SHARED();
  int edited = 0, with_timers = 0;
  for (const std::string& dir : snapshots_of("new-stateful-udf-migration-itcase")) {
    if (dir.ends_with(kChangelogOnly)) continue;  // its keys dump as hex (see above)
    INFO(dir);
    test::ScratchDir tmp;
    EditOptions o;
    o.output = tmp / "out";
    o.jobs = 2;
    o.delete_keys = test::keys_of({"[3]", "[42]"});
    bool raw_keyed = false;
    for (const OperatorState& op : metadata_of(dir).operators)
      for (const SubtaskState& st : op.subtasks) raw_keyed |= !st.raw_keyed.is_null();
    if (raw_keyed) {
      // Timers kept in raw keyed state: refused rather than erased in part.
      auto refused = edit_snapshot(dir, o);
      REQUIRE_FALSE(refused.ok());
      CHECK(refused.error().to_string().find("from which keys cannot be erased") != std::string::npos);
      CHECK_FALSE(fs::exists(o.output));
      ++edited;
      continue;
    }
    auto r = edit_snapshot(dir, o);
    if (!r.ok()) FAIL(r.error().to_string());
    CHECK(r->unmatched_keys == test::keys_of({"[42]"}));
    test::ExpectedEdit e;
    e.removed = [](const Entry& d) { return test::json_of(d.key) == "[3]"; };
    for (const EditSummary::KeysErased& k : r->erased) {
      e.changed_states.insert({k.operator_id, k.state});
      with_timers += k.state.starts_with("_timer_state/");
    }
    size_t removed = 0;
    test::check_edit(dir, o.output, e, &removed);
    CHECK(removed > 0);
    ++edited;
  }
  CHECK(edited >= 40);
  CHECK(with_timers > 20);
}
