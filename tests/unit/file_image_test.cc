// FileImage: a file's exact bytes in anonymous memory, and nullopt wherever read_whole_file()
// must be asked why the file cannot be read.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>

#include "support/file_image.h"
#include "support/huge_pages.h"
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

TEST_CASE("a file image hands the pages a reader is done with to a page stock for another owner", "[unit][support]") {
  // Proves drop_before() into a PageStock: the stock holds exactly the whole pages before the
  // offset (the image's own memory, from its first byte: nothing copied), merged as they come,
  // hands out no more than asked and nothing when it has not enough; the image keeps the bytes
  // after them and its release leaves the stock's pages alone (they stay writable).
  test::ScratchDir dir;
  std::string bytes;
  for (size_t i = 0; i < (7u << 20) + 3; ++i) bytes.push_back(static_cast<char>(1 + i % 253));
  test::write_file(dir / "big", bytes);
  auto image = FileImage::read(dir / "big");
  REQUIRE(image.has_value());
  const size_t page = kHugePage;
  const char* start = image->bytes().data();
  PageStock stock;
  image->drop_before(page + 5, &stock);
  image->drop_before(2 * page + 1, &stock);  // adjacent: one run of two pages
  CHECK(image->bytes().substr(2 * page) == std::string_view(bytes).substr(2 * page));
  size_t got = 0;
  CHECK(stock.take(3 * page, 3 * page, got) == nullptr);
  char* first = static_cast<char*>(stock.take(10, 1, got));
  CHECK(first == start);
  CHECK(got == page);
  char* second = static_cast<char*>(stock.take(page, 4 * page, got));
  CHECK(second == start + page);
  CHECK(got == page);
  CHECK(stock.take(1, 1, got) == nullptr);
  image->release();
  std::memset(first, 'x', page);  // still mapped: the taker's
  std::memset(second, 'y', page);
  CHECK(first[page - 1] == 'x');
  unmap_pages(first, page);
  unmap_pages(second, page);
}

TEST_CASE("huge page mappings start on a 2 MiB boundary and hold zeros", "[unit][support]") {
  const size_t bytes = 3 * kHugePage + 4096;
  auto* data = static_cast<unsigned char*>(map_huge_pages(bytes));
  REQUIRE(data != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(data) % kHugePage == 0);
  CHECK(data[0] == 0);
  CHECK(data[bytes - 1] == 0);
  data[bytes - 1] = 1;  // writable to its end
  unmap_pages(data, bytes);
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
