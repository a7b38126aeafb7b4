// The public entry iterator (ckpt/entries.h): typed values, the entries' bytes, the selection,
// errors as values; and that it and `ckpt dump` see the same entries.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ckpt/dump.h"
#include "ckpt/entries.h"
#include "ckpt/generate.h"
#include "testlib/test_support.h"
#include "testlib/dump_lines.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

int64_t be64(const std::string& b) {
  REQUIRE(b.size() == 8);
  uint64_t v = 0;
  for (unsigned char c : b) v = (v << 8) | c;
  return static_cast<int64_t>(v);
}

std::vector<Entry> all_entries(const std::string& snapshot, const EntryReaderOptions& options = {}) {
  auto reader = EntryReader::open(snapshot, options);
  REQUIRE(reader.ok());
  std::vector<Entry> out;
  Status s = (*reader)->for_each([&](const Entry& e) -> Status {
    out.push_back(e);
    return Status::OK();
  });
  REQUIRE(s.ok());
  return out;
}

// The NDJSON line `ckpt dump` prints for `e`, rendered from its Values.
std::string line_of(const Entry& e) { return to_ndjson(e); }

// The lines the dump's workers render from the decoders' text (not through Entry): what the
// iterator's entries must print the same as.
std::vector<std::string> ordered_dump_lines(const std::string& snapshot) {
  DumpOptions o;
  o.jobs = 2;
  return test::dump_lines(snapshot, o);
}

}  // namespace

TEST_CASE("the entry iterator gives the sample savepoint's entries as typed values and bytes", "[ops][entries]") {
  std::vector<Entry> entries = all_entries(test::sample_savepoint_dir());
  REQUIRE(entries.size() == 11);
  // Operator state first: the source's three Long offsets.
  for (size_t i = 0; i < 3; ++i) {
    const Entry& e = entries[i];
    CHECK(e.operator_id == "bc764cd8ddf7a0cff126f51c16239658");
    CHECK(e.kind == EntryKind::kOperator);
    CHECK(e.state == "source-offsets");
    CHECK_FALSE(e.key_group);
    CHECK_FALSE(e.key);
    CHECK(e.value.kind() == Value::Kind::kInt);
    REQUIRE(e.has_raw);
    CHECK(be64(e.raw_value) == e.value.as_int());
  }
  CHECK(entries[1].value.as_int() == 42);
  CHECK(entries[2].value.as_int() == 4242);
  // Then the counter's keyed entries: Long keys 1-8, VoidNamespace, Long counts.
  std::set<int64_t> keys;
  int64_t sum = 0;
  for (size_t i = 3; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    CHECK(e.kind == EntryKind::kKeyed);
    CHECK(e.state == "count");
    REQUIRE(e.key_group);
    CHECK(*e.key_group == (e.subtask == 0 ? std::min(*e.key_group, 63) : std::max(*e.key_group, 64)));
    REQUIRE(e.key);
    REQUIRE(e.ns);
    CHECK(e.ns->as_string() == "VoidNamespace");
    CHECK(e.raw_namespace == std::string(1, '\0'));
    CHECK(be64(e.raw_key) == e.key->as_int());
    CHECK(be64(e.raw_value) == e.value.as_int());
    keys.insert(e.key->as_int());
    sum += e.value.as_int();
  }
  CHECK(keys == std::set<int64_t>{1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(sum == 31);
}

TEST_CASE("the entry iterator selects by state subtask and key group and leaves bytes out on request", "[ops][entries]") {
  EntryReaderOptions o;
  o.state = "count";
  o.subtask = 1;
  o.raw_bytes = false;
  std::vector<Entry> entries = all_entries(test::sample_savepoint_dir(), o);
  REQUIRE(entries.size() == 5);
  for (const Entry& e : entries) {
    CHECK(e.subtask == 1);
    CHECK_FALSE(e.has_raw);
    CHECK(e.raw_value.empty());
  }
  EntryReaderOptions groups;
  groups.key_groups = std::make_pair(113, 126);
  entries = all_entries(test::sample_savepoint_dir(), groups);  // no operator state with a key-group filter
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].key->as_int() == 3);
  CHECK(entries[1].key->as_int() == 7);
  CHECK(entries[2].key->as_int() == 5);
  // An iterator stopped early leaves its workers behind cleanly.
  auto reader = EntryReader::open(test::sample_savepoint_dir());
  REQUIRE(reader.ok());
  auto it = (*reader)->entries();
  REQUIRE(it->valid());
  CHECK(it->entry().value.as_int() == 0);
}

