// The man pages' examples that a user copies first are run, so an example that matches nothing
// fails here (issue 26): the erasure example of ckpt-edit(1) on a generated savepoint.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <string>

#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace {

// The indented lines of the EXAMPLES paragraph that follows the line starting with `lead`.
std::string example_after(const std::string& page, const std::string& lead) {
  std::istringstream in(page);
  std::string line, block;
  bool found = false;
  while (std::getline(in, line)) {
    if (!found) {
      found = line.rfind(lead, 0) == 0;
      continue;
    }
    if (line.rfind("    ", 0) == 0) block += line.substr(4) + "\n";
    else if (!block.empty()) break;
  }
  return block;
}

}  // namespace

TEST_CASE("the erasure example of ckpt-edit(1) erases keys that a savepoint has", "[docs]") {
  const std::string page = ckpt::test::read_file(ckpt::test::source_dir() + "/man/ckpt-edit.1.md");
  const std::string script = example_after(page, "A user asked for their data to be erased");
  REQUIRE(script.find("ckpt edit savepoint-1 --delete-keys") != std::string::npos);
  ckpt::test::ScratchDir s;
  // The savepoint the examples call savepoint-1: keys user-0000000000 to user-0000000099.
  ckpt::test::run_cli_ok({"generate", "--output", s / "savepoint-1", "--keys", "100", "--states", "value,map"});
  const std::string bin = ckpt::test::build_dir() + "/tools";  // where the ckpt program is
  auto r = ckpt::test::run_shell("cd '" + s.path() + "' && PATH='" + bin + "':\"$PATH\" && set -e\n" + script, 60);
  INFO(script << r.out << r.err);
  // The last line counts the erased key's entries left: none, and every key matched (exit 0).
  CHECK(r.out.find("entries of the keys erased") != std::string::npos);
  CHECK(r.err.find("matched nothing") == std::string::npos);
  CHECK(r.out.size() >= 2);
  CHECK(r.out.substr(r.out.size() - 2) == "0\n");
}
