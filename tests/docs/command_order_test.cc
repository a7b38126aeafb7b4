// The subcommands are listed in one order wherever they are listed: `ckpt --help` (the table of
// tools/commands.cc), the README's table, and ckpt(1)'s COMMANDS and SEE ALSO.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "command.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace {

// The names `pattern`'s first group finds in `text`, in order.
std::vector<std::string> names_in(const std::string& text, const std::string& pattern) {
  std::vector<std::string> out;
  const std::regex re(pattern);
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

std::string section_of(const std::string& text, const std::string& from, const std::string& to) {
  const size_t a = text.find(from);
  REQUIRE(a != std::string::npos);
  return text.substr(a, text.find(to, a + from.size()) - a);
}

}  // namespace

TEST_CASE("ckpt --help the README and ckpt(1) list the subcommands in one order", "[docs]") {
  std::vector<std::string> table;
  for (const auto& c : ckpt::cli::commands()) table.push_back(c.name);
  // --help prints the table in its order.
  const std::string help = ckpt::test::run_cli({"--help"}).out;
  CHECK(names_in(section_of(help, "Subcommands:\n", "\n\n"), R"((?:^|\n)  ([a-z]+) )") == table);

  const std::string page = ckpt::test::read_file(ckpt::test::source_dir() + "/man/ckpt.1.md");
  CHECK(names_in(section_of(page, "## COMMANDS", "\n## "), R"(\* ckpt-([a-z]+)\(1\))") == table);
  CHECK(names_in(section_of(page, "## SEE ALSO", "; "), R"(ckpt-([a-z]+)\(1\))") == table);

  // The README's table has the commands that work on snapshots (not completion or help).
  const std::string readme = ckpt::test::read_file(ckpt::test::source_dir() + "/README.md");
  const std::vector<std::string> rows = names_in(readme, R"(\n\| `ckpt ([a-z]+)[ `])");
  std::vector<std::string> expected;
  for (const std::string& n : table)
    if (n != "completion" && n != "help") expected.push_back(n);
  CHECK(rows == expected);
}