TEST_CASE("the entry reader reports a missing snapshot or operator and a damaged file as values", "[ops][entries][corrupt]") {
  test::ScratchDir tmp;
  auto missing = EntryReader::open(tmp / "none");
  REQUIRE_FALSE(missing.ok());
  EntryReaderOptions o;
  o.operator_filter = "00000000000000000000000000000000";
  auto none = EntryReader::open(test::sample_savepoint_dir(), o);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == ErrorCode::kNotFound);

  // A truncated keyed state file: the iteration stops with an error naming it, or (with
  // on_problem) reports it and still gives the entries around the damage.
  fs::copy(test::sample_savepoint_dir(), tmp / "sp", fs::copy_options::recursive);
  const std::string damaged = tmp / "sp/6f1d2c3b-4a5e-4f60-9b7c-8d9e0f1a2b3c";
  fs::resize_file(damaged, fs::file_size(damaged) - 9);
  auto reader = EntryReader::open(tmp / "sp");
  REQUIRE(reader.ok());
  size_t seen = 0;
  auto it = (*reader)->entries();
  for (; it->valid(); it->next()) ++seen;
  REQUIRE_FALSE(it->status().ok());
  CHECK(it->status().error().file.find("6f1d2c3b") != std::string::npos);
  CHECK(seen < 11);

  std::vector<Error> problems;
  EntryReaderOptions going;
  going.on_problem = [&](const Error& e) { problems.push_back(e); };
  std::vector<Entry> rest = all_entries(tmp / "sp", going);
  // The file's size disagrees with its handle: reported once (as dump reports it), not again
  // by the decoding that meets its end.
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].file.find("6f1d2c3b") != std::string::npos);
  CHECK(problems[0].to_string().find("size-mismatch") != std::string::npos);
  CHECK(rest.size() == 11);  // the damaged key group, subtask 0's last, held none
}

TEST_CASE("the entry iterator refuses a snapshot whose file it never decodes is short", "[ops][entries][corrupt]") {
  // A RocksDB handle's OPTIONS file is read by no decoder: every entry would decode, and a query
  // or a Python iteration over it would look clean where dump and verify refuse it.
  test::ScratchDir tmp;
  const GenerateOptions g{.output = tmp / "sp", .backend = GenerateBackend::kRocksDb, .keys = 30, .seed = 5};
  REQUIRE(generate_snapshot(g).ok());
  const size_t undamaged = all_entries(g.output).size();
  REQUIRE(undamaged > 0);
  std::string options_file;
  for (const auto& f : fs::recursive_directory_iterator(g.output))
    if (f.path().filename().string().rfind("OPTIONS-", 0) == 0 && options_file.empty()) options_file = f.path();
  REQUIRE(!options_file.empty());
  fs::resize_file(options_file, fs::file_size(options_file) / 2);

  auto reader = EntryReader::open(g.output);
  REQUIRE(reader.ok());
  auto it = (*reader)->entries();
  CHECK_FALSE(it->valid());
  REQUIRE_FALSE(it->status().ok());
  // Named as `_metadata` names it: relative to the snapshot.
  CHECK(options_file.ends_with("/" + it->status().error().file));
  CHECK(it->status().error().file.find("OPTIONS-") != std::string::npos);
  CHECK(it->status().error().to_string().find("size-mismatch") != std::string::npos);

  std::vector<Error> problems;
  EntryReaderOptions going;
  going.on_problem = [&](const Error& e) { problems.push_back(e); };
  CHECK(all_entries(g.output, going).size() == undamaged);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].file == it->status().error().file);
}

TEST_CASE("a reselected entry reader reads another selection without reading the snapshot again", "[ops][entries][corrupt]") {
  test::ScratchDir tmp;
  fs::copy(test::sample_savepoint_dir(), tmp / "sp", fs::copy_options::recursive);
  const std::string damaged = tmp / "sp/6f1d2c3b-4a5e-4f60-9b7c-8d9e0f1a2b3c";
  fs::resize_file(damaged, fs::file_size(damaged) - 9);
  auto reader = EntryReader::open(tmp / "sp");
  REQUIRE(reader.ok());
  // Gone after the opening: a reselection reads the `_metadata` the reader holds.
  fs::remove(tmp / "sp/_metadata");
  CHECK_FALSE(EntryReader::open(tmp / "sp").ok());

  EntryReaderOptions o;
  o.state = "count";
  o.subtask = 1;
  auto one = (*reader)->reselect(o);
  REQUIRE(one.ok());
  std::vector<std::string> lines, expected;
  for (const Entry& e : all_entries(test::sample_savepoint_dir(), o)) expected.push_back(to_ndjson(e));
  Status s = (*one)->for_each([&](const Entry& e) -> Status {
    lines.push_back(to_ndjson(e));
    return Status::OK();
  });
  REQUIRE(s.ok());  // subtask 1 is whole: the damage is subtask 0's
  REQUIRE(expected.size() == 5);
  CHECK(lines == expected);

  // The structure checks' findings are the snapshot's, reported to each selection that reads
  // the damaged file.
  auto whole = (*reader)->reselect({});
  REQUIRE(whole.ok());
  auto it = (*whole)->entries();
  CHECK_FALSE(it->valid());
  REQUIRE_FALSE(it->status().ok());
  CHECK(it->status().error().file.find("6f1d2c3b") != std::string::npos);
  CHECK(it->status().error().to_string().find("size-mismatch") != std::string::npos);
}

