// Hand-built change records and change logs for the changelog tests.
#include "testlib/changelog_records.h"

#include <catch2/catch.hpp>
#include <snappy.h>

#include <map>

#include "types/snapshot_bytes.h"
#include "support/byte_reader.h"
#include "testlib/test_support.h"

namespace ckpt::test {

KeyedHandle in_memory_log(std::vector<Change> changes) {
  KeyedHandle h;
  h.type = handle_type::kInMemoryChangelog;
  h.handle_id = "log";
  h.changes = std::move(changes);
  return h;
}

SerializerSnapshot long_key_serializer() {
  ByteWriter w;
  w.i32(2);
  write_simple_snapshot(w, kLongSnapshot);
  ByteReader r(w.buffer());
  auto s = read_serializer_snapshot(r, SnapshotFraming::kProxy);
  REQUIRE(s.ok());
  return *s;
}

std::vector<std::string> emitted(ChangelogState& state) {
  std::vector<std::string> out;
  REQUIRE(state.emit(StateFilter{}, [&](StateEntry&& e) {
    out.push_back(e.state + " " + e.key.dump() + (e.has_user_key ? " " + e.user_key.dump() : "") + " = " + e.value.dump());
    return Status::OK();
  }).ok());
  return out;
}

std::unique_ptr<ChangelogState> raw_replayer(const std::vector<KeyedHandle>& logs, KeyedBackendMeta* meta,
                                             const StreamOpener& files) {
  auto m = read_changelog_meta(logs, files);
  REQUIRE(m.ok());
  *meta = std::move(*m);
  meta->key_serializer = long_key_serializer();
  auto state = ChangelogState::make_raw(*meta, 128);
  REQUIRE(state.ok());
  return std::move(*state);
}

std::string rocks_key(int64_t key, const std::vector<int64_t>& user_key) {
  ByteWriter w;
  w.u8(0);
  w.i64(key);
  w.u8(0);
  for (int64_t u : user_key) w.i64(u);
  return w.buffer();
}

std::string rocks_longs(const std::vector<int64_t>& values, bool map_value) {
  ByteWriter w;
  if (map_value) w.u8(0);  // MapSerializer's null flag
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) w.u8(',');
    w.i64(values[i]);
  }
  return w.buffer();
}

namespace {

// xerial's SnappyFramedOutputStream as Flink's SnappyStreamCompressionDecorator uses it: the
// stream identifier, then compressed chunks of at most 64 KiB of input. The masked CRC32C is
// left zero: neither Flink's reader nor ckpt verifies it.
std::string snappy_framed(const std::string& data) {
  ByteWriter w;
  auto chunk = [&](uint8_t type, const std::string& body) {
    w.u8(type);
    w.u8(body.size() & 0xff);
    w.u8((body.size() >> 8) & 0xff);
    w.u8((body.size() >> 16) & 0xff);
    w.bytes(body);
  };
  chunk(0xff, "sNaPpY");
  for (size_t at = 0; at < data.size(); at += 65536) {
    std::string block;
    size_t n = std::min<size_t>(65536, data.size() - at);
    snappy::Compress(data.data() + at, n, &block);
    chunk(0x00, std::string(4, '\0') + block);
  }
  return w.take();
}

}  // namespace

LogFile changelog_file(const std::vector<std::vector<Change>>& change_sets, bool compressed) {
  // OutputStreamWithPos counts what is written above the compression: the offsets.
  LogFile f;
  ByteWriter stream;
  for (const auto& set : change_sets) {
    f.offsets.push_back(static_cast<int64_t>(stream.size()));
    write_change_set(stream, set);
  }
  f.stream_size = static_cast<int64_t>(stream.size());
  f.bytes.assign(1, compressed ? '\1' : '\0');
  f.bytes += compressed ? snappy_framed(stream.buffer()) : stream.buffer();
  return f;
}

KeyedHandle file_log(const std::vector<LogPiece>& pieces, uint8_t type) {
  KeyedHandle h;
  h.type = type;
  h.range = KeyGroupRange{0, 127};
  h.handle_id = "dstl-log";
  if (type == handle_type::kChangelogFile) h.storage_id = "filesystem";
  for (const LogPiece& p : pieces) {
    ChangelogPiece piece;
    piece.offset = p.offset;
    piece.handle.type = handle_type::kRelativeFile;
    piece.handle.path = p.file;
    piece.handle.size = p.stream_size;
    h.pieces.push_back(std::move(piece));
  }
  return h;
}

KeyedHandle to_file_log(const KeyedHandle& log, const std::string& dir, const std::string& name, bool compressed) {
  size_t half = log.changes.size() / 2;
  std::vector<Change> first(log.changes.begin(), log.changes.begin() + static_cast<std::ptrdiff_t>(half));
  std::vector<Change> second(log.changes.begin() + static_cast<std::ptrdiff_t>(half), log.changes.end());
  LogFile f = changelog_file({first, second}, compressed);
  write_file(dir + "/" + name, f.bytes);
  KeyedHandle h = file_log({{name, f.offsets[0], f.stream_size}, {name, f.offsets[1], f.stream_size}});
  h.range = log.range;
  h.handle_id = log.handle_id;
  h.checkpointed_size = h.state_size_field = f.stream_size;
  return h;
}

}  // namespace ckpt::test
