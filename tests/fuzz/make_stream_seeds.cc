// Writes fuzz_state_streams seeds into a directory: inline state streams, keyed proxies and
// in-memory change logs of the real snapshots, and a heap stream built with the project's own
// writers whose state names a serializer ckpt cannot decode (so that seeds reach the heap
// value-length inference), and hostile Avro schemas (also as fuzz_avro_schema inputs, into
// AVRO_OUT_DIR); the tables of a small generated RocksDB savepoint, whole and with bytes
// flipped where ckpt checks them before RocksDB reads them (footer, meta-index, properties),
// and for fuzz_metadata (into METADATA_OUT_DIR) that savepoint's `_metadata` with hostile
// RocksDB file names and key-group ranges (issue 27).
// Usage: make_stream_seeds SHARED_FLINK_DIR OUT_DIR [AVRO_OUT_DIR [METADATA_OUT_DIR]]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "ckpt/generate.h"
#include "ckpt/metadata.h"
#include "state/backend_meta.h"
#include "state/heap/key_groups_reader.h"
#include "state/raw_keyed_reader.h"
#include "state/state_stream.h"
#include "support/byte_writer.h"
#include "testlib/change_records.h"
#include "testlib/hostile_inputs.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

fs::path out_dir;
int written = 0;

void seed(const std::string& name, const std::string& bytes) {
  std::ofstream(out_dir / name, std::ios::binary) << bytes;
  ++written;
}

void be(std::string& s, uint32_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) s.push_back(static_cast<char>(v >> (8 * i)));
}

// The key-groups / operator layout of the target: mode, n, n offsets, the stream.
std::string stream_seed(uint8_t mode, const std::vector<int64_t>& offsets, const std::string& data) {
  size_t n = std::min<size_t>(offsets.size(), 8);
  std::string s{static_cast<char>(mode), static_cast<char>(n)};
  for (size_t i = 0; i < n; ++i) be(s, static_cast<uint32_t>(offsets[i]), 4);
  return s + data;
}

std::string changelog_seed(uint8_t mode, const std::vector<Change>& changes) {
  std::string s{static_cast<char>(mode)};
  for (const auto& c : changes) {
    be(s, static_cast<uint32_t>(c.key_group), 4);
    be(s, static_cast<uint32_t>(std::min<size_t>(c.bytes.size(), 0xffff)), 2);
    s += c.bytes.substr(0, 0xffff);
  }
  return s;
}

// The change-log-file layout of the target (bit 6): two piece offsets, then a plain log file
// (flag 0, StateChangeFormat) of two change sets, `changes` split in half.
std::string changelog_file_seed(uint8_t mode, const std::vector<Change>& changes) {
  const size_t half = changes.size() / 2;
  ByteWriter sets[2];
  test::write_change_set(sets[0], {changes.begin(), changes.begin() + static_cast<std::ptrdiff_t>(half)});
  test::write_change_set(sets[1], {changes.begin() + static_cast<std::ptrdiff_t>(half), changes.end()});
  std::string s{static_cast<char>(mode | 64)};
  be(s, 0, 4);
  be(s, static_cast<uint32_t>(sets[0].size()), 4);
  return s + '\0' + sets[0].buffer() + sets[1].buffer();
}

// A JSON-text record: u8 state, u16 key length, key, u16 value length, value.
void record(std::string& s, uint8_t state, const std::string& key, const std::string& value) {
  if (key.size() > 0xffff || value.size() > 0xffff) return;
  s.push_back(static_cast<char>(state));
  be(s, static_cast<uint32_t>(key.size()), 2);
  s += key;
  be(s, static_cast<uint32_t>(value.size()), 2);
  s += value;
}

// The handle's proxy followed by its own entries in the RocksDB layout, as JSON-text records.
void text_seed(const KeyedHandle& h, int32_t max_parallelism, const std::string& proxy, const std::string& tag) {
  const StreamOpener none({}, "seed");
  auto source = open_raw_keyed(h, none, max_parallelism);
  if (!source.ok()) return;
  std::string s = "\x04" + proxy;
  int records = 0;
  (void)read_raw_keyed(h, *source, none, max_parallelism, [&](int32_t, std::vector<std::vector<RocksPair>>& by_state) {
    for (size_t id = 0; id < by_state.size(); ++id)
      for (const auto& p : by_state[id])
        if (records < 64) record(s, static_cast<uint8_t>(id), p.key, p.value), ++records;
    return Status::OK();
  });
  if (records > 0) seed(tag + "-entries", s);
}

