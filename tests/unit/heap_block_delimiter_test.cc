// Inferring opaque value lengths in hand-built heap key groups: unique, ambiguous, impossible, hostile.
#include <catch2/catch.hpp>

#include <chrono>
#include <utility>

#include <fmt/format.h>

#include "state/heap/heap_block_delimiter.h"
#include "types/serializer_snapshot.h"
#include "state/snappy_framed.h"
#include "types/value_decoder.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"

using namespace ckpt;

namespace {

std::unique_ptr<ValueDecoder> decoder_of_class(const std::string& cls) {
  ByteWriter w;
  w.utf(cls);
  w.i32(3);
  ByteReader r(w.buffer());
  auto s = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
  REQUIRE(s.ok());
  auto d = make_decoder(*s);
  REQUIRE(d.ok());
  return std::move(d).value();
}

// The decoders a keyed state of Long keys in VoidNamespace needs, with opaque or String values.
struct Decoders {
  std::unique_ptr<ValueDecoder> ns =
      decoder_of_class("org.apache.flink.runtime.state.VoidNamespaceSerializer$VoidNamespaceSerializerSnapshot");
  std::unique_ptr<ValueDecoder> key =
      decoder_of_class("org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot");
  std::unique_ptr<ValueDecoder> text =
      decoder_of_class("org.apache.flink.api.common.typeutils.base.StringSerializer$StringSerializerSnapshot");
  std::unique_ptr<ValueDecoder> opaque = decoder_of_class("com.example.JobSerializer$JobSerializerSnapshot");

  HeapEntryLayout keyed(const std::string& name, const ValueDecoder& value) const {
    return HeapEntryLayout{name, ns.get(), key.get(), &value, {}};
  }
  HeapEntryLayout queue(const std::string& name) const { return HeapEntryLayout{name, nullptr, nullptr, opaque.get(), {}}; }
};

void head(ByteWriter& w, int16_t id, int32_t count) {
  w.i16(id);
  w.i32(count);
}

void entry(ByteWriter& w, int64_t key, std::string_view value) {
  w.u8(0);  // VoidNamespace
  w.i64(key);
  w.bytes(value);
}

// Two opaque states' blocks where the first value (15 bytes) holds what reads as the second
// block's head and entry: the concatenation parses with the first value 0 or 15 bytes long.
std::pair<ByteWriter, ByteWriter> two_readings() {
  ByteWriter inner;
  head(inner, 1, 1);
  entry(inner, 9, "");
  REQUIRE(inner.size() == 15);
  ByteWriter first, second;
  head(first, 0, 1);
  entry(first, 5, inner.buffer());
  head(second, 1, 1);
  entry(second, 6, "xyz");
  return {std::move(first), std::move(second)};
}

Result<std::vector<int64_t>> infer(const ByteWriter& w, const std::vector<HeapEntryLayout>& states,
                                   int32_t max_parallelism = 1) {
  return infer_heap_value_lengths(w.buffer(), 0x400, states, 0, max_parallelism);
}

}  // namespace

TEST_CASE("heap delimiter: one length for several values - walked blocks before and after", "[unit][state]") {
  // Three 5-byte opaque values between a String-valued block and an empty one: L = 5 is the
  // only length under which the key group ends where it does; walked states get -1.
  Decoders d;
  std::vector<HeapEntryLayout> states = {d.keyed("strings", *d.text), d.keyed("opaque", *d.opaque),
                                         d.keyed("empty", *d.opaque)};
  REQUIRE(heap_values_need_inference(states));
  ByteWriter w;
  head(w, 0, 1);
  entry(w, 7, "\x03hi");
  head(w, 1, 3);
  entry(w, 1, "abcde");
  entry(w, 2, std::string("\0\0\0\0\x01", 5));
  entry(w, 3, "zzzzz");
  head(w, 2, 0);
  auto lengths = infer(w, states);
  INFO((lengths.ok() ? std::string() : lengths.error().to_string()));
  REQUIRE(lengths.ok());
  CHECK(*lengths == std::vector<int64_t>{-1, 5, -1});
}

