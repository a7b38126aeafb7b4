// Flink 1.2's heap key groups (keyed proxy version 1) on hand-built bytes laid out as 1.2's
// HeapKeyedStateBackend.snapshot / writeStateTableForKeyGroup wrote them: per state its id, a
// presence flag and, if present, the namespaces, each once before its keys and values.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/dump.h"
#include "ckpt/metadata.h"
#include "state/backend_meta.h"
#include "state/heap/key_groups_reader.h"
#include "state/keyed_stream_writer.h"
#include "state/layout_transcoder.h"
#include "state/stream_opener.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/legacy_proxy_bytes.h"
#include "testlib/test_support.h"
#include "types/value_decoder.h"

using namespace ckpt;
using namespace ckpt::test::legacy;

namespace {

// keyed_v1(1)'s one VALUE state "count" (Long keys and values, VoidNamespace) in key groups 0
// and 1 of a job of max parallelism 2: group 0 has no table (flag 0), group 1 holds keys 7 and 8
// (their group under 2) under the one namespace.
constexpr int32_t kHeapV1MaxParallelism = 2;

struct HeapV1Stream {
  std::string data;
  std::vector<int64_t> offsets;
};

HeapV1Stream heap_v1_stream(uint8_t first_flag = 0) {
  ByteWriter w;
  w.bytes(keyed_v1(1));
  HeapV1Stream s;
  s.offsets.push_back(static_cast<int64_t>(w.size()));
  w.i32(0);  // key group
  w.i16(0);  // state id
  w.u8(first_flag);
  s.offsets.push_back(static_cast<int64_t>(w.size()));
  w.i32(1);
  w.i16(0);
  w.u8(1);   // present
  w.i32(1);  // namespaces
  w.u8(0);   // VoidNamespace
  w.i32(2);  // entries
  w.i64(7);
  w.i64(300);
  w.i64(8);
  w.i64(5);
  s.data = w.take();
  return s;
}

struct HeapV1Read {
  Status status = Status::OK();
  std::vector<StateEntry> entries;
  std::vector<Error> problems;
};

HeapV1Read read_heap_v1(const HeapV1Stream& s) {
  KeyedHandle h;
  h.type = handle_type::kKeyGroups;
  h.range = {0, 2};
  h.offsets = s.offsets;
  h.delegate.type = handle_type::kByteStream;
  h.delegate.data = s.data;
  HeapV1Read out;
  auto stream = StreamOpener({}, "_metadata").open(h.delegate);
  REQUIRE(stream.ok());
  out.status = read_key_groups_handle(
      h, *stream, kHeapV1MaxParallelism, StateFilter{},
      [&](StateEntry&& e) {
        out.entries.push_back(std::move(e));
        return Status::OK();
      },
      [&](Error&& e) {
        out.problems.push_back(std::move(e));
        return Status::OK();
      });
  return out;
}

}  // namespace

TEST_CASE("Flink 1.2 heap key groups give every namespace's keys and values", "[unit][state]") {
  // Proves StateTableByKeyGroupReaderV1: the presence flag, the namespace read once for its
  // entries, and an absent table that holds nothing.
  HeapV1Stream s = heap_v1_stream();
  HeapV1Read got = read_heap_v1(s);
  REQUIRE(got.status.ok());
  for (const Error& e : got.problems) FAIL(e.to_string());
  REQUIRE(got.entries.size() == 2);
  CHECK(got.entries[0].state == "count");
  CHECK(got.entries[0].key_group == 1);
  CHECK(got.entries[0].key == 7);
  CHECK(got.entries[0].value == 300);
  CHECK(got.entries[1].key == 8);
  CHECK(got.entries[1].value == 5);
  CHECK(got.entries[0].ns == got.entries[1].ns);
}

TEST_CASE("Flink 1.2 heap key groups with a bad presence flag or cut short fail at an offset",
          "[unit][corrupt][state]") {
  HeapV1Stream bad = heap_v1_stream(2);
  HeapV1Read got = read_heap_v1(bad);
  REQUIRE(got.problems.size() == 1);
  CHECK(got.problems[0].code == ErrorCode::kCorruption);
  CHECK(got.problems[0].message.find("presence flag 2") != std::string::npos);
  CHECK(got.problems[0].offset == static_cast<uint64_t>(bad.offsets[0]) + 6);
  CHECK(got.entries.size() == 2);  // the next key group is read still
  // Every cut inside key group 1's block is refused there, never read past.
  HeapV1Stream s = heap_v1_stream();
  for (size_t cut = static_cast<size_t>(s.offsets[1]) + 4; cut < s.data.size(); ++cut) {
    INFO("cut at " << cut);
    HeapV1Stream c = s;
    c.data.resize(cut);
    HeapV1Read r = read_heap_v1(c);
    CHECK(r.status.ok());
    CHECK(r.problems.size() == 1);
  }
}

