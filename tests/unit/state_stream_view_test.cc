// StateStream::view: inline bytes in place, file bytes read into the caller's buffer (reused
// from one range to the next), the same bytes and range errors as read().
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "state/stream_opener.h"
#include "testlib/test_support.h"

using namespace ckpt;

TEST_CASE("a stream view of inline bytes points into the handle - file bytes land in the buffer", "[unit][state]") {
  // Proves inline bytes are not copied (the view points into the handle's own string), that a
  // reused buffer gives each file range exactly (a large range, then a smaller one, then a
  // larger one again), and that a range past the end is refused as read() refuses it.
  StreamHandle h;
  h.type = handle_type::kByteStream;
  h.name = "inline";
  h.data = std::string(1000, 'x') + "tail";
  auto in = StreamOpener({}, "_metadata").open(h);
  REQUIRE(in.ok());
  std::string buffer;
  auto v = in->view(h.data.size() - 4, 4, &buffer);
  REQUIRE(v.ok());
  CHECK(*v == "tail");
  CHECK(v->data() == h.data.data() + h.data.size() - 4);
  CHECK(buffer.empty());

  test::ScratchDir dir;
  std::string bytes;
  for (size_t i = 0; i < (1u << 20) + 11; ++i) bytes.push_back(static_cast<char>((i * 7919) >> 5));
  test::write_file(dir / "state", bytes);
  StreamHandle fh;
  fh.type = handle_type::kRelativeFile;
  fh.path = "state";
  const std::string path = dir / "state";
  const StreamOpener streams([&](uint8_t, const std::string&) -> std::optional<std::string> { return path; },
                             "_metadata");
  auto file = streams.open(fh);
  REQUIRE(file.ok());
  for (auto [offset, len] : {std::pair<uint64_t, uint64_t>{17, 600000}, {bytes.size() - 100, 100}, {5, 900000}}) {
    auto r = file->view(offset, len, &buffer);
    REQUIRE(r.ok());
    CHECK(*r == std::string_view(bytes).substr(offset, len));
  }
  auto beyond = file->view(bytes.size() - 10, 11, &buffer);
  REQUIRE_FALSE(beyond.ok());
  CHECK(beyond.error().message.find("lies beyond the end of the stream") != std::string::npos);
  CHECK(beyond.error().offset == bytes.size() - 10);
}
