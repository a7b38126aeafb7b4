// The README's set-up section is two commands a new user pastes: the first builds what its own
// last step runs (the program and the library), the second everything the tests need and runs
// them, and is what CI runs (.ci/run), word for word.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "testlib/test_support.h"

namespace {

// The ```sh blocks of the README's "## Set up" section, each as its one command line.
std::vector<std::string> setup_commands() {
  const std::string readme = ckpt::test::read_file(ckpt::test::source_dir() + "/README.md");
  const size_t from = readme.find("\n## Set up");
  REQUIRE(from != std::string::npos);
  const size_t to = readme.find("\n## ", from + 1);
  const std::string section = readme.substr(from, to - from);
  std::vector<std::string> out;
  const std::regex block("```sh\n([^\n]*)\n```");
  for (std::sregex_iterator it(section.begin(), section.end(), block), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

}  // namespace

TEST_CASE("the README's set-up command builds only the program and its test command is what CI runs", "[docs]") {
  const std::vector<std::string> commands = setup_commands();
  // The two commands, then the ctest examples of the labels.
  REQUIRE(commands.size() >= 2);
  const std::string& setup = commands[0];
  const std::string& tests = commands[1];
  INFO(setup);
  // A bare `cmake --build build` builds every test, benchmark and fuzz replay: four times the
  // time the program takes on a fresh machine.
  CHECK(std::regex_search(setup, std::regex(R"(cmake --build build [^&]*--target ckpt_bin( |$))")));
  CHECK(setup.find("./build/tools/ckpt inspect") != std::string::npos);
  INFO(tests);
  CHECK(tests.find("ctest --test-dir build") != std::string::npos);
  CHECK(std::regex_search(tests, std::regex(R"re(cmake --build build -j"\$\(nproc\)" &&)re")));  // every target
  // .ci/run ends with the README's test command, verbatim.
  const std::string run = ckpt::test::read_file(ckpt::test::source_dir() + "/.ci/run");
  CHECK(run.find("\n" + tests + "\n") != std::string::npos);
}
