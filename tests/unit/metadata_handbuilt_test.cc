// The `_metadata` codec on annotated hand-built files: the versions and handle kinds that no
// corpus file contains (V1, V5, V6, V7, the Flink 1.11 channel layout, changelog, incremental,
// file-merging handles, master states, finished subtasks), and how hostile bytes are refused.
//
// Each file is spelled out one field per line, in the manner of LLVM's MinidumpTest, from the
// layouts in Flink's MetadataV*Serializer classes, so the expected bytes do not come from ckpt.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ckpt/metadata.h"
#include "format/java/java_serialization.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

// Big-endian field packing, independent of the library's ByteWriter.
struct Bytes {
  std::string b;
  Bytes& u8(uint8_t v) { b.push_back(static_cast<char>(v)); return *this; }
  Bytes& i32(int64_t v) { for (int s = 24; s >= 0; s -= 8) u8(static_cast<uint8_t>(static_cast<uint64_t>(v) >> s)); return *this; }
  Bytes& i64(int64_t v) { for (int s = 56; s >= 0; s -= 8) u8(static_cast<uint8_t>(static_cast<uint64_t>(v) >> s)); return *this; }
  Bytes& utf(std::string_view ascii) {  // writeUTF of plain ASCII: u16 length, the bytes
    REQUIRE(ascii.size() < 0x10000);
    u8(static_cast<uint8_t>(ascii.size() >> 8)).u8(static_cast<uint8_t>(ascii.size()));
    b.append(ascii);
    return *this;
  }
  Bytes& raw(std::string_view r) { b.append(r); return *this; }
  Bytes& id(uint8_t first) { for (int i = 0; i < 16; ++i) u8(static_cast<uint8_t>(first + i)); return *this; }
  operator std::string() const { return b; }  // NOLINT(google-explicit-constructor)
};

constexpr int32_t kMagic = 0x4960672D;

CheckpointProperties checkpoint_properties() {
  CheckpointProperties p;
  p.present = true;
  p.discard_subsumed = p.discard_finished = p.discard_cancelled = true;
  p.discard_failed = p.discard_suspended = true;
  p.type_class = "org.apache.flink.runtime.checkpoint.CheckpointType";
  p.type_name = "Checkpoint";
  p.sharing_files_strategy = "FORWARD_BACKWARD";
  return p;
}

// Decodes, checks the bytes come back unchanged, and returns the model. Unless told otherwise,
// also checks that every strict prefix is refused.
Metadata round_trip(const std::string& bytes, bool prefixes_must_fail = true) {
  auto m = decode_metadata(bytes);
  if (!m.ok()) FAIL(m.error().to_string());
  auto out = encode_metadata(*m);
  if (!out.ok()) FAIL(out.error().to_string());
  CHECK(*out == bytes);
  // Every strict prefix is an error (never a crash), pointing inside the file.
  for (size_t n = 0; prefixes_must_fail && n < bytes.size(); ++n) {
    auto cut = decode_metadata(std::string_view(bytes).substr(0, n));
    INFO("prefix of " << n << " bytes");
    REQUIRE_FALSE(cut.ok());
    REQUIRE(cut.error().offset.has_value());
    CHECK(*cut.error().offset <= n);
  }
  return std::move(m).value();
}

Error decode_error(const std::string& bytes) {
  auto m = decode_metadata(bytes, "chk-7/_metadata");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().file == "chk-7/_metadata");
  return m.error();
}

}  // namespace

TEST_CASE("a V1 (Flink 1.2) job-vertex record with a two-operator chain round-trips", "[unit][format]") {
  // Proves the V1 layout: chain length, per-chain legacy/managed/raw lists with null entries,
  // the duration field, and V1's lack of master states.
  std::string file = Bytes()
      .i32(kMagic)                 // magic
      .i32(1)                      // version 1
      .i64(42)                     // checkpoint id
      .i32(1)                      // 1 task record
      .id(0x10)                    // job vertex id 101112...1f
      .i32(2)                      // parallelism
      .i32(128)                    // max parallelism
      .i32(2)                      // chain length
      .i32(1)                      // 1 subtask entry
      .i32(1)                      //   subtask index 1
      .i64(-1)                     //   duration
      .i32(2)                      //   2 legacy handles
      .u8(1)                       //     type 1, inline bytes
      .utf("legacy")               //       name
      .i32(3).raw("abc")           //       3 bytes
      .u8(0)                       //     null
      .i32(2)                      //   2 managed operator handles (one per chained operator)
      .u8(4)                       //     type 4, partitionable operator state
      .i32(1)                      //       1 named state
      .utf("_default_")            //         name
      .u8(0)                       //         SPLIT_DISTRIBUTE
      .i32(2).i64(5).i64(9)        //         2 offsets
      .u8(2)                       //       delegate: type 2, absolute file
      .i64(17)                     //         size
      .utf("file:/ckpt/op")        //         path
      .u8(0)                       //     null (second operator of the chain)
      .i32(0)                      //   no raw operator handles
      .u8(3)                       //   managed keyed: type 3, key groups
      .i32(0).i32(2)               //     range: first 0, count 2
      .i64(0).i64(11)              //     2 offsets
      .u8(1).utf("kg").i32(1).raw("z")  //  delegate: inline, 1 byte
      .u8(0);                      //   raw keyed: none
  Metadata m = round_trip(file);
  CHECK(m.version == 1);
  CHECK(m.checkpoint_id == 42);
  REQUIRE(m.operators.size() == 1);
  const OperatorState& op = m.operators[0];
  CHECK(operator_id_hex(op.id) == "101112131415161718191a1b1c1d1e1f");
  CHECK(op.chain_length == 2);
  CHECK(op.max_parallelism == 128);
  REQUIRE(op.subtasks.size() == 1);
  const SubtaskState& st = op.subtasks[0];
  CHECK(st.index == 1);
  CHECK(st.duration == -1);
  REQUIRE(st.legacy.size() == 2);
  CHECK(st.legacy[0].data == "abc");
  CHECK(st.legacy[1].is_null());
  REQUIRE(st.managed_operator.size() == 2);
  CHECK(st.managed_operator[0].states.at(0).offsets == std::vector<int64_t>{5, 9});
  CHECK(st.managed_operator[0].delegate.path == "file:/ckpt/op");
  CHECK(st.managed_operator[0].delegate.state_size() == 17);
  CHECK(st.managed_operator[1].is_null());
  CHECK(st.raw_operator.empty());
  CHECK(st.managed_keyed.type == handle_type::kKeyGroups);
  CHECK(st.managed_keyed.range == KeyGroupRange{0, 2});
  CHECK(st.managed_keyed.offsets == std::vector<int64_t>{0, 11});
  bool inferred = false;
  CHECK(m.kind(&inferred) == SnapshotKind::kUnknown);
  CHECK(inferred);

  std::string trailing = file + "x";
  Error e = decode_error(trailing);
  CHECK(e.message == "1 trailing bytes after the last operator record");
  CHECK(e.offset == file.size());
}

