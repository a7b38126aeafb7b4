// Change logs in files (types 10, 13): hand-built flink-dstl-dfs log files replayed like in-memory logs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "state/changelog/changelog_reader.h"
#include "types/snapshot_bytes.h"
#include "support/byte_writer.h"
#include "testlib/changelog_records.h"
#include "testlib/test_support.h"

using namespace ckpt;
using namespace ckpt::test;

namespace {

// Relative paths (type 6) under `dir`, as FileResolver finds them: nullopt when absent.
StreamOpener files_in(const ScratchDir& dir) {
  std::string root = dir.path();
  return StreamOpener(
      [root](uint8_t, const std::string& rel) -> std::optional<std::string> {
        std::string p = root + "/" + rel;
        if (!std::filesystem::exists(p)) return std::nullopt;
        return p;
      },
      root + "/_metadata");
}

// The sample changes split into two change sets, written to `name` in `dir`: a log of one
// piece per change set.
KeyedHandle two_set_log(const ScratchDir& dir, const std::string& name, bool compressed,
                        uint8_t type = handle_type::kChangelogFile) {
  std::vector<Change> all = list_map_value_changes();
  std::vector<Change> first(all.begin(), all.begin() + 6), second(all.begin() + 6, all.end());
  LogFile f = changelog_file({first, second}, compressed);
  write_file(dir / name, f.bytes);
  REQUIRE(f.offsets.size() == 2);
  REQUIRE(f.offsets[1] > 0);
  return file_log({{name, f.offsets[0], f.stream_size}, {name, f.offsets[1], f.stream_size}}, type);
}

// The decoded replay of `logs` on the materialized l[1] = [10], m[1][5] = 50.
std::vector<std::string> decoded(const std::vector<KeyedHandle>& logs, const StreamOpener& files) {
  ChangelogState state;
  state.set_key_serializer(long_key_serializer());
  EntrySink materialized = state.collector();
  StateEntry l;
  l.state = "l";
  l.key_group = 0;
  l.has_key = l.has_namespace = true;
  l.key = 1;
  l.ns = "VoidNamespace";
  l.value = nlohmann::json::array({10});
  StateEntry m = l;
  m.state = "m";
  m.has_user_key = true;
  m.user_key = 5;
  m.value = 50;
  REQUIRE(materialized(std::move(l)).ok());
  REQUIRE(materialized(std::move(m)).ok());
  Status s = state.replay(logs, KeyGroupRange{0, 128}, files);
  if (!s.ok()) FAIL(s.error().to_string());
  return emitted(state);
}

// The byte-level replay of `logs` on the same materialized part: every state's pairs.
std::vector<std::vector<RocksPair>> raw(const std::vector<KeyedHandle>& logs, const StreamOpener& files) {
  KeyedBackendMeta meta;
  auto state = raw_replayer(logs, &meta, files);
  std::vector<std::vector<RocksPair>> materialized(3);
  materialized[0].push_back({rocks_key(1), rocks_longs({10})});
  materialized[1].push_back({rocks_key(1, {5}), rocks_longs({50}, true)});
  REQUIRE(state->raw_collector(meta)(0, materialized).ok());
  Status s = state->replay(logs, KeyGroupRange{0, 128}, files);
  if (!s.ok()) FAIL(s.error().to_string());
  std::vector<std::vector<RocksPair>> got;
  REQUIRE(state->emit_raw([&](int32_t, std::vector<std::vector<RocksPair>>& by_state) {
    got = by_state;
    return Status::OK();
  }).ok());
  return got;
}

bool same_pairs(const std::vector<std::vector<RocksPair>>& a, const std::vector<std::vector<RocksPair>>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].size() != b[i].size()) return false;
    for (size_t j = 0; j < a[i].size(); ++j)
      if (a[i][j].key != b[i][j].key || a[i][j].value != b[i][j].value) return false;
  }
  return true;
}

// Replays `log` expecting an error; returns it.
Error replay_error(const KeyedHandle& log, const StreamOpener& files) {
  ChangelogState state;
  state.set_key_serializer(long_key_serializer());
  Status s = state.replay({log}, KeyGroupRange{0, 128}, files);
  REQUIRE_FALSE(s.ok());
  return s.error();
}

}  // namespace

TEST_CASE("a change log in a file gives the entries and pairs its in-memory form gives", "[unit][state]") {
  // Two change sets in one file, one piece at each offset, plain and Snappy-compressed, type 13
  // and type 10: decoded entries and RocksDB pairs equal those of the same changes in a type-9
  // log, which are the applied operations' results.
  ScratchDir dir;
  StreamOpener files = files_in(dir);
  std::vector<KeyedHandle> inline_logs = {in_memory_log(list_map_value_changes())};
  std::vector<std::string> expected = decoded(inline_logs, {});
  REQUIRE(expected == std::vector<std::string>{"l 1 = [10,11]", "l 3 = [30]", "m 1 6 = 60", "v 1 = 100"});
  auto expected_pairs = raw(inline_logs, {});
  REQUIRE(expected_pairs.size() == 3);
  CHECK(expected_pairs[0].size() == 2);

  for (bool compressed : {false, true}) {
    for (uint8_t type : {handle_type::kChangelogFile, handle_type::kChangelogFileV1}) {
      CAPTURE(compressed, type);
      std::vector<KeyedHandle> logs = {two_set_log(dir, compressed ? "snappy-log" : "plain-log", compressed, type)};
      CHECK(decoded(logs, files) == expected);
      CHECK(same_pairs(raw(logs, files), expected_pairs));
      auto meta = read_changelog_meta(logs, files);
      REQUIRE(meta.ok());
      REQUIRE(meta->states.size() == 3);
      CHECK(meta->states[2].name == "v");
    }
  }
}