void keyed(const KeyedHandle& h, int32_t max_parallelism, const std::string& tag) {
  if ((h.type == handle_type::kKeyGroups || h.type == handle_type::kKeyGroupsWithId ||
       h.type == handle_type::kSavepointKeyGroups) &&
      h.delegate.type == handle_type::kByteStream) {
    seed(tag + "-keyed", stream_seed(h.type == handle_type::kSavepointKeyGroups ? 2 : 0, h.offsets, h.delegate.data));
    // The proxy alone, for the JSON-text mode's records to follow.
    ByteReader r(h.delegate.data);
    if (read_keyed_backend_meta(r).ok()) {
      seed(tag + "-proxy", "\x04" + h.delegate.data.substr(0, r.position()));
      if (max_parallelism <= 128) text_seed(h, max_parallelism, h.delegate.data.substr(0, r.position()), tag);
    }
  }
  if (h.type == handle_type::kInMemoryChangelog && !h.changes.empty()) {
    for (uint8_t mode : {8, 8 | 16, 8 | 32}) {
      seed(tag + "-log" + std::to_string(mode), changelog_seed(mode, h.changes));
      seed(tag + "-log-file" + std::to_string(mode), changelog_file_seed(mode, h.changes));
    }
  }
  for (size_t i = 0; i < h.materialized.size(); ++i) keyed(h.materialized[i], max_parallelism, tag + "-m" + std::to_string(i));
  for (size_t i = 0; i < h.non_materialized.size(); ++i) keyed(h.non_materialized[i], max_parallelism, tag + "-n" + std::to_string(i));
}

void from_corpus(const fs::path& flink) {
  for (const auto& dir : fs::directory_iterator(flink)) {
    auto m = read_metadata_file(dir.path().string());
    if (!m.ok()) continue;
    std::string name = dir.path().filename().string();
    for (size_t o = 0; o < m->operators.size(); ++o) {
      for (const auto& st : m->operators[o].subtasks) {
        std::string tag = name + "-" + std::to_string(o) + "-" + std::to_string(st.index);
        keyed(st.managed_keyed, m->operators[o].max_parallelism, tag);
        for (const auto& op : st.managed_operator) {
          if (op.delegate.type != handle_type::kByteStream || op.states.empty()) continue;
          seed(tag + "-operator", stream_seed(1, op.states.front().offsets, op.delegate.data));
        }
      }
    }
  }
}

// A snapshot in the versioned form, parsed.
SerializerSnapshot parsed(const std::string& versioned) {
  ByteReader r(versioned);
  auto s = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
  if (!s.ok()) {
    std::fprintf(stderr, "make_stream_seeds: %s\n", s.error().to_string().c_str());
    std::exit(1);
  }
  return *s;
}

SerializerSnapshot snapshot(const std::string& cls) {
  ByteWriter w;
  w.utf(cls);
  w.i32(3);
  return parsed(w.buffer());
}

StateMetaInfo value_state(const std::string& name, const SerializerSnapshot& value) {
  StateMetaInfo s;
  s.name = name;
  s.options = {{"KEYED_STATE_TYPE", "VALUE"}};
  s.serializers = {
      {"NAMESPACE_SERIALIZER", snapshot("org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot")},
      {"VALUE_SERIALIZER", value},
  };
  return s;
}

StateMetaInfo value_state(const std::string& name, const std::string& value_class) {
  return value_state(name, snapshot(value_class));
}