TEST_CASE("V2 master states and the Flink 1.3 legacy entry round-trip", "[unit][format]") {
  // Proves the master-state block (magic, length, version, name, payload) and V2's ignored
  // chain-length field and presence-flagged operator slots.
  std::string file = Bytes()
      .i32(kMagic)                 // magic
      .i32(2)                      // version 2
      .i64(3)                      // checkpoint id
      .i32(1)                      // 1 master state
      .i32(0xC96B1696)             //   master state magic
      .i32(4 + 2 + 4 + 4 + 3)      //   block length 17
      .i32(7)                      //     hook version
      .utf("hook")                 //     hook name
      .i32(3).raw("\x01\x02\x03")  //     payload
      .i32(1)                      // 1 operator
      .id(0xA0)                    //   operator id
      .i32(1)                      //   parallelism
      .i32(1)                      //   max parallelism
      .i32(1)                      //   former chain length
      .i32(1)                      //   1 subtask
      .i32(0)                      //     index 0
      .i64(-1)                     //     duration
      .i32(0)                      //     no legacy handles
      .i32(1)                      //     managed operator state present
      .u8(0)                       //       ... and null
      .i32(0)                      //     raw operator state absent
      .u8(0)                       //     managed keyed: none
      .u8(0);                      //     raw keyed: none
  Metadata m = round_trip(file);
  REQUIRE(m.master_states.size() == 1);
  CHECK(m.master_states[0].version == 7);
  CHECK(m.master_states[0].name == "hook");
  CHECK(m.master_states[0].payload == "\x01\x02\x03");
  REQUIRE(m.operators.at(0).subtasks.at(0).managed_operator.size() == 1);
  CHECK(m.operators[0].subtasks[0].managed_operator[0].is_null());

  // A block longer than its fields is corrupt, as Flink's "found trailing bytes" check says.
  std::string padded = file;
  padded[0x1B] = 18;                                   // block length 18
  padded.insert(0x1C + 17, 1, '\0');
  Error e = decode_error(padded);
  CHECK(e.message == "1 trailing bytes in the master state block");
  CHECK(e.offset == 0x1Cu + 17);
}