TEST_CASE("file change logs apply handle by handle then piece by piece - one change set per piece", "[unit][state]") {
  // Pieces in two files and two handles: v[1] = 1 (file a), = 2 (file b), = 3 (file a's second
  // set, in the second handle) must end at 3; a piece at the first set's offset must not run on
  // into the second set (v[1] = 1 again would be wrong, so the first handle reads only set 0).
  ScratchDir dir;
  auto value = [](ByteWriter& w) { write_simple_snapshot(w, kLongSnapshot); };
  LogFile a = changelog_file(
      {{metadata_change(2, "v", "VALUE", value), data_change(0, 1, 2, 1, {1})}, {data_change(0, 1, 2, 1, {3})}}, false);
  LogFile b = changelog_file({{data_change(0, 1, 2, 1, {2})}}, true);
  write_file(dir / "a", a.bytes);
  write_file(dir / "b", b.bytes);
  std::vector<KeyedHandle> logs = {file_log({{"a", a.offsets[0], a.stream_size}, {"b", b.offsets[0], b.stream_size}}),
                                   file_log({{"a", a.offsets[1], a.stream_size}})};
  ChangelogState state;
  state.set_key_serializer(long_key_serializer());
  REQUIRE(state.replay(logs, KeyGroupRange{0, 128}, files_in(dir)).ok());
  CHECK(emitted(state) == std::vector<std::string>{"v 1 = 3"});

  // Only the first piece: set 1 of file a is not read.
  ChangelogState first;
  first.set_key_serializer(long_key_serializer());
  REQUIRE(first.replay({file_log({{"a", a.offsets[0], a.stream_size}})}, KeyGroupRange{0, 128}, files_in(dir)).ok());
  CHECK(emitted(first) == std::vector<std::string>{"v 1 = 1"});
}

TEST_CASE("damaged change log files are errors naming the file - the piece and the offset", "[unit][corrupt][state]") {
  // Truncation, a length larger than the bytes left, an offset past the end, a missing file, an
  // unknown compression flag and a bad record inside a file.
  ScratchDir dir;
  StreamOpener files = files_in(dir);
  KeyedHandle log = two_set_log(dir, "log", false);
  const std::string whole = read_file(dir / "log");
  const std::string path = dir / "log";

  SECTION("truncated") {
    // Cut inside the second set's key-group count.
    size_t second = 1 + static_cast<size_t>(log.pieces[1].offset);
    write_file(path, whole.substr(0, second + 2));
    Error e = replay_error(log, files);
    CHECK(e.file == path);
    CHECK(e.message == "unexpected end of data: expected 4 bytes, found 2");
    CHECK(e.context.find("piece 1 (offset " + std::to_string(log.pieces[1].offset) + ") of change log 'dstl-log'") !=
          std::string::npos);
    CHECK(e.offset == second);
  }
  SECTION("a change length larger than the bytes left") {
    // The second set starts with key group 0: i32 groups, i32 count, i32 key group, i32 length.
    std::string bad = whole;
    size_t length_at = 1 + static_cast<size_t>(log.pieces[1].offset) + 12;
    bad.replace(length_at, 4, std::string("\x7f\x00\x00\x00", 4));
    write_file(path, bad);
    Error e = replay_error(log, files);
    CHECK(e.file == path);
    CHECK(e.message.find("change byte count 2130706432 needs at least 2130706432 bytes") == 0);
    CHECK(e.offset == length_at);
  }
  SECTION("an offset past the end") {
    log.pieces[1].offset = static_cast<int64_t>(whole.size()) + 10;
    Error e = replay_error(log, files);
    CHECK(e.file == path);
    CHECK(e.message == fmt::format("piece offset {} lies past the end of the log stream ({} bytes)",
                                   log.pieces[1].offset, whole.size() - 1));
    CHECK(e.offset == whole.size());
  }
  SECTION("a missing file") {
    log.pieces[0].handle.path = "gone";
    Error e = replay_error(log, files);
    CHECK(e.code == ErrorCode::kNotFound);
    CHECK(e.message == "state file 'gone' not found");
    CHECK(e.context.find("piece 0") != std::string::npos);
    auto meta = read_changelog_meta({log}, files);
    REQUIRE_FALSE(meta.ok());
    CHECK(meta.error().code == ErrorCode::kNotFound);
  }
  SECTION("an unknown compression flag") {
    write_file(path, "\x07" + whole.substr(1));
    Error e = replay_error(log, files);
    CHECK(e.message == "change log compression flag 7, expected 0 (none) or 1 (snappy)");
    CHECK(e.offset == 0u);
    CHECK(e.file == path);
  }
  SECTION("a change before its state's metadata, at its offset in the file") {
    LogFile early = changelog_file({{data_change(0, 1, 3, 1, {1})}}, false);
    write_file(dir / "early", early.bytes);
    Error e = replay_error(file_log({{"early", 0, early.stream_size}}), files);
    CHECK(e.message == "change to state id 3 before its metadata");
    CHECK(e.file == dir / "early");
    // flag, i32 groups, i32 count, i32 key group, i32 length, op byte: the state id.
    CHECK(e.offset == 1u + 4 + 4 + 4 + 4 + 1);
    CHECK(e.context.find("piece 0 (offset 0) of change log 'dstl-log': change 0 (key group 0)") != std::string::npos);
  }
}
