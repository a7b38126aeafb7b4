// The --json documents of every command, byte for byte, on generated snapshots: the texts under
// tests/cli/json_documents/ were printed by the program before the library's JsonWriter wrote
// them (ckpt/json.h), so layout, member order and number spelling stay what scripts read.
#include <catch2/catch.hpp>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "testlib/cli_run.h"
#include "testlib/s3_fixtures.h"
#include "testlib/test_support.h"

using ckpt::test::replaced;

namespace {

// What depends on the clock (a listing's modification times, an orphan's age) left out.
std::string without_clock(const std::string& doc) {
  static const std::regex time(R"re("time": "[^"]*")re"), age(R"re("age_seconds": [0-9]+)re");
  return std::regex_replace(std::regex_replace(doc, time, "\"time\": \"@TIME@\""), age, "\"age_seconds\": @AGE@");
}

}  // namespace

TEST_CASE("every command prints the same --json bytes as before the one JSON writer", "[cli]") {
  const std::string dir = ckpt::test::source_dir() + "/tests/cli/json_documents";
  ckpt::test::ScratchDir scratch;
  std::istringstream commands(ckpt::test::read_file(dir + "/commands.txt"));
  size_t checked = 0;
  for (std::string line; std::getline(commands, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name;
    words >> name;
    std::vector<std::string> args;
    for (std::string w; words >> w;) args.push_back(replaced(w, "@DIR@", scratch.path()));
    ckpt::test::CliResult r = ckpt::test::run_cli(args);
    INFO(line << "\n" << r.err);
    if (name == "-") continue;
    const std::string expected = ckpt::test::read_file(dir + "/" + name + ".json");
    CHECK(without_clock(replaced(r.out, scratch.path(), "@DIR@")) == expected);
    ++checked;
  }
  CHECK(checked == 17);
}
