// Flink's serializer upgrade-test data: every snapshot parses, every supported value decodes
// (as a tree and as JSON text, the same).
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "support/json_text.h"
#include "testlib/test_support.h"
#include "types/serializer_snapshot.h"
#include "types/value_decoder.h"
#include "types/value_of.h"

using namespace ckpt;
namespace fs = std::filesystem;

namespace {

std::string serializers_dir() { return test::shared_dir() + "/testdata/flink-serializers"; }

// Every <name>-<flink version> directory, sorted.
std::vector<std::string> serializer_dirs() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(serializers_dir()))
    if (fs::exists(e.path() / "serializer-snapshot")) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("every serializer snapshot of Flink's upgrade tests parses to its last byte and writes back identically",
          "[corpus][state]") {
  // Proves the snapshot parser knows (or safely resynchronises past) every layout Flink 1.8-1.20 wrote.
  CKPT_REQUIRE_SHARED();
  auto dirs = serializer_dirs();
  REQUIRE(dirs.size() >= 800);
  int resynced = 0;
  std::map<std::string, int> forms;
  for (const auto& d : dirs) {
    INFO(d);
    std::string bytes = test::read_file(d + "/serializer-snapshot");
    ByteReader r(bytes);
    auto s = read_serializer_snapshot(r, SnapshotFraming::kProxy);
    if (!s.ok()) FAIL_CHECK(s.error().to_string());
    if (!s.ok()) continue;
    CHECK(r.at_end());
    CHECK_FALSE(s->snapshot_class.empty());
    if (s->resynced) ++resynced;
    ++forms[snapshot_form_name(s->form)];
    ByteWriter w;
    write_serializer_snapshot(w, *s, SnapshotFraming::kProxy);
    CHECK(w.buffer() == bytes);
  }
  // Only user snapshot classes outside Flink are unknown; none of these directories has one.
  CHECK(resynced == 0);
  CHECK(forms["composite"] > 100);
  CHECK(forms["pojo"] >= 130);
}

TEST_CASE("every test-data value of a decodable serializer decodes to its last byte - and skip agrees", "[corpus][state]") {
  // Proves the value decoders read exactly what Flink's serializers wrote, for every version.
  CKPT_REQUIRE_SHARED();
  int decoded = 0, opaque = 0;
  std::map<std::string, int> opaque_by_class;
  for (const auto& d : serializer_dirs()) {
    INFO(d);
    std::string snap_bytes = test::read_file(d + "/serializer-snapshot");
    ByteReader sr(snap_bytes);
    auto snap = read_serializer_snapshot(sr, SnapshotFraming::kProxy);
    REQUIRE(snap.ok());
    auto dec = make_decoder(*snap);
    if (!dec.ok()) FAIL_CHECK(dec.error().to_string());
    if (!dec.ok()) continue;
    std::string data = test::read_file(d + "/test-data");
    if (!(*dec)->decodable()) {
      ++opaque;
      ++opaque_by_class[snap->display_name()];
      auto framed = decode_framed(**dec, *std::make_unique<ByteReader>(data), data.size());
      REQUIRE(framed.ok());
      CHECK(framed->contains("hex"));
      continue;
    }
    ByteReader r(data);
    nlohmann::json v;
    (*dec)->read(r, v);
    if (!r.ok()) FAIL_CHECK(r.error()->to_string());
    CHECK(r.at_end());
    ByteReader s(data);
    (*dec)->skip(s);
    CHECK(s.ok());
    CHECK(s.position() == r.position());
    if (r.ok() && r.at_end()) ++decoded;
    UNSCOPED_INFO(d << ": " << v.dump());
  }
  for (const auto& [c, n] : opaque_by_class) UNSCOPED_INFO("opaque " << c << " x" << n);
  CHECK(decoded >= 700);
  CHECK(opaque < 100);
}

namespace {

// The decoder for the serializer snapshot of a test-data directory.
Result<std::unique_ptr<ValueDecoder>> decoder_of(const std::string& dir) {
  std::string snap_bytes = test::read_file(dir + "/serializer-snapshot");
  ByteReader sr(snap_bytes);
  auto snap = read_serializer_snapshot(sr, SnapshotFraming::kProxy);
  REQUIRE(snap.ok());
  return make_decoder(*snap);
}

nlohmann::json decode_dir(const std::string& name) {
  std::string dir = serializers_dir() + "/" + name;
  auto dec = decoder_of(dir);
  REQUIRE(dec.ok());
  std::string data = test::read_file(dir + "/test-data");
  ByteReader r(data);
  auto v = decode_framed(**dec, r, data.size());
  REQUIRE(v.ok());
  return *v;
}

}  // namespace

