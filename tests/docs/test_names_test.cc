// Test names reach ctest through catch_discover_tests, which keeps them in a CMake list: a ';' in
// a name splits it into two ctest tests that each match nothing (and -w NoTests then fails them).
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>

#include "support/test_support.h"

namespace fs = std::filesystem;

TEST_CASE("no test name holds a semicolon that CMake would split or brackets that Catch would read as tags", "[docs]") {
  const std::regex test_case(R"(TEST_CASE\(\s*"((?:[^"\\]|\\.)*)\")");
  int names = 0;
  for (const auto& e : fs::recursive_directory_iterator(ckpt::test::source_dir() + "/tests")) {
    if (!e.is_regular_file() || e.path().extension() != ".cc") continue;
    const std::string text = ckpt::test::read_file(e.path().string());
    for (std::sregex_iterator it(text.begin(), text.end(), test_case), end; it != end; ++it) {
      const std::string name = (*it)[1].str();
      ++names;
      REQUIRE_FALSE(name.empty());
      INFO(e.path().filename().string() << ": \"" << name << "\"");
      CHECK(name.find(';') == std::string::npos);
      CHECK(name.front() != ' ');
      CHECK(name.find('[') == std::string::npos);
    }
  }
  CHECK(names > 50);  // the scan found the suite, so the checks above were not vacuous
}