TEST_CASE("values of the entry iterator print as the dump prints them and compare by content", "[ops][entries]") {
  Value o = Value::object({"b", "a"}, {Value::integer(-1), Value::array({Value::string("x\"y"), Value()})});
  CHECK(o.json() == R"({"b":-1,"a":["x\"y",null]})");
  REQUIRE(o.find("a"));
  CHECK(o.find("a")->elements()[0].as_string() == "x\"y");
  CHECK(o.find("c") == nullptr);
  CHECK(Value::unsigned_integer(18446744073709551615ull).json() == "18446744073709551615");
  CHECK(Value::number(0.5).as_int() == 0);
  CHECK(Value::integer(7).as_double() == 7.0);
  CHECK(Value::boolean(true).json() == "true");
  CHECK(o == Value::object({"b", "a"}, {Value::integer(-1), Value::array({Value::string("x\"y"), Value()})}));
  CHECK(o != Value::object({"a", "b"}, {Value::integer(-1), Value::array({Value::string("x\"y"), Value()})}));
}

TEST_CASE("parse_value reads JSON as dump prints it with members in written order and errors naming the column", "[ops][entries]") {
  Result<Value> v = parse_value(R"( {"kind":"+I", "fields":[6, "c", -2, 1.5, 18446744073709551615, true, null]} )");
  REQUIRE(v.ok());
  CHECK(v->keys() == std::vector<std::string>{"kind", "fields"});  // not sorted
  CHECK(v->json() == R"({"kind":"+I","fields":[6,"c",-2,1.5,18446744073709551615,true,null]})");
  const Value& fields = v->elements()[1];
  CHECK(fields.elements()[0].kind() == Value::Kind::kInt);
  CHECK(fields.elements()[4].kind() == Value::Kind::kUnsigned);
  CHECK(fields.elements()[3].as_double() == 1.5);
  CHECK(parse_value(R"("user-7")")->as_string() == "user-7");
  CHECK(*parse_value(R"({"bytes":"00ff"})") == Value::bytes(std::string("\x00\xff", 2)));

  Result<Value> bad = parse_value("[1, 2");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kInvalidArgument);
  CHECK(bad.error().message.find("column 6") != std::string::npos);
  CHECK_FALSE(parse_value("1 2").ok());
  CHECK_FALSE(parse_value("").ok());
  Result<Value> deep = parse_value(std::string(100000, '[') + std::string(100000, ']'));
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.error().message.find("deeper than 256") != std::string::npos);
}

TEST_CASE("byte array values are bytes values that print and compare as the dump's hex object", "[ops][entries]") {
  const Value b = Value::bytes(std::string("\x00\xff", 2));
  CHECK(b.kind() == Value::Kind::kBytes);
  CHECK(b.json() == R"({"bytes":"00ff"})");
  CHECK(b == Value::object({"bytes"}, {Value::string("00ff")}));
  CHECK(b != Value::object({"bytes"}, {Value::string("00fe")}));
  CHECK(b.as_string().empty());
  CHECK(Value::string("ab").as_bytes().empty());
  CHECK(b.size() == 0);

  // The entry iterator reads byte[] values (the generator's) as bytes, not as a hex object.
  test::ScratchDir tmp;
  const GenerateOptions o{.output = tmp / "sp", .backend = GenerateBackend::kRocksDb, .keys = 20, .value_size = 10,
                          .states = {"value"}, .seed = 7};
  REQUIRE(generate_snapshot(o).ok());
  std::vector<Entry> entries = all_entries(tmp / "sp");
  REQUIRE(entries.size() == 20);
  std::vector<std::string> lines;
  for (const Entry& e : entries) {
    REQUIRE(e.value.kind() == Value::Kind::kBytes);
    REQUIRE(e.value.as_bytes().size() == 10);
    REQUIRE(e.raw_value.size() >= 10);
    CHECK(e.raw_value.compare(e.raw_value.size() - 10, 10, e.value.as_bytes()) == 0);
    lines.push_back(line_of(e));
  }
  CHECK(lines == ordered_dump_lines(tmp / "sp"));
}

