// The properties trailer codec on hand-assembled Java serialization streams and corruptions.
#include <catch2/catch.hpp>

#include <string>

#include "format/java/java_serialization.h"
#include "support/byte_writer.h"

using namespace ckpt;

namespace {

// A SavepointType stream assembled by hand from the Java Object Serialization Stream Protocol
// (not from the encoder): handle 0x7e0000 is CheckpointProperties' descriptor, ..., 0x7e0009
// java.lang.Enum's, which the second enum refers back to.
std::string hand_built_savepoint(bool forced, const std::string& format, const std::string& name,
                                 const std::string& action) {
  ByteWriter w;
  auto str = [&](const std::string& s) { w.u8(0x74); (void)w.utf(s); };
  auto boolean_field = [&](const char* n) { w.u8('Z'); (void)w.utf(n); };
  // An enum's descriptor up to its superclass, which the caller writes.
  auto enum_desc = [&](const char* cls) {
    w.u8(0x72); (void)w.utf(cls); w.u64(0); w.u8(0x12); w.u16(0); w.u8(0x78);
  };
  w.u16(0xACED); w.u16(5);
  w.u8(0x73);
  w.u8(0x72); (void)w.utf("org.apache.flink.runtime.checkpoint.CheckpointProperties"); w.u64(2); w.u8(2); w.u16(8);
  for (const char* f : {"discardCancelled", "discardFailed", "discardFinished", "discardSubsumed",
                        "discardSuspended", "forced", "unclaimed"})
    boolean_field(f);
  w.u8('L'); (void)w.utf("checkpointType"); str("Lorg/apache/flink/runtime/checkpoint/SnapshotType;");  // 0x7e0001
  w.u8(0x78); w.u8(0x70);
  for (int i = 0; i < 5; ++i) w.u8(0);   // discard*
  w.u8(forced ? 1 : 0);                   // forced
  w.u8(0);                                // unclaimed
  w.u8(0x73);                             // 0x7e0002 the object
  w.u8(0x72); (void)w.utf("org.apache.flink.runtime.checkpoint.SavepointType");  // 0x7e0003
  w.u64(0xA087D308A45814B8ull); w.u8(2); w.u16(3);
  w.u8('L'); (void)w.utf("formatType"); str("Lorg/apache/flink/core/execution/SavepointFormatType;");
  w.u8('L'); (void)w.utf("name"); str("Ljava/lang/String;");
  w.u8('L'); (void)w.utf("postCheckpointAction");
  str("Lorg/apache/flink/runtime/checkpoint/SavepointType$PostCheckpointAction;");  // 0x7e0006
  w.u8(0x78); w.u8(0x70);
  w.u8(0x7E);                             // 0x7e0007 is the SavepointType object
  enum_desc("org.apache.flink.core.execution.SavepointFormatType");  // 0x7e0008
  enum_desc("java.lang.Enum");            // 0x7e0009
  w.u8(0x70);
  str(format);                            // 0x7e000a the constant, 0x7e000b its name
  str(name);
  w.u8(0x7E);
  enum_desc("org.apache.flink.runtime.checkpoint.SavepointType$PostCheckpointAction");
  w.u8(0x71); w.u32(0x7E0009);            // superclass: back to java.lang.Enum
  str(action);
  return w.take();
}

CheckpointProperties savepoint(bool forced, const char* format, const char* name, const char* action) {
  CheckpointProperties p;
  p.present = true;
  p.forced = forced;
  p.type_class = "org.apache.flink.runtime.checkpoint.SavepointType";
  p.type_name = name;
  p.format_type = format;
  p.post_checkpoint_action = action;
  return p;
}

CheckpointProperties checkpoint(const char* name, const char* sharing, bool unclaimed) {
  CheckpointProperties p;
  p.present = true;
  p.discard_subsumed = p.discard_finished = p.discard_cancelled = true;
  p.discard_failed = false;
  p.discard_suspended = true;
  p.unclaimed = unclaimed;
  p.type_class = "org.apache.flink.runtime.checkpoint.CheckpointType";
  p.type_name = name;
  p.sharing_files_strategy = sharing;
  return p;
}

bool same(const CheckpointProperties& a, const CheckpointProperties& b) {
  return a.present == b.present && a.forced == b.forced && a.discard_subsumed == b.discard_subsumed &&
         a.discard_finished == b.discard_finished && a.discard_cancelled == b.discard_cancelled &&
         a.discard_failed == b.discard_failed && a.discard_suspended == b.discard_suspended &&
         a.unclaimed == b.unclaimed && a.type_class == b.type_class && a.type_name == b.type_name &&
         a.sharing_files_strategy == b.sharing_files_strategy && a.format_type == b.format_type &&
         a.post_checkpoint_action == b.post_checkpoint_action;
}

// A string literal that may hold NUL bytes.
template <size_t N>
std::string B(const char (&s)[N]) {
  return std::string(s, N - 1);
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("a hand-assembled stop-with-savepoint stream decodes - and encoding gives the same bytes", "[unit][format]") {
  // Proves the back-reference to java.lang.Enum and the handle numbering match the protocol for
  // the suspend savepoint, which no corpus file contains.
  std::string raw = hand_built_savepoint(true, "CANONICAL", "Suspend Savepoint", "SUSPEND");
  auto p = decode_checkpoint_properties(raw, 0x964);
  REQUIRE(p.ok());
  CHECK(p->present);
  CHECK(p->forced);
  CHECK_FALSE(p->discard_subsumed);
  CHECK(p->type_class == "org.apache.flink.runtime.checkpoint.SavepointType");
  CHECK(p->type_name == "Suspend Savepoint");
  CHECK(p->format_type == "CANONICAL");
  CHECK(p->post_checkpoint_action == "SUSPEND");
  CHECK(p->sharing_files_strategy.empty());
  CHECK(encode_checkpoint_properties(*p) == raw);
  CHECK(encode_checkpoint_properties(savepoint(true, "CANONICAL", "Suspend Savepoint", "SUSPEND")) == raw);
  CHECK(encode_checkpoint_properties(savepoint(false, "NATIVE", "Terminate Savepoint", "TERMINATE")) ==
        hand_built_savepoint(false, "NATIVE", "Terminate Savepoint", "TERMINATE"));
}

TEST_CASE("every kind of properties survives encode then decode", "[unit][format]") {
  // Proves decode(encode(p)) == p for each checkpoint and savepoint type Flink defines.
  const CheckpointProperties all[] = {
      checkpoint("Checkpoint", "FORWARD_BACKWARD", false), checkpoint("Full Checkpoint", "FORWARD", false),
      checkpoint("Checkpoint", "NO_SHARING", true),        savepoint(false, "CANONICAL", "Savepoint", "NONE"),
      savepoint(true, "NATIVE", "Savepoint", "NONE"),      savepoint(true, "NATIVE", "Terminate Savepoint", "TERMINATE"),
      savepoint(false, "CANONICAL", "caf\xc3\xa9 \xf0\x9f\x98\x80", "NONE"),
  };
  for (const auto& p : all) {
    std::string raw = encode_checkpoint_properties(p);
    CHECK(raw.compare(0, 6, "\xac\xed\x00\x05\x73\x72", 6) == 0);
    auto back = decode_checkpoint_properties(raw);
    REQUIRE(back.ok());
    CHECK(same(*back, p));
  }
}

TEST_CASE("every truncation of a properties stream is an error at or before the cut", "[unit][corrupt][format]") {
  // Proves the decoder never reads past the end and always reports where it stopped.
  std::string raw = hand_built_savepoint(false, "NATIVE", "Savepoint", "NONE");
  for (size_t n = 0; n < raw.size(); ++n) {
    auto p = decode_checkpoint_properties(std::string_view(raw).substr(0, n), 1000);
    REQUIRE_FALSE(p.ok());
    REQUIRE(p.error().offset.has_value());
    CHECK(*p.error().offset <= 1000 + n);
    CHECK(*p.error().offset >= 1000);
  }
}

TEST_CASE("malformed properties streams are rejected with the offset of the bad construct", "[unit][corrupt][format]") {
  // Proves each "must" rule of the trailer is checked: header, trailing bytes, classes, UIDs,
  // fields, enum constants, back-references and unsupported type codes.
  const std::string good = hand_built_savepoint(false, "CANONICAL", "Savepoint", "NONE");
  REQUIRE(decode_checkpoint_properties(good).ok());

  SECTION("bad stream header") {
    std::string bad = good;
    bad[1] = '\x00';
    auto p = decode_checkpoint_properties(bad, 0x40);
    REQUIRE_FALSE(p.ok());
    CHECK(*p.error().offset == 0x40u);
    CHECK(p.error().message.find("ac ed 00 05") != std::string::npos);
  }
  SECTION("trailing bytes") {
    auto p = decode_checkpoint_properties(good + "x", 0x10);
    REQUIRE_FALSE(p.ok());
    CHECK(*p.error().offset == 0x10 + good.size());
    CHECK(p.error().message == "1 trailing bytes after the checkpoint properties");
  }
  SECTION("unknown class") {
    std::string bad = replace_once(good, "SavepointType\xa0", "SavepointTypx\xa0");
    auto p = decode_checkpoint_properties(bad);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.find("unexpected java class 'org.apache.flink.runtime.checkpoint.SavepointTypx'") == 0);
    CHECK(*p.error().offset == bad.find(B("\x72\x00\x31org.apache.flink.runtime.checkpoint.SavepointTypx")));
  }
  SECTION("wrong serialVersionUID") {
    std::string bad = replace_once(good, "\xa0\x87\xd3\x08", "\xa0\x87\xd3\x09");
    auto p = decode_checkpoint_properties(bad);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.find("serialVersionUID 0xa087d309a45814b8, expected 0xa087d308a45814b8") != std::string::npos);
  }
  SECTION("fields out of Java's order") {
    std::string bad = replace_once(good, "discardCancelled", "zdiscardCancelle");
    auto p = decode_checkpoint_properties(bad);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.find("not in serialization order") != std::string::npos);
    CHECK(*p.error().offset == 5u);  // the descriptor, after header and TC_OBJECT
  }
  SECTION("unknown enum constant") {
    std::string bad = replace_once(good, B("\x74\x00\x04NONE"), B("\x74\x00\x04NINE"));
    auto p = decode_checkpoint_properties(bad);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.find("unknown constant 'NINE'") == 0);
    // The enum constant: TC_ENUM, then its descriptor.
    const std::string action = "org.apache.flink.runtime.checkpoint.SavepointType$PostCheckpointAction";
    CHECK(*p.error().offset == bad.find(B("\x7e\x72\x00") + static_cast<char>(action.size()) + action));
  }
  SECTION("back-reference to a handle not yet assigned") {
    std::string bad = replace_once(good, B("\x71\x00\x7e\x00\x09"), B("\x71\x00\x7e\x00\x30"));
    auto p = decode_checkpoint_properties(bad);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.find("unassigned handle") != std::string::npos);
    CHECK(*p.error().offset == bad.find(B("\x71\x00\x7e\x00\x30")));
  }
  SECTION("an array with no class descriptor where a string is expected") {
    std::string bad = replace_once(good, B("\x74\x00\x09Savepoint"), B("\x75\x00\x09Savepoint"));
    auto p = decode_checkpoint_properties(bad);
    REQUIRE_FALSE(p.ok());
    // TC_ARRAY is read as the grammar says: its class descriptor is missing.
    CHECK(p.error().message == "expected a java class descriptor, found type code 0x0");
    CHECK(*p.error().offset == bad.find(B("\x75\x00\x09Savepoint")) + 1);
  }
  SECTION("null checkpoint type") {
    size_t obj = good.find(B("\x73\x72\x00\x31"));
    std::string bad = good.substr(0, obj) + "\x70";
    auto p = decode_checkpoint_properties(bad);
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message.find("field 'checkpointType' must be") == 0);
    CHECK(*p.error().offset == obj);
  }
}