TEST_CASE("write_json and read_value of every serializer test-data value give its decoded tree", "[corpus][state]") {
  // Same text (and the same Value: the entry iterator's direct path), same bytes consumed;
  // framed opaque values give the same hex object; a value cut short fails in every form at
  // the same offset.
  CKPT_REQUIRE_SHARED();
  int compared = 0, opaque = 0, truncated = 0;
  for (const auto& d : serializer_dirs()) {
    INFO(d);
    auto dec = decoder_of(d);
    if (!dec.ok()) continue;
    const ValueDecoder& decoder = **dec;
    std::string data = test::read_file(d + "/test-data");
    if (!decoder.decodable()) {
      ByteReader a(data), b(data);
      auto tree = decode_framed(decoder, a, data.size());
      std::string text;
      REQUIRE(tree.ok());
      REQUIRE(decode_framed_json(decoder, b, data.size(), text).ok());
      CHECK(text == json_text(*tree));
      ByteReader c(data);
      Value value;
      REQUIRE(decode_framed_value(decoder, c, data.size(), value).ok());
      CHECK(value == value_of(std::move(*tree)));
      ++opaque;
      continue;
    }
    ByteReader a(data), b(data);
    nlohmann::json tree;
    decoder.read(a, tree);
    std::string text;
    decoder.write_json(b, text);
    ByteReader c(data);
    Value value;
    decoder.read_value(c, value);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    REQUIRE(c.ok());
    CHECK(b.position() == a.position());
    CHECK(c.position() == a.position());
    CHECK(text == json_text(tree));
    CHECK(value.json() == text);
    CHECK(value == value_of(std::move(tree)));
    ++compared;
    if (data.size() > 1) {
      std::string cut = data.substr(0, data.size() - 1);
      ByteReader ca(cut), cb(cut);
      nlohmann::json ignored;
      std::string ignored_text;
      decoder.read(ca, ignored);
      decoder.write_json(cb, ignored_text);
      ByteReader cc(cut);
      Value ignored_value;
      decoder.read_value(cc, ignored_value);
      CHECK(ca.ok() == cb.ok());
      CHECK(ca.ok() == cc.ok());
      if (!ca.ok() && !cb.ok() && !cc.ok()) {
        CHECK(cb.error()->offset == ca.error()->offset);
        CHECK(cc.error()->offset == ca.error()->offset);
        CHECK(cb.error()->message == ca.error()->message);
        ++truncated;
      }
    }
  }
  CHECK(compared >= 700);
  CHECK(opaque > 0);
  CHECK(truncated >= 600);
}

TEST_CASE("check of every serializer test-data value consumes what read does and fails where read fails",
          "[corpus][corrupt][state]") {
  // ValueDecoder::check() is what convert's input check decodes with: it must refuse exactly
  // the bytes read() refuses (same offset, same message) or a damaged value would be copied.
  // Every cut of each value is tried, up to 300 of them.
  CKPT_REQUIRE_SHARED();
  int checked = 0, cuts = 0;
  for (const auto& d : serializer_dirs()) {
    INFO(d);
    auto dec = decoder_of(d);
    if (!dec.ok() || !(*dec)->decodable()) continue;
    const ValueDecoder& decoder = **dec;
    const std::string data = test::read_file(d + "/test-data");
    const size_t step = std::max<size_t>(1, data.size() / 300);
    for (size_t n = data.size();; n = n > step ? n - step : 0) {
      INFO("first " << n << " bytes");
      const std::string cut = data.substr(0, n);
      ByteReader a(cut), b(cut);
      nlohmann::json ignored;
      decoder.read(a, ignored);
      decoder.check(b);
      REQUIRE(b.ok() == a.ok());
      if (a.ok()) {
        CHECK(b.position() == a.position());
      } else {
        CHECK(b.error()->offset == a.error()->offset);
        CHECK(b.error()->message == a.error()->message);
        ++cuts;
      }
      if (n == 0) break;
    }
    ++checked;
  }
  CHECK(checked >= 700);
  CHECK(cuts >= 10000);
}

