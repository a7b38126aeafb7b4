// The man pages built from man/*.1.md carry a date in their title line (man prints it in the
// footer), the source's (cmake/source_date.cmake), not an empty string.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>

#include "testlib/cli_process.h"
#include "testlib/test_support.h"

namespace fs = std::filesystem;

TEST_CASE("every built man page has a date in its title line", "[docs]") {
  const fs::path dir = ckpt::test::build_dir() + "/man";
  if (!fs::exists(dir / "ckpt.1")) CKPT_SKIP("no man pages built (go-md2man not installed)");
  int pages = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".1") continue;
    ++pages;
    const std::string roff = ckpt::test::read_file(e.path().string());
    std::smatch th;
    INFO(e.path().filename().string());
    REQUIRE(std::regex_search(roff, th, std::regex(R"re(\n\.TH (\S+) 1 "([^"]*)" "ckpt [0-9.]+")re")));
    CHECK(std::regex_match(th[2].str(), std::regex(R"(20[0-9]{2}-[01][0-9]-[0-3][0-9])")));
    // Installed compressed, as Debian wants pages (gzip is everywhere ckpt builds).
    CHECK(fs::exists(e.path().string() + ".gz"));
  }
  CHECK(pages >= 16);
}