TEST_CASE("a V5 file with names - uids - coordinator state - finished subtasks and a fully finished operator round-trips", "[unit][format]") {
  // Proves V5's name/uid prefix, the FLIP-147 markers (-(index+1) and count -1) and the
  // properties trailer being read to the end of the file.
  std::string trailer = encode_checkpoint_properties(checkpoint_properties());
  std::string file = Bytes()
      .i32(kMagic)                 // magic
      .i32(5)                      // version 5
      .i64(9)                      // checkpoint id
      .i32(0)                      // no master states
      .i32(2)                      // 2 operators
      .utf("Source: numbers")      //   name
      .utf("src-uid")              //   uid
      .id(0x01)                    //   operator id
      .i32(2)                      //   parallelism
      .i32(4)                      //   max parallelism
      .u8(1)                       //   coordinator: inline bytes
      .utf("0102030405060708090a0b0c0d0e0f10")  // named after the operator
      .i32(2).raw("ok")            //     2 bytes
      .i32(2)                      //   2 subtask entries
      .i32(-1)                     //     subtask 0, finished
      .i32(1)                      //     subtask 1
      .i32(1)                      //       managed operator state present
      .u8(4)                       //       type 4
      .i32(1)                      //         1 named state
      .utf("SourceReaderState")    //           name
      .u8(0)                       //           SPLIT_DISTRIBUTE
      .i32(0)                      //           no offsets
      .u8(6)                       //         delegate: relative file
      .utf("3f1c")                 //           path
      .i64(12)                     //           size
      .i32(0)                      //       raw operator state absent
      .u8(0).u8(0)                 //       no keyed state
      .i32(0).i32(0)               //       no channel state
      .utf("")                     //   name: not stored
      .utf("")                     //   uid: not stored
      .id(0x40)                    //   operator id
      .i32(3)                      //   parallelism
      .i32(3)                      //   max parallelism
      .u8(0)                       //   no coordinator state
      .i32(-1)                     //   fully finished
      .raw(trailer);               // checkpoint properties (Java serialization) to EOF
  Metadata m = round_trip(file);
  REQUIRE(m.operators.size() == 2);
  CHECK(m.operators[0].name == "Source: numbers");
  CHECK(m.operators[0].uid == "src-uid");
  CHECK(m.operators[0].coordinator.type == handle_type::kByteStream);
  CHECK(m.operators[0].coordinator.data == "ok");
  REQUIRE(m.operators[0].subtasks.size() == 2);
  CHECK(m.operators[0].subtasks[0].finished);
  CHECK(m.operators[0].subtasks[0].index == 0);
  CHECK_FALSE(m.operators[0].subtasks[1].finished);
  CHECK(m.operators[0].subtasks[1].managed_operator.at(0).delegate.path == "3f1c");
  CHECK(m.operators[1].name.empty());
  CHECK(m.operators[1].fully_finished);
  CHECK(m.operators[1].subtasks.empty());
  CHECK(m.properties_raw == trailer);
  CHECK(m.properties.present);
  CHECK(m.properties.type_name == "Checkpoint");
  bool inferred = true;
  CHECK(m.kind(&inferred) == SnapshotKind::kCheckpoint);
  CHECK_FALSE(inferred);

  // Changing the model's properties re-encodes the trailer; decoding gives the change back.
  m.properties.forced = true;
  auto out = encode_metadata(m);
  REQUIRE(out.ok());
  auto back = decode_metadata(*out);
  REQUIRE(back.ok());
  CHECK(back->properties.forced);
}

TEST_CASE("V6 channel handle kinds (plain and merged) round-trip", "[unit][format]") {
  // Proves ChannelStateHandleSerializerV2: a kind byte before each handle, merged handles with
  // subtask index, size, delegate and opaque serialized offsets.
  std::string trailer = encode_checkpoint_properties(checkpoint_properties());
  std::string file = Bytes()
      .i32(kMagic).i32(6)          // magic, version 6
      .i64(5)                      // checkpoint id
      .i32(0)                      // no master states
      .i32(1)                      // 1 operator
      .utf("map").utf("")          //   name, no uid
      .id(0x20)                    //   operator id
      .i32(1).i32(1)               //   parallelism, max parallelism
      .u8(0)                       //   no coordinator state
      .i32(1)                      //   1 subtask
      .i32(0)                      //     index 0
      .i32(0).i32(0)               //     no operator state
      .u8(0).u8(0)                 //     no keyed state
      .i32(2)                      //     2 input channel handles
      .u8(1)                       //       kind 1: input channel
      .i32(0)                      //         subtask index
      .i32(1)                      //         gate index
      .i32(2)                      //         channel index
      .i32(1).i64(0)               //         1 offset
      .i64(40)                     //         size
      .u8(6).utf("in-1").i64(40)   //         delegate: relative file
      .u8(3)                       //       kind 3: merged input channels
      .i32(0)                      //         subtask index
      .i64(64)                     //         state size
      .u8(6).utf("in-2").i64(64)   //         delegate
      .i32(5).raw(std::string_view("\x00\x01\x02\x03\x04", 5))  // serialized offsets
      .i32(1)                      //     1 result subpartition handle
      .u8(4)                       //       kind 4: merged result subpartitions
      .i32(0)                      //         subtask index
      .i64(8)                      //         state size
      .u8(16)                      //         delegate: empty segment
      .i32(0)                      //         no serialized offsets
      .raw(trailer);               // checkpoint properties
  Metadata m = round_trip(file);
  const SubtaskState& st = m.operators.at(0).subtasks.at(0);
  REQUIRE(st.input_channels.size() == 2);
  CHECK(st.input_channels[0].v6_kind == 1);
  CHECK(st.input_channels[0].gate_or_partition == 1);
  CHECK(st.input_channels[0].channel_or_subpartition == 2);
  CHECK(st.input_channels[1].v6_kind == 3);
  CHECK(st.input_channels[1].size == 64);
  CHECK(st.input_channels[1].merged_offsets == std::string("\x00\x01\x02\x03\x04", 5));
  REQUIRE(st.result_subpartitions.size() == 1);
  CHECK(st.result_subpartitions[0].v6_kind == 4);
  CHECK(st.result_subpartitions[0].delegate.type == handle_type::kEmptySegmentFile);

  // An output kind in the input list is refused where it stands.
  std::string wrong = file;
  size_t kind_at = file.find(std::string("\x00\x00\x00\x02\x01", 5)) + 4;
  REQUIRE(static_cast<uint8_t>(wrong[kind_at]) == 1);
  wrong[kind_at] = 2;
  Error e = decode_error(wrong);
  CHECK(e.message == "input channel state handle kind 0x02 not allowed here");
  CHECK(e.offset == kind_at);
}

