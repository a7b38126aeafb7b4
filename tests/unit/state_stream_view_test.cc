// StateStream::view: large file ranges read in place (mapped), small ones read, inline bytes in
// place, and the same bytes and range errors as read() whichever way.
#include <catch2/catch.hpp>

#include <string>

#include "state/state_stream.h"
#include "support/mapped_range.h"
#include "support/test_support.h"

using namespace ckpt;

namespace {

StateStream open_file(const std::string& path) {
  StreamHandle h;
  h.type = handle_type::kRelativeFile;
  h.path = "state";
  auto resolve = [&](uint8_t, const std::string&) -> std::optional<std::string> { return path; };
  auto s = StateStream::open(h, resolve, "_metadata");
  REQUIRE(s.ok());
  return std::move(s).value();
}

}  // namespace

TEST_CASE("a stream view maps large file ranges and reads small ones - the bytes read() gives", "[unit]") {
  // Proves both ways on one file: a range of a MiB from an offset off any page boundary comes
  // from the mapping (the buffer stays untouched), a small one through the buffer, and each is
  // byte for byte what read() returns; a range past the end is refused as read() refuses it.
  test::ScratchDir dir;
  std::string bytes;
  for (size_t i = 0; i < (3u << 20) + 11; ++i) bytes.push_back(static_cast<char>((i * 7919) >> 5));
  test::write_file(dir / "state", bytes);
  StateStream s = open_file(dir / "state");

  MappedRange mapping;
  std::string buffer;
  const uint64_t offset = 4096 * 3 + 17, len = (1u << 20) + 5;
  auto large = s.view(offset, len, &mapping, &buffer);
  REQUIRE(large.ok());
  CHECK(buffer.empty());
  CHECK(*large == std::string_view(bytes).substr(offset, len));
  std::string read;
  REQUIRE(s.read(offset, len, &read).ok());
  CHECK(*large == read);

  auto small = s.view(bytes.size() - 100, 100, &mapping, &buffer);
  REQUIRE(small.ok());
  CHECK(mapping.bytes().empty());  // the previous mapping is gone
  CHECK(buffer == bytes.substr(bytes.size() - 100));
  CHECK(*small == buffer);

  auto tail = s.view(bytes.size() - (1u << 19), 1u << 19, &mapping, &buffer);
  REQUIRE(tail.ok());
  CHECK(*tail == std::string_view(bytes).substr(bytes.size() - (1u << 19)));

  auto beyond = s.view(bytes.size() - 10, 11, &mapping, &buffer);
  REQUIRE_FALSE(beyond.ok());
  CHECK(beyond.error().message.find("lies beyond the end of the stream") != std::string::npos);
  CHECK(beyond.error().offset == bytes.size() - 10);
}

TEST_CASE("a stream view of inline bytes points into the handle - a mapping of a shrunk file is refused", "[unit]") {
  // Proves inline bytes are not copied (the view points into the handle's own string), and that
  // MappedRange declines a range the file no longer holds instead of mapping past its end.
  StreamHandle h;
  h.type = handle_type::kByteStream;
  h.name = "inline";
  h.data = std::string(1u << 19, 'x') + "tail";
  auto s = StateStream::open(h, {}, "_metadata");
  REQUIRE(s.ok());
  MappedRange mapping;
  std::string buffer;
  auto v = s->view(h.data.size() - 4, 4, &mapping, &buffer);
  REQUIRE(v.ok());
  CHECK(*v == "tail");
  CHECK(v->data() == h.data.data() + h.data.size() - 4);
  CHECK(buffer.empty());

  test::ScratchDir dir;
  test::write_file(dir / "state", std::string(1u << 20, 'y'));
  StateStream file = open_file(dir / "state");
  test::write_file(dir / "state", std::string(1000, 'z'));  // shrunk after opening
  auto shrunk = file.view(0, 1u << 19, &mapping, &buffer);
  REQUIRE_FALSE(shrunk.ok());  // read() then finds the file shorter than the stream
  CHECK(shrunk.error().message.find("shrank") != std::string::npos);
}