TEST_CASE("generated value and map entries have the same bytes in the heap canonical and RocksDB layouts", "[ops][entries]") {
  // What the job's serializers wrote does not depend on the backend: keys, namespaces, map
  // user keys and values (behind the map's null flag) are the same bytes in every layout; a
  // list is the ListSerializer's (count, elements) on the heap and elements joined by ',' in
  // RocksDB's layouts.
  test::ScratchDir tmp;
  std::map<std::string, std::string> first;  // entry line -> its bytes
  for (GenerateBackend b : {GenerateBackend::kRocksDb, GenerateBackend::kHeap, GenerateBackend::kCanonical}) {
    // Parallelism 2 of 128 key groups (the defaults); 50 keys with 10-byte values.
    const GenerateOptions o{.output = tmp / fmt::format("out-{}", static_cast<int>(b)), .backend = b, .keys = 50,
                            .value_size = 10, .states = {"value", "list", "map"}, .seed = 7};
    REQUIRE(generate_snapshot(o).ok());
    std::map<std::string, std::string> bytes;
    size_t lists = 0;
    for (const Entry& e : all_entries(o.output)) {
      INFO(line_of(e));
      REQUIRE(e.has_raw);
      REQUIRE(e.key);
      // Keys are Strings: StringValue's length + 1 as a varint, then the ASCII characters.
      CHECK(e.raw_key == std::string(1, static_cast<char>(e.key->as_string().size() + 1)) + e.key->as_string());
      CHECK(e.raw_namespace == std::string(1, '\0'));
      if (e.state == "list-state") {
        ++lists;
        const size_t n = e.value.size(), element = 4 + o.value_size;
        if (b == GenerateBackend::kHeap) CHECK(e.raw_value.size() == 4 + n * element);
        else CHECK(e.raw_value.size() == n * element + (n - 1));
        continue;
      }
      if (e.user_key) CHECK(e.raw_user_key.substr(1) == e.user_key->as_string());
      bytes[line_of(e)] = e.raw_key + "|" + e.raw_user_key + "|" + e.raw_value;
    }
    CHECK(lists == 50);
    CHECK(bytes.size() > 100);
    if (first.empty()) first = bytes;
    CHECK(bytes == first);
  }
}

TEST_CASE("the entry iterator steps over the fields a consumer does not read in the RocksDB layout", "[ops][entries]") {
  // What `ckpt query` asks of it for count(*): the same entries with the same bytes, the fields
  // left out null; a key lookup still finds its key with the key left out.
  test::ScratchDir tmp;
  const GenerateOptions g{.output = tmp / "sp",
                          .backend = GenerateBackend::kRocksDb,
                          .keys = 40,
                          .value_size = 10,
                          .states = {"value", "list", "map"},
                          .seed = 3};
  REQUIRE(generate_snapshot(g).ok());
  const std::vector<Entry> full = all_entries(g.output);
  EntryReaderOptions o;
  o.decode = EntryFields{.key = false, .ns = false, .user_key = false, .value = false};
  const std::vector<Entry> bare = all_entries(g.output, o);
  REQUIRE(bare.size() == full.size());
  size_t maps = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    INFO(line_of(full[i]));
    CHECK((bare[i].key && bare[i].key->is_null()));
    CHECK((bare[i].ns && bare[i].ns->is_null()));
    CHECK(bare[i].value.is_null());
    CHECK(bare[i].raw_key + bare[i].raw_namespace + bare[i].raw_user_key + bare[i].raw_value ==
          full[i].raw_key + full[i].raw_namespace + full[i].raw_user_key + full[i].raw_value);
    if (full[i].user_key) {
      ++maps;
      CHECK((bare[i].user_key && bare[i].user_key->is_null()));
    }
  }
  CHECK(maps > 0);
  o.decode.value = true;
  o.keys = {*full.front().key};
  const std::vector<Entry> one = all_entries(g.output, o);
  REQUIRE(!one.empty());
  for (const Entry& e : one) {
    CHECK(e.key == full.front().key);
    CHECK(!e.value.is_null());
  }
}

TEST_CASE("the entry iterator and the dump give the same entries of every corpus snapshot", "[corpus][ops][entries]") {
  CKPT_REQUIRE_SHARED();
  size_t snapshots = 0, entries = 0, with_bytes = 0;
  for (const std::string& dir : test::corpus_snapshots()) {
    INFO(dir);
    std::vector<std::string> dumped = ordered_dump_lines(dir);
    EntryReaderOptions o;
    o.jobs = 2;
    std::vector<std::string> iterated;
    for (const Entry& e : all_entries(dir, o)) {
      iterated.push_back(line_of(e));
      with_bytes += e.has_raw;
    }
    CHECK(iterated == dumped);
    ++snapshots;
    entries += iterated.size();
  }
  CHECK(snapshots == 107);
  CHECK(entries > 4000);
  CHECK(with_bytes > entries / 2);
}