// Long keys in VoidNamespace; one state of a job's own serializer (values of 5 bytes, no
// length in the heap layout), one of Strings. Key group 0 of 1, max parallelism 128.
void heap_with_unknown_serializer() {
  const char* kLong = "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot";
  KeyedBackendMeta meta;
  meta.key_serializer = snapshot(kLong);
  meta.states.push_back(value_state("opaque", "com.example.JobSerializer$JobSerializerSnapshot"));
  meta.states.push_back(value_state("text", "org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot"));
  auto proxy = write_keyed_backend_meta(meta);
  auto key_decoder = make_decoder(meta.key_serializer);
  if (!proxy.ok() || !key_decoder.ok()) std::exit(1);
  std::vector<int64_t> keys;
  for (int64_t k = 0; keys.size() < 3; ++k)
    if (compute_key_group(**key_decoder, nlohmann::json(k), 128) == 0) keys.push_back(k);
  ByteWriter w;
  w.bytes(*proxy);
  int64_t offset = static_cast<int64_t>(w.buffer().size());
  w.i32(0);  // key group 0
  w.i16(0);
  w.i32(static_cast<int32_t>(keys.size()));
  for (size_t i = 0; i < keys.size(); ++i) {
    w.u8(0);  // VoidNamespace
    w.i64(keys[i]);
    w.bytes(std::string(5, static_cast<char>('a' + i)));
  }
  w.i16(1);
  w.i32(1);
  w.u8(0);
  w.i64(keys[0]);
  w.u8(3);  // StringValue: length + 1, then the characters
  w.bytes("hi");
  std::string data = w.buffer();
  seed("heap-unknown-serializer", stream_seed(0, {offset}, data));

  // The seed must reach the inference and come out with the three opaque values.
  KeyedHandle h;
  h.type = handle_type::kKeyGroupsWithId;
  h.range = {0, 1};
  h.offsets = {offset};
  h.delegate.type = handle_type::kByteStream;
  h.delegate.data = data;
  auto stream = StreamOpener({}, "seed").open(h.delegate);
  int entries = 0;
  Status st = stream.ok() ? read_key_groups_handle(
                                h, *stream, 128, StateFilter{}, [&](StateEntry&&) { ++entries; return Status::OK(); },
                                [](Error&& e) { return Status(std::move(e)); })
                          : Status(stream.error());
  if (!st.ok() || entries != 4) {
    std::fprintf(stderr, "make_stream_seeds: the heap seed reads %d entries: %s\n", entries,
                 st.ok() ? "" : st.error().to_string().c_str());
    std::exit(1);
  }
  // The same proxy for the JSON-text mode, with a String entry of state 1 and an opaque one of 0.
  std::string text{'\x04'};
  text += *proxy;
  ByteWriter k;
  k.u8(0);  // key group prefix
  k.i64(keys[0]);
  k.u8(0);  // VoidNamespace
  record(text, 1, k.buffer(), "\x03hi");
  record(text, 0, k.buffer(), "aaaaa");
  seed("rocks-text-entries", text);
}