TEST_CASE("Flink 1.2 heap key groups convert to the RocksDB pairs of the same entries", "[unit][state]") {
  // Proves heap_block_to_rocks on version 1 blocks: the namespace read once is part of every
  // entry's RocksDB key, as in the later layout's block of the same entries.
  const std::string proxy = keyed_v1(1);
  ByteReader pr(proxy);
  auto meta = read_keyed_backend_meta(pr);
  REQUIRE(meta.ok());
  auto key = make_decoder(meta->key_serializer);
  REQUIRE(key.ok());
  std::vector<std::unique_ptr<StateTranscoder>> transcoders;
  auto t = StateTranscoder::make(meta->states[0], **key, kHeapV1MaxParallelism);
  REQUIRE(t.ok());
  transcoders.push_back(std::move(t).value());
  HeapV1Stream s = heap_v1_stream();
  const size_t first = static_cast<size_t>(s.offsets[1]) + 4;
  std::string_view v1(s.data.data() + first, s.data.size() - first);
  ByteWriter later;  // the same entries as Flink 1.3+ lay them out
  later.i16(0);
  later.i32(2);
  for (auto [k, v] : {std::pair<int64_t, int64_t>{7, 300}, {8, 5}}) {
    later.u8(0);
    later.i64(k);
    later.i64(v);
  }
  auto pairs_of = [&](std::string_view block, int32_t version) {
    std::vector<std::vector<RocksPair>> by_state(1);
    std::vector<RocksPairPool> pools(1);
    Status st = heap_block_to_rocks(transcoders, 1, block, first, kHeapV1MaxParallelism, by_state, pools, version);
    if (!st.ok()) FAIL(st.error().to_string());
    std::vector<std::pair<std::string, std::string>> out;
    for (const RocksPair& p : by_state[0]) out.emplace_back(p.key, p.value);
    return out;
  };
  auto got = pairs_of(v1, 1);
  CHECK(got.size() == 2);
  CHECK(got == pairs_of(later.buffer(), 6));
}

TEST_CASE("Flink 1.2 heap key groups are not written back in the later heap layout", "[unit][state]") {
  // A legacy proxy is copied as read: under version 1 the heap writer would lay out blocks
  // Flink 1.2 and ckpt read differently, so it refuses.
  const std::string proxy = keyed_v1(1);
  ByteReader pr(proxy);
  auto meta = read_keyed_backend_meta(pr);
  REQUIRE(meta.ok());
  test::ScratchDir tmp;
  auto w = KeyedStreamWriter::create(tmp / "heap", KeyGroupsLayout::kHeap, *meta, {0, 2}, kHeapV1MaxParallelism);
  REQUIRE_FALSE(w.ok());
  CHECK(w.error().code == ErrorCode::kNotSupported);
  CHECK(w.error().message.find("Flink 1.2") != std::string::npos);
}

namespace {

// A Flink 1.2 savepoint (`_metadata` version 1, MetadataV1Serializer) of one keyed operator of
// parallelism 1 and max parallelism 2 whose subtask's managed keyed state is heap_v1_stream()
// inline.
void write_flink12_savepoint(const std::string& dir) {
  HeapV1Stream s = heap_v1_stream();
  ByteWriter w;
  w.i32(0x4960672D);
  w.i32(1);                                                           // version
  w.i64(1);                                                           // checkpoint id
  w.i32(1);                                                           // task records
  for (int i = 0; i < 16; ++i) w.u8(static_cast<uint8_t>(0x20 + i));  // job vertex id
  w.i32(1);                                                           // parallelism
  w.i32(kHeapV1MaxParallelism);
  w.i32(1);   // chain length
  w.i32(1);   // subtask records
  w.i32(0);   //   index
  w.i64(-1);  //   duration
  w.i32(0);   //   legacy, managed and raw operator handles: none
  w.i32(0);
  w.i32(0);
  w.u8(3);  //   managed keyed: key groups
  w.i32(0);
  w.i32(2);
  for (int64_t off : s.offsets) w.i64(off);
  w.u8(1);  //     inline bytes
  w.utf("kg");
  w.i32(static_cast<int32_t>(s.data.size()));
  w.bytes(s.data);
  w.u8(0);  //   raw keyed: none
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/_metadata", std::ios::binary) << w.buffer();
}

struct HeapV1DumpLines : DumpSink {
  std::vector<std::string> lines;
  void entry(const Entry& e) override { lines.push_back(to_ndjson(e)); }
  void problem(const Error& e) override { FAIL(e.to_string()); }
};

std::vector<std::string> heap_v1_dump(const std::string& dir) {
  HeapV1DumpLines sink;
  auto r = dump_snapshot(dir, DumpOptions{}, sink);
  if (!r.ok()) FAIL(r.error().to_string());
  return sink.lines;
}

}  // namespace

TEST_CASE("a hand-built Flink 1.2 savepoint dumps its heap entries and converts to rocksdb but not back to heap",
          "[ops]") {
  test::ScratchDir tmp;
  write_flink12_savepoint(tmp / "sp");
  auto lines = heap_v1_dump(tmp / "sp");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] ==
        R"({"operator":"202122232425262728292a2b2c2d2e2f","subtask":0,"state":"count","kind":"keyed","key_group":1,)"
        R"("key":7,"namespace":"VoidNamespace","value":300})");
  ConvertOptions o;
  o.to = ConvertTarget::kRocksDb;
  o.output = tmp / "rocks";
  auto converted = convert_snapshot(tmp / "sp", o);
  if (!converted.ok()) FAIL(converted.error().to_string());
  CHECK(heap_v1_dump(tmp / "rocks") == lines);
  // The RocksDB copy keeps the version 1 proxy, whose heap layout ckpt does not write.
  o.to = ConvertTarget::kHeap;
  o.output = tmp / "heap";
  auto back = convert_snapshot(tmp / "rocks", o);
  REQUIRE_FALSE(back.ok());
  CHECK(back.error().code == ErrorCode::kNotSupported);
  CHECK(back.error().message.find("Flink 1.2") != std::string::npos);
}
