// support/spill_file: what is appended is read back byte for byte, buffered or not, with reads
// between appends, records larger than the buffer and a read past the end refused.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "support/spill_file.h"

using namespace ckpt;

namespace {

std::string bytes_of(std::mt19937& rng, size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

}  // namespace

TEST_CASE("a spill file gives back its appends in order whatever its buffer", "[support]") {
  // Small records (many per buffer), records just under, at and over the buffer, empty halves,
  // and reads that interleave with appends and cut records anywhere.
  for (size_t buffer : {size_t{0}, size_t{1}, size_t{64}, size_t{4096}}) {
    INFO("buffer " << buffer);
    std::mt19937 rng(static_cast<unsigned>(buffer) + 7);
    auto f = SpillFile::create(buffer);
    REQUIRE(f.ok());
    std::string expected, got;
    for (int round = 0; round < 200; ++round) {
      const size_t sizes[] = {0, 1, 7, 63, 64, 65, 500, 4095, 4096, 5000};
      std::string a = bytes_of(rng, sizes[rng() % 10]), b = bytes_of(rng, sizes[rng() % 10]);
      REQUIRE((*f)->append(a, b).ok());
      expected += a + b;
      CHECK((*f)->written() == expected.size());
      if (rng() % 3 == 0) {
        size_t n = rng() % (expected.size() - got.size() + 1);
        std::string part(n, '\0');
        REQUIRE((*f)->read(n, part.data()).ok());
        got += part;
      }
    }
    std::string rest(expected.size() - got.size(), '\0');
    REQUIRE((*f)->read(rest.size(), rest.data()).ok());
    got += rest;
    CHECK(got == expected);
    char one;
    Status past = (*f)->read(1, &one);
    REQUIRE_FALSE(past.ok());
    CHECK(past.error().message.find("past its end") != std::string::npos);
  }
}

TEST_CASE("a spill file is read whole in one call - its buffered bytes too - and not past its end",
          "[support]") {
  auto f = SpillFile::create(64);
  REQUIRE(f.ok());
  std::string all;
  for (int i = 0; i < 100; ++i) {
    const std::string a = "record-" + std::to_string(i) + ":";
    const std::string b(static_cast<size_t>(i % 7) * 30, static_cast<char>('a' + i % 26));  // some past the buffer
    REQUIRE((*f)->append(a, b).ok());
    all += a + b;
  }
  // Read whole in one call (past the buffer: straight from the file).
  std::string whole(all.size(), '\0');
  REQUIRE((*f)->read(whole.size(), whole.data()).ok());
  CHECK(whole == all);
  char more;
  CHECK_FALSE((*f)->read(1, &more).ok());
}