TEST_CASE("V7 subtask records carry an optional reused checkpoint id", "[unit][format]") {
  // Proves MetadataV7Serializer's trailing presence byte and long after each subtask record.
  std::string trailer = encode_checkpoint_properties(checkpoint_properties());
  auto subtask = [](Bytes& b, int32_t index, std::optional<int64_t> reused) {
    b.i32(index)                   // subtask index
     .i32(0).i32(0)                // no operator state
     .u8(0).u8(0)                  // no keyed state
     .i32(0).i32(0);               // no channel state
    if (reused) b.u8(1).i64(*reused);  // reused checkpoint id present
    else b.u8(0);                  // ... or absent
  };
  Bytes b;
  b.i32(kMagic).i32(7)             // magic, version 7
   .i64(12)                        // checkpoint id
   .i32(0)                         // no master states
   .i32(1)                         // 1 operator
   .utf("").utf("")                //   no name, no uid
   .id(0x30)                       //   operator id
   .i32(3).i32(3)                  //   parallelism, max parallelism
   .u8(0)                          //   no coordinator state
   .i32(3);                        //   3 subtask entries
  subtask(b, 0, 10);
  subtask(b, 1, std::nullopt);
  b.i32(-3);                       //   subtask 2, finished: no record, no marker
  b.raw(trailer);
  std::string file = b;
  Metadata m = round_trip(file);
  const auto& subs = m.operators.at(0).subtasks;
  REQUIRE(subs.size() == 3);
  CHECK(subs[0].reused_checkpoint_id == std::optional<int64_t>(10));
  CHECK_FALSE(subs[1].reused_checkpoint_id.has_value());
  CHECK(subs[2].finished);
  CHECK(subs[2].index == 2);

  // A marker other than 0 or 1 could not be written back as read.
  std::string bad = file;
  size_t marker_at = file.size() - trailer.size() - 4 - 1;  // before subtask 2's index
  REQUIRE(bad[marker_at] == 0);
  bad[marker_at] = 2;
  Error e = decode_error(bad);
  CHECK(e.message == "reused checkpoint id marker 0x02 is neither 0 nor 1");
  CHECK(e.offset == marker_at);
}

TEST_CASE("a Flink 1.11 V3 file without channel subtask indices is read and written back in its layout", "[unit][format]") {
  // Proves the fallback for the silent 1.11 -> 1.12 change: when the 1.12 layout does not fit,
  // channel handles are read without the leading subtask index and recorded as such.
  std::string file = Bytes()
      .i32(kMagic).i32(3)          // magic, version 3
      .i64(2)                      // checkpoint id
      .i32(0)                      // no master states
      .i32(1)                      // 1 operator
      .id(0x50)                    //   operator id
      .i32(1).i32(128)             //   parallelism, max parallelism
      .u8(0)                       //   no coordinator state
      .i32(1)                      //   1 subtask
      .i32(0)                      //     index 0
      .i32(0).i32(0)               //     no operator state
      .u8(0).u8(0)                 //     no keyed state
      .i32(0)                      //     no input channel handles
      .i32(1)                      //     1 result subpartition handle (1.11: no subtask index)
      .i32(0)                      //       partition index
      .i32(1)                      //       subpartition index
      .i32(1).i64(0)               //       1 offset
      .i64(3)                      //       size
      .u8(1).utf("b").i32(3).raw("xyz");  // delegate: inline
  Metadata m = round_trip(file, /*prefixes_must_fail=*/false);
  const auto& out = m.operators.at(0).subtasks.at(0).result_subpartitions;
  REQUIRE(out.size() == 1);
  CHECK_FALSE(out[0].has_subtask_index);
  CHECK(out[0].gate_or_partition == 0);
  CHECK(out[0].channel_or_subpartition == 1);
  CHECK(out[0].delegate.data == "xyz");

  // The layouts are ambiguous, which is why the 1.12 one is tried first: the file cut after the
  // fifth byte of the size is a complete 1.12 file whose handle reads subtask 0, partition 1,
  // subpartition 1, no offsets, size 0 and a null delegate. No other prefix decodes.
  int decodable = 0;
  for (size_t n = 0; n < file.size(); ++n) {
    auto cut = decode_metadata(std::string_view(file).substr(0, n));
    if (!cut.ok()) continue;
    ++decodable;
    CHECK(n == file.size() - 3 - (1 + 3 + 4 + 3));  // 3 size bytes, the inline delegate
    const ChannelHandle& h = cut->operators.at(0).subtasks.at(0).result_subpartitions.at(0);
    CHECK(h.has_subtask_index);
    CHECK(h.delegate.is_null());
  }
  CHECK(decodable == 1);

  // One file holds one layout: a 1.12 handle beside the 1.11 one cannot be written.
  Metadata mixed = m;
  mixed.operators[0].subtasks[0].input_channels.emplace_back();
  auto mix = encode_metadata(mixed);
  REQUIRE_FALSE(mix.ok());
  CHECK(mix.error().message == "channel handles mix the Flink 1.11 and 1.12 layouts");

  // The same handle in a V4 file cannot be written: only V3 files had that layout.
  m.version = 4;
  m.properties = checkpoint_properties();
  auto enc = encode_metadata(m);
  REQUIRE_FALSE(enc.ok());
  CHECK(enc.error().message == "only version 3 has the Flink 1.11 channel layout");
}