TEST_CASE("heap delimiter: a single value takes whatever length lets the rest parse", "[unit][state]") {
  // With one entry any length is a candidate; only 13 leaves a plausible head of the other
  // state's block, whose entries then end exactly at the key group's end.
  Decoders d;
  std::vector<HeapEntryLayout> states = {d.keyed("opaque", *d.opaque), d.keyed("strings", *d.text)};
  ByteWriter w;
  head(w, 0, 1);
  entry(w, 42, "thirteen byte");
  head(w, 1, 2);
  entry(w, 1, "\x02" "a");
  entry(w, 2, "\x02" "b");
  auto lengths = infer(w, states);
  REQUIRE(lengths.ok());
  CHECK(*lengths == std::vector<int64_t>{13, -1});
}

TEST_CASE("heap delimiter: a key group that parses in two ways is refused as ambiguous", "[unit][corrupt][state]") {
  // The first state's value holds bytes that read as the second state's block head and entry:
  // lengths 0 and 15 both parse to the end, so the delimiter names the block instead of guessing.
  Decoders d;
  std::vector<HeapEntryLayout> states = {d.keyed("first", *d.opaque), d.keyed("second", *d.opaque)};
  ByteWriter w;
  auto [first, second] = two_readings();
  w.bytes(first.buffer() + second.buffer());
  auto lengths = infer(w, states);
  REQUIRE_FALSE(lengths.ok());
  CHECK(lengths.error().code == ErrorCode::kNotSupported);
  CHECK(lengths.error().offset == 0x400u);
  CHECK(lengths.error().message ==
        "values of state 'first' cannot be delimited unambiguously: 0 and 15 bytes per value both let key group 0 "
        "parse to its end");
}

TEST_CASE("heap delimiter: in a compressed key group blocks start only where a snappy stream starts", "[unit][state]") {
  // The ambiguous bytes above, each state block framed as its own Snappy stream as Flink's heap
  // writer compresses them: the stream starts the decoder reports leave one reading, 15 bytes.
  Decoders d;
  std::vector<HeapEntryLayout> states = {d.keyed("first", *d.opaque), d.keyed("second", *d.opaque)};
  auto [first, second] = two_readings();
  ByteWriter framed;
  for (const ByteWriter* block : {&first, &second}) {
    framed.bytes(std::string("\xff\x06\x00\x00sNaPpY", 10));
    uint32_t len = static_cast<uint32_t>(block->size() + 4);  // an uncompressed chunk: crc, then the bytes
    framed.u8(0x01);
    framed.u8(len & 0xff);
    framed.u8((len >> 8) & 0xff);
    framed.u8((len >> 16) & 0xff);
    framed.u32(0);
    framed.bytes(block->buffer());
  }
  ByteReader in(framed.buffer(), 0x800);
  std::string data;
  std::vector<size_t> starts;
  REQUIRE(decode_snappy_framed(in, &data, 1 << 20, true, &starts).ok());
  CHECK(starts == std::vector<size_t>{0, first.size()});
  REQUIRE(data == first.buffer() + second.buffer());
  auto lengths = infer_heap_value_lengths(data, 0x800, states, 0, 1, &starts);
  REQUIRE(lengths.ok());
  CHECK(*lengths == std::vector<int64_t>{15, 3});
}

TEST_CASE("heap delimiter: values of different lengths are refused cleanly", "[unit][corrupt][state]") {
  // Two values of 3 and 4 bytes: no single length fills the block exactly, so the error names
  // the block and how far the best reading got.
  Decoders d;
  std::vector<HeapEntryLayout> states = {d.keyed("opaque", *d.opaque)};
  ByteWriter w;
  head(w, 0, 2);
  entry(w, 1, "abc");
  entry(w, 2, "defg");
  auto lengths = infer(w, states);
  REQUIRE_FALSE(lengths.ok());
  CHECK(lengths.error().code == ErrorCode::kNotSupported);
  CHECK(lengths.error().offset == 0x400u);
  CHECK(lengths.error().message.rfind("values of state 'opaque' cannot be delimited: no value length shared by the "
                                      "block's entries lets key group 0 parse to its end",
                                      0) == 0);
}

