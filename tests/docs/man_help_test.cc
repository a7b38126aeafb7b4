// The man pages against the program: every command has a page whose SYNOPSIS is its usage line
// and whose OPTIONS name every flag --help lists (in the manner of git's t0450).
#include <catch2/catch.hpp>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "command.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace {

// "## NAME" -> the lines up to the next "## ".
std::map<std::string, std::string> sections(const std::string& markdown) {
  std::map<std::string, std::string> out;
  std::istringstream in(markdown);
  std::string line, current;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      current = line.substr(3);
      out[current];
      continue;
    }
    if (!current.empty()) out[current] += line + "\n";
  }
  return out;
}

// The first `code span` line of the SYNOPSIS section.
std::string synopsis_line(const std::string& section) {
  std::istringstream in(section);
  std::string line;
  while (std::getline(in, line))
    if (line.size() > 2 && line.front() == '`' && line.back() == '`') return line.substr(1, line.size() - 2);
  return {};
}

std::set<std::string> long_flags(const std::string& help) {
  std::set<std::string> out;
  static const std::regex flag(R"((^|[\s,\[])(--[A-Za-z][A-Za-z0-9-]*))");
  for (std::sregex_iterator it(help.begin(), help.end(), flag), end; it != end; ++it) out.insert((*it)[2]);
  return out;
}

std::string page(const std::string& name) {
  return ckpt::test::read_file(ckpt::test::source_dir() + "/man/" + name + ".1.md");
}

}  // namespace

TEST_CASE("every command has a man page in sync with its --help", "[docs]") {
  // SYNOPSIS == the "Usage:" line of --help (tools/synopsis.h states the rule), every --flag of
  // --help is an OPTIONS term (`--flag`), and the usual sections are there. --help itself is
  // documented once, in ckpt(1).
  for (const auto& c : ckpt::cli::commands()) {
    std::string name = c.name;
    INFO("ckpt " << name);
    std::string md = page("ckpt-" + name);
    REQUIRE_FALSE(md.empty());
    auto s = sections(md);
    for (const char* required : {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "SEE ALSO"})
      CHECK(s.count(required) == 1);

    auto help = ckpt::test::run_cli({name, "--help"});
    REQUIRE(help.status == 0);
    std::smatch usage;
    REQUIRE(std::regex_search(help.out, usage, std::regex("Usage: ([^\\n]*)")));
    CHECK(synopsis_line(s["SYNOPSIS"]) == usage[1].str());

    // The options only: the footer's examples (checked below) also hold flags.
    for (const std::string& flag : long_flags(help.out.substr(0, help.out.find("\nExit status:\n")))) {
      if (flag == "--help") continue;
      INFO(flag);
      CHECK(s["OPTIONS"].find("`" + flag + "`") != std::string::npos);
    }
  }
}

TEST_CASE("ckpt(1) lists every command and the three exit statuses", "[docs]") {
  // The overview page cannot forget a command that the table has.
  std::string md = page("ckpt");
  auto s = sections(md);
  for (const auto& c : ckpt::cli::commands()) {
    INFO(c.name);
    CHECK(s["COMMANDS"].find(std::string("ckpt-") + c.name + "(1)") != std::string::npos);
    CHECK(s["SEE ALSO"].find(std::string("ckpt-") + c.name + "(1)") != std::string::npos);
  }
  for (const char* status : {"* 0:", "* 1:", "* 2:"}) CHECK(s["EXIT STATUS"].find(status) != std::string::npos);
  CHECK(s.count("ENVIRONMENT") == 1);
}

TEST_CASE("the usage line is generated from the options by the documented rule", "[docs]") {
  // Positionals by name, flags by short name, valued options as --long VALUE, [ ] and "...".
  CHECK(ckpt::test::run_cli({"inspect", "--help"})
            .out.find("Usage: ckpt inspect SNAPSHOT [-v] [--json] [--remap PREFIX=DIR]... [--count] [--jobs N] "
                      "[--allow-unread] [--plan FILE] [--uid NAME]... [--uids FILE] [--progress] [-q]\n") != std::string::npos);
  CHECK(ckpt::test::run_cli({"relocate", "--help"}).out.find(
            "Usage: ckpt relocate SNAPSHOT --output FILE [--map OLD=NEW]... [--relative] [--force] [--json]\n") != std::string::npos);
}

TEST_CASE("every --help ends with the exit statuses and examples of its man page", "[docs]") {
  // The #16 contract: a user without man(1) still sees how to call a command and what its
  // status means. Each exit-status item and each example command of the page must be there.
  for (const auto& c : ckpt::cli::commands()) {
    std::string name = c.name;
    INFO("ckpt " << name);
    auto s = sections(page("ckpt-" + name));
    auto help = ckpt::test::run_cli({name, "--help"});
    REQUIRE(help.status == 0);
    size_t exit_at = help.out.find("\nExit status:\n");
    REQUIRE(exit_at != std::string::npos);
    CHECK(help.out.find("Usage:") < exit_at);  // after the options, as a footer
    std::istringstream status(s["EXIT STATUS"]);
    int items = 0;
    for (std::string line; std::getline(status, line);) {
      std::smatch item;
      if (!std::regex_match(line, item, std::regex(R"(\* ([0-9]+): .*)"))) continue;
      ++items;
      CHECK(help.out.find("\n  " + item[1].str() + ": ", exit_at) != std::string::npos);
    }
    CHECK(items >= 2);
    std::istringstream examples(s["EXAMPLES"]);
    int commands = 0;
    for (std::string line; std::getline(examples, line);) {
      if (line.rfind("    ckpt ", 0) != 0) continue;
      ++commands;
      CHECK(help.out.find("\n  " + line + "\n", exit_at) != std::string::npos);
    }
    CHECK(commands >= 1);
  }
  // ckpt(1)'s three statuses close `ckpt --help`.
  auto top = ckpt::test::run_cli({"--help"});
  for (const char* status : {"\n  0: success.", "\n  1: the command ran", "\n  2: the command could not"})
    CHECK(top.out.find(status) != std::string::npos);
}