TEST_CASE("changelog handles 8 - 9 - 10 - 13 and 14 nest and round-trip", "[unit][format]") {
  // Proves the 1.15+ changelog layouts: 14 with materialized and non-materialized parts (a null
  // materialized entry kept), 13 with pieces and a storage id, 10 without one, 8 without a
  // checkpoint id (which reads as the materialization id), 9 with a metadata change (-1).
  std::string trailer = encode_checkpoint_properties(checkpoint_properties());
  std::string file = Bytes()
      .i32(kMagic).i32(4)          // magic, version 4
      .i64(8)                      // checkpoint id
      .i32(0)                      // no master states
      .i32(1)                      // 1 operator
      .id(0x60)                    //   operator id
      .i32(1).i32(8)               //   parallelism, max parallelism
      .u8(0)                       //   no coordinator state
      .i32(1)                      //   1 subtask
      .i32(0)                      //     index 0
      .i32(0).i32(0)               //     no operator state
      .u8(14)                      //     managed keyed: type 14, changelog backend
      .i32(0).i32(8)               //       range 0..7
      .i64(300)                    //       checkpointed size
      .i32(2)                      //       2 materialized handles
      .u8(12)                      //         type 12, key groups with id
      .i32(0).i32(1).i64(0)        //           range 0..0, 1 offset
      .u8(6).utf("m1").i64(10)     //           delegate: relative file
      .utf("kg-id")                //           state handle id
      .u8(0)                       //         null (Flink drops it with a warning)
      .i32(3)                      //       3 non-materialized handles
      .u8(13)                      //         type 13, change log in files
      .i32(0).i32(8)               //           range
      .i32(2)                      //           2 pieces
      .i64(0).u8(6).utf("log").i64(90)   //     offset 0 of a relative file
      .i64(45).u8(2).i64(90).utf("file:/dfs/log")  // offset 45 of an absolute file
      .i64(90)                     //           state size
      .i64(90)                     //           checkpointed size
      .utf("cl-id")                //           state handle id
      .utf("filesystem")           //           storage identifier
      .u8(10)                      //         type 10, first file layout
      .i32(0).i32(8)               //           range
      .i32(0)                      //           no pieces
      .i64(0).i64(0)               //           state size, checkpointed size
      .utf("cl-old")               //           state handle id (no storage id)
      .u8(9)                       //         type 9, in-memory change log
      .i32(0).i32(8)               //           range
      .i64(1).i64(3)               //           sequence numbers 1..3
      .i32(2)                      //           2 changes
      .i32(-1).i32(2).raw("md")    //             metadata change
      .i32(5).i32(1).raw("v")      //             key group 5
      .utf("mem-id")               //           state handle id
      .i64(4)                      //       materialization id
      .i64(8)                      //       checkpoint id
      .utf("backend-id")           //       state handle id
      .u8(8)                       //     raw keyed: type 8, changelog backend, first layout
      .i32(0).i32(0)               //       empty range
      .i64(-1)                     //       checkpointed size
      .i32(0).i32(0)               //       no parts
      .i64(6)                      //       materialization id (no checkpoint id follows)
      .utf("old-backend")          //       state handle id
      .i32(0).i32(0)               //     no channel state
      .raw(trailer);
  Metadata m = round_trip(file);
  const SubtaskState& st = m.operators.at(0).subtasks.at(0);
  const KeyedHandle& cl = st.managed_keyed;
  CHECK(cl.type == handle_type::kChangelogBackend);
  CHECK(cl.checkpointed_size == 300);
  REQUIRE(cl.materialized.size() == 2);
  CHECK(cl.materialized[0].handle_id == "kg-id");
  CHECK(cl.materialized[1].is_null());
  REQUIRE(cl.non_materialized.size() == 3);
  const KeyedHandle& files = cl.non_materialized[0];
  REQUIRE(files.pieces.size() == 2);
  CHECK(files.pieces[1].offset == 45);
  CHECK(files.pieces[1].handle.path == "file:/dfs/log");
  CHECK(files.storage_id == "filesystem");
  CHECK(cl.non_materialized[1].storage_id.empty());
  const KeyedHandle& mem = cl.non_materialized[2];
  REQUIRE(mem.changes.size() == 2);
  CHECK(mem.changes[0].key_group == -1);
  CHECK(mem.changes[0].bytes == "md");
  CHECK(cl.materialization_id == 4);
  CHECK(cl.checkpoint_id == 8);
  CHECK(st.raw_keyed.type == handle_type::kChangelogBackendV1);
  CHECK(st.raw_keyed.checkpoint_id == 6);
  CHECK(st.raw_keyed.range.empty());

  // A non-changelog handle in the non-materialized list is refused.
  std::string wrong = file;
  size_t at = file.find(std::string("\x00\x00\x00\x03\x0d", 5)) + 4;
  wrong[at] = 12;
  Error e = decode_error(wrong);
  CHECK(e.message == "keyed state handle type 0x0c not allowed here");
  CHECK(e.offset == at);
}