TEST_CASE("heap delimiter: keys are checked against the key group", "[unit][corrupt][state]") {
  // With a max parallelism of 128, a length under which some entry's key would belong to
  // another key group is no candidate; the same bytes with keys of this group delimit.
  Decoders d;
  std::vector<HeapEntryLayout> states = {d.keyed("opaque", *d.opaque)};
  std::vector<int64_t> mine, other;
  for (int64_t k = 0; mine.size() < 2 || other.empty(); ++k) {
    auto kg = compute_key_group(*d.key, k, 128);
    REQUIRE(kg);
    (*kg == 0 ? mine : other).push_back(k);
  }
  ByteWriter good;
  head(good, 0, 2);
  entry(good, mine[0], "12345678");
  entry(good, mine[1], "12345678");
  auto ok = infer(good, states, 128);
  REQUIRE(ok.ok());
  CHECK(*ok == std::vector<int64_t>{8});
  ByteWriter bad;
  head(bad, 0, 2);
  entry(bad, mine[0], "12345678");
  entry(bad, other[0], "12345678");
  auto refused = infer(bad, states, 128);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.rfind("values of state 'opaque' cannot be delimited", 0) == 0);
  // Without key groups to tell them apart (max parallelism 1) the same bytes delimit.
  auto unchecked = infer(bad, states, 1);
  REQUIRE(unchecked.ok());
  CHECK(*unchecked == std::vector<int64_t>{8});
}

TEST_CASE("heap delimiter: hostile counts and deep searches end in bounded errors", "[unit][corrupt][state]") {
  // Counts beyond the bytes, negative counts, repeated state ids and more opaque blocks than the
  // documented bound are errors, never long searches or large allocations.
  Decoders d;
  std::vector<HeapEntryLayout> one = {d.keyed("opaque", *d.opaque)};
  for (int32_t count : {INT32_MAX, -1, 1000}) {
    ByteWriter w;
    head(w, 0, count);
    entry(w, 1, "abc");
    auto r = infer(w, one);
    INFO(count);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().offset.has_value());
  }
  std::vector<HeapEntryLayout> two = {d.keyed("a", *d.opaque), d.keyed("b", *d.opaque)};
  ByteWriter twice;
  head(twice, 0, 0);
  head(twice, 0, 0);
  auto repeated = infer(twice, two);
  REQUIRE_FALSE(repeated.ok());
  CHECK(repeated.error().message == "a second block of state id 0 in key group 0");
  CHECK(repeated.error().offset == 0x406u);

  // 300 queue states of opaque 1-byte elements, one each: a search one level per block.
  std::vector<HeapEntryLayout> many;
  ByteWriter deep;
  for (int16_t i = 0; i < 300; ++i) {
    many.push_back(d.queue("q" + std::to_string(i)));
    head(deep, i, 1);
    deep.u8(0x7f);
  }
  auto start = std::chrono::steady_clock::now();
  auto refused = infer(deep, many);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message == "key group 0 holds more than 256 blocks of values that cannot be walked");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));

  // Every few bytes a plausible head of another opaque queue, but the eighth state never
  // appears: no reading succeeds, the orderings multiply, and the work bound stops the search.
  std::vector<HeapEntryLayout> eight;
  for (int i = 0; i < 7; ++i) eight.push_back(d.queue("q" + std::to_string(i)));
  eight.push_back(d.keyed("never", *d.text));
  ByteWriter tangled;
  head(tangled, 0, 1);
  for (int i = 0; i < 3000; ++i) {
    head(tangled, static_cast<int16_t>(1 + i % 6), 1);
    tangled.u8(0x7f);
  }
  start = std::chrono::steady_clock::now();
  auto bounded = infer(tangled, eight);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  REQUIRE_FALSE(bounded.ok());
  CHECK(bounded.error().code == ErrorCode::kNotSupported);
  CHECK(bounded.error().message.find("needs more than") != std::string::npos);
}