// Avro writer schemas as hostile as tests/testlib/hostile_inputs.h makes them (an array as
// namespace made nlohmann's type_error escape; nesting far past the bound overflowed stacks),
// beside ordinary ones: as fuzz_avro_schema inputs (the schema, NUL, values) and, for
// fuzz_state_streams, as the value serializer of a heap stream of Long keys.
void avro_seeds(const fs::path& avro_dir) {
  const std::string rich = R"({"type":"record","name":"Event","namespace":"com.example","fields":[)"
                           R"({"name":"id","type":"long"},{"name":"tags","type":{"type":"array","items":"string"}},)"
                           R"({"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"]}},)"
                           R"({"name":"attrs","type":{"type":"map","values":["null","double"]}},)"
                           R"({"name":"digest","type":{"type":"fixed","name":"D","size":4}},)"
                           R"({"name":"next","type":["null","Event"]}]})";
  const std::pair<const char*, std::string> schemas[] = {
      {"namespace-array", test::namespace_array_schema()},
      {"nested-unions-10000", test::nested_union_schema(10000)},
      {"nested-unions-200", test::nested_union_schema(200)},
      {"nested-records-100", test::nested_record_schema(100)},
      {"rich", rich},
  };
  // One value of `rich`: id 7, tags ["x"], kind B, attrs {"k": 1.5}, digest, next null.
  ByteWriter value;
  value.i64(7);
  value.u8(1);
  value.i32(1);
  value.bytes("x");
  value.u8(0);
  value.i32(1);
  value.u8(1);
  value.i32(1);
  value.bytes("k");
  value.i32(1);
  value.f64(1.5);
  value.u8(0);
  value.bytes("abcd");
  value.i32(0);
  // The ordinary schema's value must decode, or the seeds would not reach the value decoder.
  {
    ByteReader r(value.buffer());
    auto d = make_decoder(parsed(test::avro_snapshot(rich)));
    auto v = d.ok() ? decode_framed(**d, r, value.size()) : Result<nlohmann::json>(d.error());
    if (!v.ok() || !(*d)->decodable()) {
      std::fprintf(stderr, "make_stream_seeds: the Avro seed value does not decode: %s\n",
                   v.ok() ? "opaque" : v.error().to_string().c_str());
      std::exit(1);
    }
  }
  fs::create_directories(avro_dir);
  const char* kLong = "org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot";
  for (const auto& [name, schema] : schemas) {
    std::string input = schema;
    input += '\0';
    input += value.buffer();
    std::ofstream(avro_dir / name, std::ios::binary) << input;
    ++written;

    KeyedBackendMeta meta;
    meta.key_serializer = snapshot(kLong);
    meta.states.push_back(value_state("avro", test::unparsed_snapshot(test::avro_snapshot(schema))));
    auto proxy = write_keyed_backend_meta(meta);
    if (!proxy.ok()) std::exit(1);
    ByteWriter w;
    w.bytes(*proxy);
    int64_t offset = static_cast<int64_t>(w.size());
    w.i32(0);  // key group 0, one entry of state 0
    w.i16(0);
    w.i32(1);
    w.u8(0);   // VoidNamespace
    w.i64(1);  // the key
    w.bytes(value.buffer());
    seed(std::string("heap-avro-") + name, stream_seed(0, {offset}, w.buffer()));
  }
}

// A change log of list, map and value states of Long keys (tests/testlib/change_records.h, as the
// changelog tests build it) plus a MERGE_NS, so that seeds reach every kind of data change and
// not only the corpus's SETs.
void hand_built_changelog() {
  std::vector<Change> changes = test::list_map_value_changes();
  ByteWriter merge;  // MERGE_NS (op 4) of list "l", key 1, VoidNamespace, then i32 0 and a Long
  merge.u8(4);
  merge.i16(0);
  merge.i64(1);
  merge.u8(0);
  merge.i32(0);
  merge.i64(1);
  changes.push_back(Change{0, merge.buffer()});
  for (uint8_t mode : {8, 8 | 16, 8 | 32}) {
    seed("hand-built-log" + std::to_string(mode), changelog_seed(mode, changes));
    seed("hand-built-log-file" + std::to_string(mode), changelog_file_seed(mode, changes));
  }
}