TEST_CASE("incremental handles 5 and 11 and file-merging handles 15 - 16 and 17 round-trip", "[unit][format]") {
  // Proves both incremental layouts (5 without checkpointed size and id), a key-groups handle
  // used as a shared file (type 3 in the stream context), segment and empty-segment handles and
  // the file-merging operator handle with its directories and empty flag.
  std::string trailer = encode_checkpoint_properties(checkpoint_properties());
  std::string file = Bytes()
      .i32(kMagic).i32(4)          // magic, version 4
      .i64(11)                     // checkpoint id
      .i32(0)                      // no master states
      .i32(1)                      // 1 operator
      .id(0x70)                    //   operator id
      .i32(2).i32(2)               //   parallelism, max parallelism
      .u8(0)                       //   no coordinator state
      .i32(2)                      //   2 subtasks
      .i32(0)                      //   subtask 0
      .i32(1)                      //     managed operator state present
      .u8(17)                      //     type 17, file-merging operator state
      .i32(1)                      //       1 named state
      .utf("buffer").u8(2)         //         name, BROADCAST
      .i32(1).i64(0)               //         1 offset
      .utf("file:/ckpt/taskowned/tm-1")   // task-owned directory
      .utf("file:/ckpt/shared/job_op_0_2")  // shared directory
      .u8(0)                       //       not the empty variant
      .u8(15)                      //       delegate: type 15, segment
      .i64(128)                    //         start
      .i64(64)                     //         length
      .i32(0)                      //         scope EXCLUSIVE
      .utf("file:/ckpt/taskowned/tm-1/8a1f")  // physical file
      .utf("logical-1")            //         logical file id
      .i32(0)                      //     raw operator state absent
      .u8(11)                      //     managed keyed: type 11, incremental
      .i64(11)                     //       checkpoint id
      .utf("0b6f7a1e-5c4d-4e3f-9a2b-1c0d9e8f7a6b")  // backend id
      .i32(0).i32(1)               //       range 0..0
      .i64(2048)                   //       checkpointed size
      .u8(6).utf("meta").i64(100)  //       meta data: relative file
      .i32(2)                      //       2 shared files
      .utf("000010.sst")           //         local name
      .u8(15).i64(0).i64(512).i32(1)  //      segment of a SHARED file
      .utf("file:/ckpt/shared/x").utf("logical-2")
      .utf("000011.sst")           //         local name
      .u8(3)                       //         key groups used as a stream
      .i32(0).i32(1).i64(0)        //           range 0..0, 1 offset
      .u8(1).utf("n").i32(0)       //           delegate: empty inline handle
      .i32(1)                      //       1 private file
      .utf("CURRENT").u8(16)       //         empty segment
      .utf("inc-id")               //       state handle id
      .u8(0)                       //     raw keyed: none
      .i32(0).i32(0)               //     no channel state
      .i32(1)                      //   subtask 1
      .i32(1)                      //     managed operator state present
      .u8(17)                      //     type 17, the empty variant
      .i32(0)                      //       no named states
      .utf("file:/ckpt/taskowned/tm-2").utf("file:/ckpt/shared/job_op_1_2")
      .u8(1)                       //       empty variant
      .u8(16)                      //       delegate: empty segment
      .i32(0)                      //     raw operator state absent
      .u8(5)                       //     managed keyed: type 5, incremental (Flink 1.3 layout)
      .i64(2)                      //       checkpoint id
      .utf("flink-1.3-operator")   //       backend id (not a UUID in 1.3)
      .i32(1).i32(1)               //       range 1..1
      .u8(0)                       //       no meta data
      .i32(0).i32(0)               //       no shared, no private files
      .u8(0)                       //     raw keyed: none
      .i32(0).i32(0)               //     no channel state
      .raw(trailer);
  Metadata m = round_trip(file);
  const auto& subs = m.operators.at(0).subtasks;
  REQUIRE(subs.size() == 2);
  const OperatorHandle& fm = subs[0].managed_operator.at(0);
  CHECK(fm.type == handle_type::kFileMergingOperator);
  CHECK(fm.states.at(0).mode == DistributionMode::kBroadcast);
  CHECK(fm.taskowned_dir == "file:/ckpt/taskowned/tm-1");
  CHECK_FALSE(fm.empty_variant);
  CHECK(fm.delegate.start == 128);
  CHECK(fm.delegate.state_size() == 64);
  CHECK(fm.delegate.logical_id == "logical-1");
  const KeyedHandle& inc = subs[0].managed_keyed;
  CHECK(inc.checkpointed_size == 2048);
  REQUIRE(inc.shared_files.size() == 2);
  CHECK(inc.shared_files[0].handle.scope == 1);
  CHECK(inc.shared_files[1].handle.type == handle_type::kKeyGroups);
  REQUIRE(inc.shared_files[1].handle.key_groups.size() == 1);
  CHECK(inc.shared_files[1].handle.key_groups[0].offsets == std::vector<int64_t>{0});
  CHECK(inc.private_files.at(0).handle.type == handle_type::kEmptySegmentFile);
  CHECK(inc.handle_id == "inc-id");
  CHECK(subs[1].managed_operator.at(0).empty_variant);
  const KeyedHandle& v1 = subs[1].managed_keyed;
  CHECK(v1.type == handle_type::kIncrementalV1);
  CHECK(v1.backend_id == "flink-1.3-operator");
  CHECK(v1.checkpointed_size == -1);
  CHECK(v1.handle_id.empty());

  // A type-17 handle must delegate to a segment: a relative file there is refused.
  Metadata bad = m;
  bad.operators[0].subtasks[0].managed_operator[0].delegate = StreamHandle{};
  bad.operators[0].subtasks[0].managed_operator[0].delegate.type = handle_type::kRelativeFile;
  auto enc = encode_metadata(bad);
  REQUIRE_FALSE(enc.ok());
  CHECK(enc.error().message == "stream state handle type 0x06 not allowed here");
  CHECK(enc.error().context == "operator 707172737475767778797a7b7c7d7e7f, subtask 0");
}

