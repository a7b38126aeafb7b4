// Test names reach ctest through catch_discover_tests, which keeps them in a CMake list: a ';' in
// a name splits it into two ctest tests that each match nothing (and -w NoTests then fails them).
// On the command line Catch reads a ',' as the separator of two test specs, so a name holding
// one cannot be selected: `ckpt_tests "a, b"` runs the tests named "a" and " b".
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "testlib/test_support.h"

namespace fs = std::filesystem;

namespace {

struct TestCase {
  std::string file;
  std::string name;
  std::string tags;
};

// Every TEST_CASE of tests/, with its name and tags as written.
std::vector<TestCase> test_cases() {
  const std::regex test_case(R"re(TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"\s*(?:,\s*"([^"]*)")?)re");
  std::vector<TestCase> out;
  for (const auto& e : fs::recursive_directory_iterator(ckpt::test::source_dir() + "/tests")) {
    if (!e.is_regular_file() || e.path().extension() != ".cc") continue;
    const std::string text = ckpt::test::read_file(e.path().string());
    for (std::sregex_iterator it(text.begin(), text.end(), test_case), end; it != end; ++it)
      out.push_back({e.path().filename().string(), (*it)[1].str(), (*it)[2].str()});
  }
  return out;
}

}  // namespace

TEST_CASE("no test name holds a semicolon or comma that would split it or brackets that Catch would read as tags",
          "[docs]") {
  std::vector<TestCase> all = test_cases();
  for (const TestCase& t : all) {
    REQUIRE_FALSE(t.name.empty());
    INFO(t.file << ": \"" << t.name << "\"");
    CHECK(t.name.find(';') == std::string::npos);
    CHECK(t.name.find(',') == std::string::npos);
    CHECK(t.name.front() != ' ');
    CHECK(t.name.find('[') == std::string::npos);
  }
  CHECK(all.size() > 50);  // the scan found the suite, so the checks above were not vacuous
}

TEST_CASE("every test has the tag of the layer it tests so that one layer runs alone", "[docs]") {
  // ctest --test-dir build -L <layer> (tags become labels): README's Layout section.
  const std::vector<std::string> layers = {"[support]", "[s3]", "[format]", "[state]", "[ops]", "[cli]", "[docs]"};
  std::vector<TestCase> all = test_cases();
  for (const TestCase& t : all) {
    INFO(t.file << ": \"" << t.name << "\" " << t.tags);
    int found = 0;
    for (const std::string& l : layers) found += t.tags.find(l) != std::string::npos;
    CHECK(found >= 1);
  }
  CHECK(all.size() > 50);
}
