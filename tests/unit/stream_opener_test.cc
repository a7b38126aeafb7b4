// StreamOpener names the file of every error from a stream's bytes, once, at the boundary.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include <rocksdb/status.h>

#include "state/rocksdb/rocks_status.h"
#include "state/stream_opener.h"
#include "testlib/test_support.h"

using namespace ckpt;

namespace {

StreamHandle relative(const std::string& name) {
  StreamHandle h;
  h.type = handle_type::kRelativeFile;
  h.path = name;
  return h;
}

}  // namespace

TEST_CASE("errors returned or stepped over while reading a stream name its file - a file named inside wins",
          "[unit][state]") {
  test::ScratchDir dir;
  test::write_file(dir / "state", std::string(64, 'x'));
  const StreamOpener streams(
      [&](uint8_t, const std::string& name) -> std::optional<std::string> {
        if (name != "state") return std::nullopt;
        return dir / name;
      },
      dir / "_metadata");
  Status returned = streams.read(relative("state"), [](const StateStream&) -> Status {
    return Error(ErrorCode::kCorruption, "bad byte", 7);
  });
  REQUIRE_FALSE(returned.ok());
  CHECK(returned.error().file == dir / "state");
  CHECK(returned.error().offset == 7u);
  CHECK(returned.error().context.empty());

  std::vector<Error> problems;
  ProblemSink keep = [&](Error&& e) {
    problems.push_back(std::move(e));
    return Status::OK();
  };
  Status stepped = streams.read(relative("state"), keep, [](const StateStream&, const ProblemSink& stamped) -> Status {
    CKPT_RETURN_IF_ERROR(stamped(Error(ErrorCode::kCorruption, "damaged key group", 9)));
    Error inner(ErrorCode::kIOError, "cannot write");
    inner.file = "out/elsewhere";
    return inner;
  });
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].file == dir / "state");
  REQUIRE_FALSE(stepped.ok());
  CHECK(stepped.error().file == "out/elsewhere");

  Result<int> missing = streams.read(relative("gone"), [](const StateStream&) -> Result<int> { return 1; });
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().file == dir / "_metadata");  // the reference is what is wrong
  CHECK(missing.error().message == "state file 'gone' not found");
}

TEST_CASE("errors from inline bytes name _metadata and the inline stream their offsets count in", "[unit][state]") {
  StreamHandle h;
  h.type = handle_type::kByteStream;
  h.name = "inline-bytes";
  h.data = "abc";
  const StreamOpener streams({}, "sp/_metadata");
  Status s = streams.read(h, [](const StateStream&) -> Status { return Error(ErrorCode::kCorruption, "bad", 2); });
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().to_string() ==
        "'sp/_metadata': inline stream 'inline-bytes' (offsets from its first byte): bad at offset 0x2");
  // Without a resolver no file handle is found, and nothing throws.
  CHECK_FALSE(streams.open(relative("state")).ok());
}

TEST_CASE("a rocksdb error takes the offset of the damaged block from rocksdb's text", "[unit][state]") {
  const rocksdb::Status bad_block = rocksdb::Status::Corruption(
      "block checksum mismatch: stored = 1, computed = 2, type = 1  in /x/000009.sst offset 4096 size 3878");
  Error e = rocks_status_error(bad_block, "shared/000009.sst", "rocksdb cannot read the sst file");
  CHECK(e.code == ErrorCode::kCorruption);
  CHECK(e.file == "shared/000009.sst");
  CHECK(e.offset == 4096u);
  CHECK_FALSE(rocks_status_error(rocksdb::Status::IOError("no space"), "f", "w").offset.has_value());
  CHECK(rocks_status_error(rocksdb::Status::IOError("no space"), "f", "w").code == ErrorCode::kIOError);
}