TEST_CASE("decoded upgrade-test values equal the ones Flink's upgrade tests wrote", "[corpus][state]") {
  // The expected values are those in Flink's *SerializerUpgradeTest sources (flink-core), not
  // our own output: a wrong field order, sign or scale shows here.
  CKPT_REQUIRE_SHARED();
  CHECK(decode_dir("long-serializer-1.20") == 1234567890);
  CHECK(decode_dir("string-serializer-1.20") == "123456789012345678901234567890123456");
  CHECK(decode_dir("big-int-serializer-1.20") == "123456789012345678901234567890123456");
  CHECK(decode_dir("big-dec-serializer-1.20") ==
        nlohmann::json({{"unscaled", "123456789012345678901234567890123456789"}, {"scale", 3}}));
  CHECK(decode_dir("float-serializer-1.20") == 123.456);
  CHECK(decode_dir("double-serializer-1.20") == 12345.6789);
  CHECK(decode_dir("date-serializer-1.20") == 1580382960);
  CHECK(decode_dir("tuple-serializer-1.20") == nlohmann::json::parse(R"(["hello Gordon","ciao",14])"));
  CHECK(decode_dir("row-serializer-1.20") ==
        nlohmann::json::parse(R"({"kind":"+I","fields":[null,42,"My string.",null]})"));
  CHECK(decode_dir("row-serializer-1.10") ==
        nlohmann::json::parse(R"({"kind":"+I","fields":[null,42,"My string.",null]})"));
  auto pojo = decode_dir("pojo-serializer-identical-schema-1.20");
  CHECK(pojo["fields"]["name"] == "Gordon");
  CHECK(pojo["fields"]["age"] == 27);
  CHECK(pojo["fields"]["favoriteColor"] == "BLUE");
  CHECK(pojo["fields"]["married"] == false);
  // JavaEitherSerializer writes true for Left; the left type here is String.
  CHECK(decode_dir("either-serializer-1.20") == nlohmann::json::parse(R"({"left":"ApacheFlink"})"));
  CHECK(decode_dir("ttl-serializer-1.20") == nlohmann::json::parse(R"({"ttl_ts":13,"value":"hello Gordon"})"));
  auto timer = decode_dir("timer-serializer-1.20");
  CHECK(timer["timestamp"] == 12345);
  CHECK(timer["key"] == "key");
  CHECK(decode_dir("nullable-not-padded-serializer-1.20").is_null());
  CHECK(decode_dir("void-namespace-serializer-1.20") == "VoidNamespace");
  CHECK(decode_dir("char-serializer-1.20") == "\xef\xbf\xbf");  // Character.MAX_VALUE
  // TwoPhaseCommitSinkFunctionTest's state: pending txn 12, one pending commit 123, context "flink"
  // (outer version 2 has no pending-transaction flag, 3 and 4 do).
  for (const char* v : {"two-phase-commit-sink-state-serializer-1.11", "two-phase-commit-sink-state-serializer-1.20"}) {
    auto tpc = decode_dir(v);
    CHECK(tpc["pending"]["handle"] == 12);
    CHECK(tpc["pending_commit"].size() == 1);
    CHECK(tpc["pending_commit"][0]["handle"] == 123);
    CHECK(tpc["context"] == "flink");
  }
  // Avro through Flink's DataOutputEncoder (fixed-width big-endian ints, i32-prefixed strings),
  // read with the writer schema of every snapshot version (1.11: v2 utf strings, 1.20: v3).
  for (const char* v : {"generic-avro-serializer-1.11", "specific-avro-serializer-1.20"}) {
    auto address = decode_dir(v);
    CHECK(address["class"] == "org.apache.flink.formats.avro.generated.Address");
    CHECK(address["fields"]["num"] == 239);
    CHECK(address["fields"]["street"] == "Baker Street");
    CHECK(address["fields"]["zip"] == "NW1 6XE");
  }
  // JavaSerializerUpgradeTest writes the Integer 26: one object stream, read structurally.
  for (const char* v : {"java-serializer-1.11", "java-serializer-1.20"}) CHECK(decode_dir(v) == 26);
  // Kryo needs the job's classes: shown as hex with the reason.
  auto kryo = decode_dir("kryo-type-serializer-empty-config-1.20");
  CHECK(kryo["hex"].get<std::string>().substr(0, 8) == "0100d001");
  CHECK(kryo["why"].get<std::string>().find("kryo") != std::string::npos);
}

TEST_CASE("every upgrade-test snapshot cut short at any byte fails cleanly inside its bytes", "[corpus][corrupt][state]") {
  // Proves truncation never crashes, hangs or reports an offset outside the input, for every
  // layout the parser knows (strict mode, so an unknown class cannot hide a cut).
  CKPT_REQUIRE_SHARED();
  SnapshotReadOptions strict;
  strict.resync_unknown = false;
  size_t cuts = 0;
  for (const auto& d : serializer_dirs()) {
    std::string bytes = test::read_file(d + "/serializer-snapshot");
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      ByteReader r(bytes.data(), cut, 0x10000);
      auto s = read_serializer_snapshot(r, SnapshotFraming::kProxy, strict);
      REQUIRE_FALSE(s.ok());
      INFO(d << " cut at " << cut << ": " << s.error().to_string());
      REQUIRE(s.error().offset.has_value());
      CHECK(*s.error().offset >= 0x10000u);
      CHECK(*s.error().offset <= 0x10000u + cut);
      ++cuts;
    }
  }
  CHECK(cuts > 100000);
}
