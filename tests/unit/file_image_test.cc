// FileImage: a file's exact bytes in anonymous memory, and nullopt wherever read_whole_file()
// must be asked why the file cannot be read.
#include <catch2/catch.hpp>

#include <string>

#include "support/file_image.h"
#include "testlib/test_support.h"

using namespace ckpt;

TEST_CASE("a file image holds the file's bytes and gives them back on release", "[unit][support]") {
  // Proves the bytes (a few MiB with every byte value, past any huge page boundary) and the sizes
  // of the edge cases: an empty file is an empty image, not a failure.
  test::ScratchDir dir;
  std::string bytes;
  for (size_t i = 0; i < (5u << 20) + 7; ++i) bytes.push_back(static_cast<char>((i * 131) >> 3));
  test::write_file(dir / "big", bytes);
  auto image = FileImage::read(dir / "big");
  REQUIRE(image.has_value());
  CHECK(image->bytes() == bytes);
  FileImage moved = std::move(*image);
  CHECK(image->bytes().empty());
  CHECK(moved.bytes().size() == bytes.size());
  moved.release();
  CHECK(moved.bytes().empty());

  test::write_file(dir / "empty", "");
  auto empty = FileImage::read(dir / "empty");
  REQUIRE(empty.has_value());
  CHECK(empty->bytes().empty());
}

TEST_CASE("a file image gives back the whole pages a reader is done with and keeps the rest", "[unit][support]") {
  // Proves drop_before(): only whole 2 MiB pages before the offset go (read as zeros, as
  // documented), the bytes from the first page it keeps on are the file's, and an offset past
  // the end or behind what went already changes nothing.
  test::ScratchDir dir;
  std::string bytes;
  for (size_t i = 0; i < (5u << 20) + 7; ++i) bytes.push_back(static_cast<char>(1 + i % 251));
  test::write_file(dir / "big", bytes);
  auto image = FileImage::read(dir / "big");
  REQUIRE(image.has_value());
  const size_t page = size_t{2} << 20;
  image->drop_before(page + 100);
  std::string_view b = image->bytes();
  REQUIRE(b.size() == bytes.size());
  CHECK(b.substr(page) == std::string_view(bytes).substr(page));
  CHECK(b[0] == 0);
  CHECK(b[page - 1] == 0);
  image->drop_before(page);  // behind: nothing more
  CHECK(b.substr(page) == std::string_view(bytes).substr(page));
  image->drop_before(bytes.size() + page);  // past the end: the whole pages only
  CHECK(b.substr(2 * page) == std::string_view(bytes).substr(2 * page));
  CHECK(b[page] == 0);
}

TEST_CASE("a missing file - a directory or a file over the limit give no image", "[unit][support]") {
  // Proves the cases where the caller falls back to read_whole_file for the error message.
  test::ScratchDir dir;
  test::write_file(dir / "small", "0123456789");
  CHECK_FALSE(FileImage::read(dir / "absent").has_value());
  CHECK_FALSE(FileImage::read(dir.path()).has_value());
  CHECK_FALSE(FileImage::read(dir / "small", 9).has_value());
  CHECK(FileImage::read(dir / "small", 10).has_value());
}