TEST_CASE("type bytes outside their context are refused with the offset of the type byte", "[unit][corrupt][format]") {
  // Proves the reader's context rules: unknown bytes, registered kinds in the wrong position,
  // and a coordinator state that is not inline.
  auto v3_with_keyed = [](uint8_t keyed_type) {
    return std::string(Bytes()
        .i32(kMagic).i32(3)        // magic, version 3
        .i64(1).i32(0)             // checkpoint id, no master states
        .i32(1).id(0x00)           // 1 operator, id
        .i32(1).i32(1)             // parallelism, max parallelism
        .u8(0)                     // no coordinator
        .i32(1).i32(0)             // 1 subtask, index 0
        .i32(0).i32(0)             // no operator state
        .u8(keyed_type));          // managed keyed type byte at 0x41
  };
  Error unknown = decode_error(v3_with_keyed(0x2a));
  CHECK(unknown.message == "unknown keyed state handle type 0x2a");
  CHECK(unknown.offset == 0x41u);
  CHECK(unknown.context == "operator 000102030405060708090a0b0c0d0e0f, subtask 0");
  CHECK(unknown.to_string() ==
        "'chk-7/_metadata': operator 000102030405060708090a0b0c0d0e0f, subtask 0: "
        "unknown keyed state handle type 0x2a at offset 0x41");
  Error misplaced = decode_error(v3_with_keyed(4));
  CHECK(misplaced.message == "keyed state handle type 0x04 not allowed here");

  std::string stream_ctx = Bytes()
      .i32(kMagic).i32(3).i64(1).i32(0)  // header, no master states
      .i32(1).id(0x00).i32(1).i32(1)     // operator
      .u8(0)                             // no coordinator
      .i32(1).i32(0)                     // subtask 0
      .i32(1).u8(4).i32(0)               // operator state, no entries
      .u8(4);                            // delegate: type 4 at 0x42
  Error op_as_stream = decode_error(stream_ctx);
  CHECK(op_as_stream.message == "stream state handle type 0x04 not allowed here");
  CHECK(op_as_stream.offset == 0x42u);

  std::string coordinator = Bytes()
      .i32(kMagic).i32(3).i64(1).i32(0)
      .i32(1).id(0x00).i32(1).i32(1)
      .u8(6).utf("f").i64(1)             // coordinator as a relative file
      .i32(0);
  Error coord = decode_error(coordinator);
  CHECK(coord.message == "stream state handle type 0x06 not allowed here");
  CHECK(coord.offset == 0x30u);
}

TEST_CASE("hostile counts - nesting and markers are refused before allocating", "[unit][corrupt][format]") {
  // Proves that counts are bounded by the bytes left, that nesting depth is bounded, and that
  // values Flink never writes (which could not be written back as read) are errors.
  std::string header = Bytes().i32(kMagic).i32(3).i64(1).i32(0);
  Error ops = decode_error(std::string(Bytes().raw(header).i32(0x7fffffff)));
  CHECK(ops.message.find("operator count 2147483647 needs at least") == 0);
  CHECK(ops.offset == 0x14u);

  Error magic = decode_error(std::string(Bytes().i32(0x12345678).i32(3)));
  CHECK(magic.message == "not a flink metadata file: magic 0x12345678, expected 0x4960672d");
  Error version = decode_error(std::string(Bytes().i32(kMagic).i32(8)));
  CHECK(version.code == ErrorCode::kNotSupported);
  CHECK(version.offset == 4u);

  // Key-groups handles used as streams, each nesting the next, 40 deep.
  Bytes deep;
  deep.raw(header).i32(1).id(0).i32(1).i32(1).u8(0).i32(1).i32(0).i32(0).i32(0);
  deep.u8(3).i32(0).i32(0);  // keyed type 3, empty range
  for (int i = 0; i < 40; ++i) deep.u8(3).i32(0).i32(0);
  Error nesting = decode_error(deep);
  CHECK(nesting.message == "state handles nested deeper than 32 levels");

  Bytes finished_op;
  finished_op.raw(header).i32(1).id(0).i32(1).i32(1).u8(0).i32(-2);
  CHECK(decode_error(finished_op).message == "invalid subtask count -2");
  Bytes finished_coord;
  finished_coord.raw(header).i32(1).id(0).i32(1).i32(1).u8(1).utf("c").i32(0).i32(-1);
  CHECK(decode_error(finished_coord).message == "fully finished operator has coordinator state");

  Bytes flag;
  flag.raw(header).i32(1).id(0).i32(1).i32(1).u8(0).i32(1).i32(0).i32(2);
  CHECK(decode_error(flag).message == "operator state presence flag 2 is neither 0 nor 1");

  Bytes mode;
  mode.raw(header).i32(1).id(0).i32(1).i32(1).u8(0).i32(1).i32(0).i32(1).u8(4).i32(1).utf("s").u8(3).i32(0).u8(0);
  CHECK(decode_error(mode).message == "unknown distribution mode 3");

  Bytes range;
  range.raw(header).i32(1).id(0).i32(1).i32(1).u8(0).i32(1).i32(0).i32(0).i32(0)
      .u8(12).i32(-5).i32(1).i64(0).u8(0).utf("id");
  CHECK(decode_error(range).message == "invalid key-group range: first -5, count 1");

  Bytes v4_no_trailer;
  v4_no_trailer.i32(kMagic).i32(4).i64(1).i32(0).i32(0);
  Error trailer = decode_error(v4_no_trailer);
  CHECK(trailer.message == "missing checkpoint properties after the last operator record");
  CHECK(trailer.offset == 0x18u);
}