// The SST mode (bit 7) of the target: each table of `snapshot`, whole and with one byte flipped
// at a distance from its end (the footer's magic, checksum type and block handles, the
// meta-index block, the properties block: Flink 1.20's small tables carry the restart count
// whose top bit made RocksDB 7.8 assert at len-96), so that mutations start where the checks are.
void sst_seeds(const fs::path& snapshot) {
  for (const auto& e : fs::recursive_directory_iterator(snapshot)) {
    if (!e.is_regular_file() || e.path().extension() != ".sst") continue;
    std::ifstream in(e.path(), std::ios::binary);
    const std::string table((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string name = e.path().stem().string();
    seed("sst-" + name, "\x80" + table);
    for (size_t back : {1, 8, 9, 48, 53, 96, 120, 200, 400}) {
      if (back > table.size()) continue;
      std::string bad = table;
      bad[table.size() - back] = static_cast<char>(bad[table.size() - back] ^ 0x80);
      seed("sst-" + name + "-flip-len-" + std::to_string(back), "\x80" + bad);
    }
  }
}

// fuzz_metadata seeds: `snapshot`'s `_metadata` as written, then with what the issue-27 checks
// refuse: RocksDB file names that are paths (`..`, absolute, nested, empty, a NUL), a max
// parallelism of 2^31-1, key-group ranges beyond the max parallelism and beyond key group 32767.
void metadata_seeds(const fs::path& snapshot, const fs::path& dir) {
  auto m = read_metadata_file((snapshot / "_metadata").string());
  if (!m.ok()) {
    std::fprintf(stderr, "make_stream_seeds: %s\n", m.error().to_string().c_str());
    std::exit(1);
  }
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const Metadata& model) {
    auto bytes = encode_metadata(model);
    if (!bytes.ok()) return;
    std::ofstream(dir / name, std::ios::binary) << *bytes;
    ++written;
  };
  write("generated-rocksdb", *m);
  KeyedHandle* keyed = nullptr;
  OperatorState* op = nullptr;
  for (OperatorState& o : m->operators)
    for (SubtaskState& st : o.subtasks)
      if (!keyed && !st.managed_keyed.private_files.empty()) keyed = &st.managed_keyed, op = &o;
  if (!keyed) return;
  const std::vector<std::pair<std::string, std::string>> names = {{"dotdot", "../../../../tmp/PWNED"},
                                                                  {"absolute", "/etc/passwd"},
                                                                  {"nested", "a/b"},
                                                                  {"parent", ".."},
                                                                  {"self", "."},
                                                                  {"empty", ""},
                                                                  {"nul", std::string("000010\0.sst", 11)}};
  for (const auto& [tag, name] : names) {
    Metadata bad = *m;
    for (OperatorState& o : bad.operators)
      for (SubtaskState& st : o.subtasks)
        if (!st.managed_keyed.private_files.empty()) st.managed_keyed.private_files.front().name = name;
    write("bad-file-name-" + tag, bad);
  }
  const int32_t max_parallelism = op->max_parallelism;
  auto ranged = [&](const std::string& name, int32_t mp, KeyGroupRange range) {
    op->max_parallelism = mp;
    const KeyGroupRange kept = keyed->range;
    keyed->range = range;
    write(name, *m);
    keyed->range = kept;
    op->max_parallelism = max_parallelism;
  };
  ranged("max-parallelism-2147483647", 2147483647, keyed->range);
  ranged("max-parallelism-0", 0, keyed->range);
  ranged("range-beyond-max-parallelism", max_parallelism, {0, max_parallelism + 1});
  ranged("range-beyond-32767", 32768, {0, 32769});
  ranged("range-negative-first", max_parallelism, {-1, 2});
  ranged("range-wrapping", 2147483647, {2147483600, 100});
}

// A RocksDB savepoint of one subtask and three states, small (tables of about a KiB), written by
// ckpt generate into a fresh directory under `parent`.
fs::path generated_rocksdb(const fs::path& parent) {
  fs::create_directories(parent);
  GenerateOptions o;
  o.output = (parent / "generated-rocksdb").string();
  o.force = true;
  o.parallelism = 1;
  o.max_parallelism = 4;
  o.keys = 6;
  o.value_size = 8;
  o.states = {"value", "list", "map"};
  auto s = generate_snapshot(o);
  if (!s.ok()) {
    std::fprintf(stderr, "make_stream_seeds: %s\n", s.error().to_string().c_str());
    std::exit(1);
  }
  return o.output;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, "usage: make_stream_seeds SHARED_FLINK_DIR OUT_DIR [AVRO_OUT_DIR [METADATA_OUT_DIR]]\n");
    return 2;
  }
  out_dir = argv[2];
  fs::create_directories(out_dir);
  heap_with_unknown_serializer();
  hand_built_changelog();
  avro_seeds(argc >= 4 ? fs::path(argv[3]) : out_dir / "avro");
  {
    // The generated savepoint lives beside the seeds only while they are cut from it.
    const fs::path scratch = out_dir / "generated-scratch";
    const fs::path snapshot = generated_rocksdb(scratch);
    sst_seeds(snapshot);
    metadata_seeds(snapshot, argc == 5 ? fs::path(argv[4]) : out_dir / "metadata");
    fs::remove_all(scratch);
  }
  if (fs::is_directory(argv[1])) from_corpus(argv[1]);
  std::printf("make_stream_seeds: %d seeds in %s\n", written, argv[2]);
  return 0;
}
