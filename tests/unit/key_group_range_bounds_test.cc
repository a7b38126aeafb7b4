// Key-group ranges size tables (one offset per key group): a range no job can have is refused by
// the metadata reader at its offset, and the stream writer checks the range against the job's
// max parallelism before sizing anything by it.
#include <catch2/catch.hpp>

#include <climits>
#include <string>

#include "ckpt/metadata.h"
#include "state/keyed_stream_writer.h"
#include "types/serializer_snapshot.h"
#include "support/byte_reader.h"
#include "support/byte_writer.h"
#include "testlib/child_process.h"
#include "testlib/hostile_snapshot.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

// Where `first` then `count` (big-endian i32s) lie in `bytes`; npos if not exactly once.
size_t range_at(const std::string& bytes, int32_t first, int32_t count) {
  ByteWriter w;
  w.i32(first);
  w.i32(count);
  size_t at = bytes.find(w.buffer());
  if (at == std::string::npos || bytes.find(w.buffer(), at + 1) != std::string::npos) return std::string::npos;
  return at;
}

}  // namespace

TEST_CASE("a key-group range ending beyond key group 32767 is refused at its offset", "[format][unit][corrupt]") {
  test::ScratchDir tmp;
  const std::string dir = tmp / "snap";
  REQUIRE(test::generate_rocksdb_savepoint(dir).ok());
  const std::string original = test::read_file(dir + "/_metadata");
  // 2^31-1 key groups: incremental handles store no offsets, so no byte count bounds it.
  REQUIRE(test::set_key_group_range(dir, 0, {0, INT32_MAX}).ok());
  const std::string bytes = test::read_file(dir + "/_metadata");
  const size_t at = range_at(bytes, 0, INT32_MAX);
  REQUIRE(at != std::string::npos);
  auto m = read_metadata_file(dir + "/_metadata");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().code == ErrorCode::kCorruption);
  CHECK(m.error().file == dir + "/_metadata");
  CHECK(m.error().offset == at);
  CHECK(m.error().message == "key-group range 0+2147483647 ends beyond key group 32767, the last any job can have");
  CHECK(m.error().context.find("subtask 0") != std::string::npos);

  // The largest job's last key group is still a range; one more is not.
  test::write_file(dir + "/_metadata", original);
  REQUIRE(test::set_key_group_range(dir, 0, {32000, 768}).ok());
  CHECK(read_metadata_file(dir + "/_metadata").ok());
  test::write_file(dir + "/_metadata", original);
  REQUIRE(test::set_key_group_range(dir, 0, {32000, 769}).ok());
  auto beyond = read_metadata_file(dir + "/_metadata");
  REQUIRE_FALSE(beyond.ok());
  CHECK(beyond.error().offset == range_at(test::read_file(dir + "/_metadata"), 32000, 769));
}

TEST_CASE("a keyed stream writer refuses a range beyond the job before sizing its offsets", "[format][unit][corrupt]") {
  // In a child whose data segment is capped at 1 GiB: the writer used to size its offset table
  // by the range, 16 GiB for 2^31-1 key groups.
  test::ScratchDir tmp;
  auto o = test::run_in_child(
      [&](std::string& out, std::string&) {
        KeyedBackendMeta meta;
        ByteWriter w;
        (void)w.utf("org.apache.flink.api.common.typeutils.base.LongSerializer$LongSerializerSnapshot");
        w.i32(3);
        ByteReader r(w.buffer());
        auto key = read_serializer_snapshot(r, SnapshotFraming::kVersioned);
        if (!key.ok()) return 3;
        meta.key_serializer = *key;
        for (KeyGroupRange range : {KeyGroupRange{0, INT32_MAX}, KeyGroupRange{100, 29}, KeyGroupRange{-1, 2}}) {
          auto writer = KeyedStreamWriter::create(tmp / ("s" + std::to_string(range.count)),
                                                  KeyGroupsLayout::kCanonical, meta, range, 128);
          out += writer.ok() ? "created\n" : writer.error().message + "\n";
        }
        auto fits = KeyedStreamWriter::create(tmp / "fits", KeyGroupsLayout::kCanonical, meta, {64, 64}, 128);
        out += fits.ok() ? "created\n" : fits.error().message + "\n";
        return 0;
      },
      uint64_t{1} << 30);
  INFO("exited " << o.exited << " signal " << o.signal);
  REQUIRE(o.exited);
  CHECK(o.exit_code == 0);
  CHECK(o.out ==
        "key-group range 0+2147483647 does not fit the job's key groups 0-127\n"
        "key-group range 100+29 does not fit the job's key groups 0-127\n"
        "key-group range -1+2 does not fit the job's key groups 0-127\n"
        "created\n");
}