TEST_CASE("a parallelism below 0 or above the max parallelism is refused at its offset", "[unit][format]") {
  // Flink's OperatorState constructor refuses both (a HashMap of `parallelism` buckets, then
  // parallelism <= max parallelism); it accepts a max parallelism of 0 with parallelism 0.
  auto file = [](int32_t parallelism, int32_t max_parallelism) {
    return std::string(Bytes()
                           .i32(kMagic).i32(3).i64(1).i32(0)      // magic, V3, checkpoint 1, no master state
                           .i32(1).id(0)                          // one operator, its id
                           .i32(parallelism).i32(max_parallelism)  // at 0x28
                           .u8(0)                                 // no coordinator state
                           .i32(0));                              // no subtask
  };
  Error negative = decode_error(file(-5, 128));
  CHECK(negative.message == "invalid parallelism -5");
  CHECK(negative.offset == 0x28u);
  for (int32_t max : {0, -1}) {
    Error above = decode_error(file(2, max));
    CHECK(above.message == "parallelism 2 exceeds max parallelism " + std::to_string(max));
    CHECK(above.offset == 0x28u);
  }
  Metadata empty = round_trip(file(0, 0), false);
  CHECK(empty.operators.at(0).max_parallelism == 0);
}

TEST_CASE("the writer refuses models its version cannot hold instead of writing other bytes", "[unit][format]") {
  // Proves encode_metadata's errors: an over-long string, a handle type in the wrong context,
  // V3+ fields in a V2 model and more than one operator handle in a V2+ slot.
  Metadata m;
  m.version = 3;
  OperatorState op;
  op.coordinator.type = handle_type::kByteStream;
  op.coordinator.name = std::string(70000, 'n');
  m.operators.push_back(op);
  auto long_name = encode_metadata(m);
  REQUIRE_FALSE(long_name.ok());
  CHECK(long_name.error().message == "inline handle name of 70000 bytes is longer than the 65535 bytes a string can hold");
  CHECK(long_name.error().code == ErrorCode::kInvalidArgument);

  m.operators[0].coordinator = StreamHandle{};
  SubtaskState st;
  st.managed_keyed.type = handle_type::kPartitionableOperator;
  m.operators[0].subtasks.push_back(st);
  auto wrong = encode_metadata(m);
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message == "keyed state handle type 0x04 not allowed here");

  m.operators[0].subtasks[0].managed_keyed = KeyedHandle{};
  m.operators[0].subtasks[0].managed_operator.resize(2);
  auto two = encode_metadata(m);
  REQUIRE_FALSE(two.ok());
  CHECK(two.error().message == "version 3 holds at most one operator state handle per slot, not 2");

  m.operators[0].subtasks[0].managed_operator.clear();
  m.operators[0].subtasks[0].result_subpartitions.emplace_back();
  m.version = 2;
  auto channels = encode_metadata(m);
  REQUIRE_FALSE(channels.ok());
  CHECK(channels.error().message == "version 2 has no channel state");

  m.version = 9;
  CHECK(encode_metadata(m).error().message == "cannot write metadata version 9 (known: 1 to 7)");
}

TEST_CASE("read_metadata_file accepts a directory or the file and names what it opened", "[unit][format]") {
  // Proves the path rule: a directory means its _metadata, and errors name that file.
  ckpt::test::ScratchDir dir;
  auto missing = read_metadata_file(dir.path());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().file == dir.path() + "/_metadata");
  CHECK(missing.error().code == ErrorCode::kNotFound);

  std::string file = Bytes().i32(kMagic).i32(3).i64(1).i32(0).i32(0);
  ckpt::test::write_file(dir / "_metadata", file);
  auto from_dir = read_metadata_file(dir.path());
  REQUIRE(from_dir.ok());
  auto from_file = read_metadata_file(dir / "_metadata");
  REQUIRE(from_file.ok());
  CHECK(*from_dir == *from_file);

  ckpt::test::write_file(dir / "_metadata", file + "?");
  auto bad = read_metadata_file(dir.path() + "/");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().file == dir.path() + "/_metadata");
}

TEST_CASE("names of type bytes - modes and kinds - and operator id hex round trip", "[unit][format]") {
  // Proves the small helpers of the model used by every printer.
  CHECK(std::string(handle_type_name(handle_type::kRelativeFile)) == "relative-file");
  CHECK(std::string(handle_type_name(handle_type::kFileMergingOperator)) == "file-merging-operator");
  CHECK(std::string(handle_type_name(42)) == "unknown");
  CHECK(std::string(distribution_mode_name(DistributionMode::kUnion)) == "UNION");
  CHECK(std::string(snapshot_kind_name(SnapshotKind::kSavepointNative)) == "savepoint-native");
  OperatorId id{};
  REQUIRE(parse_operator_id("1F2B5DF5A66154ACA61FCB26193792be", &id));
  CHECK(operator_id_hex(id) == "1f2b5df5a66154aca61fcb26193792be");
  CHECK_FALSE(parse_operator_id("1f2b", &id));
  CHECK_FALSE(parse_operator_id("zz2b5df5a66154aca61fcb26193792be", &id));

  // A V3 snapshot with a type-7 keyed handle can only be a canonical savepoint.
  Metadata m;
  m.version = 3;
  m.operators.emplace_back();
  m.operators[0].subtasks.emplace_back();
  m.operators[0].subtasks[0].raw_keyed.type = handle_type::kSavepointKeyGroups;
  bool inferred = false;
  CHECK(m.kind(&inferred) == SnapshotKind::kSavepointCanonical);
  CHECK(inferred);
}
