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

TEST_CASE("a missing file - a directory or a file over the limit give no image", "[unit][support]") {
  // Proves the cases where the caller falls back to read_whole_file for the error message.
  test::ScratchDir dir;
  test::write_file(dir / "small", "0123456789");
  CHECK_FALSE(FileImage::read(dir / "absent").has_value());
  CHECK_FALSE(FileImage::read(dir.path()).has_value());
  CHECK_FALSE(FileImage::read(dir / "small", 9).has_value());
  CHECK(FileImage::read(dir / "small", 10).has_value());
}
