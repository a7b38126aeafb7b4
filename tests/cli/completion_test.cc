// Shell completion offers what each option takes: the words of an option with a fixed set of
// them, the commands after `help`, the shells after `completion`, and the object-store options
// every command takes; `ckpt --help` lists those options too.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "choices.h"
#include "ckpt/convert.h"
#include "ckpt/generate.h"
#include "command.h"
#include "input_options.h"
#include "store_options.h"
#include "testlib/cli_process.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace {

// What bash completes for the words of `line` (the last one being completed), through the
// script `ckpt completion bash` prints.
std::string bash_completes(const std::string& script, const std::string& line) {
  const std::string words = "(" + line + ")";
  ckpt::test::CliResult r = ckpt::test::run_program(
      {"bash", "-c",
       "source \"$0\"; COMP_WORDS=" + words + "; COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); " +
           "if [[ \"$1\" == *' ' ]]; then COMP_WORDS+=(''); COMP_CWORD=$((COMP_CWORD + 1)); fi; _ckpt; "
           "echo \"${COMPREPLY[*]}\"",
       script, line});
  INFO(r.err);
  REQUIRE(r.status == 0);
  return r.out;
}

}  // namespace

TEST_CASE("bash completion offers each option's words and the object-store options", "[cli]") {
  ckpt::test::ScratchDir s;
  const std::string script = s / "ckpt.bash";
  std::ofstream(script) << ckpt::test::run_cli_ok({"completion", "bash"}).out;
  CHECK(bash_completes(script, "ckpt convert chk-1 --to ") == "rocksdb heap hashmap canonical\n");
  CHECK(bash_completes(script, "ckpt dump chk-1 --format t") == "table\n");
  CHECK(bash_completes(script, "ckpt compact chk-1 --compression ") == "zstd lz4 snappy none\n");
  CHECK(bash_completes(script, "ckpt completion ") == "bash zsh fish\n");
  const std::string commands = bash_completes(script, "ckpt help ");
  for (const ckpt::cli::Command& c : ckpt::cli::commands()) CHECK(commands.find(c.name) != std::string::npos);
  CHECK(bash_completes(script, "ckpt help du") == "dump\n");
  CHECK(bash_completes(script, "ckpt inspect --end") == "--endpoint\n");
  CHECK(bash_completes(script, "ckpt verify --no-s") == "--no-sign-request\n");
}

TEST_CASE("zsh and fish completion offer each option's words and the object-store options", "[cli]") {
  const std::string zsh = ckpt::test::run_cli_ok({"completion", "zsh"}).out;
  CHECK(zsh.find(":value:(rocksdb heap hashmap canonical)'") != std::string::npos);
  CHECK(zsh.find(":value:(ndjson table)'") != std::string::npos);
  CHECK(zsh.find("'1:word:(bash zsh fish)'") != std::string::npos);
  CHECK(zsh.find("'*--endpoint[") != std::string::npos);
  const std::string fish = ckpt::test::run_cli_ok({"completion", "fish"}).out;
  CHECK(fish.find("-l compression -x -a 'zstd lz4 snappy none'") != std::string::npos);
  CHECK(fish.find("__fish_seen_subcommand_from completion' -f -a 'bash zsh fish'") != std::string::npos);
  CHECK(fish.find("-l cache-size -r -F") != std::string::npos);
}

TEST_CASE("the words completion offers are the words the commands take", "[cli]") {
  using ckpt::cli::option_choices;
  for (const std::string& w : option_choices("convert", "--to")) CHECK(ckpt::parse_convert_target(w).ok());
  for (const std::string& w : option_choices("edit", "--to")) CHECK(ckpt::parse_convert_target(w).ok());
  for (const std::string& w : option_choices("generate", "--backend")) CHECK(ckpt::parse_generate_backend(w).ok());
  CHECK(ckpt::test::run_cli({"dump", "x", "--format", "csv"}).status == 2);
  CHECK(option_choices("inspect", "--remap").empty());
}

TEST_CASE("ckpt --help lists the object-store options ckpt(1) documents", "[cli][docs]") {
  const std::string help = ckpt::test::run_cli_ok({"--help"}).out;
  const std::string page = ckpt::test::read_file(ckpt::test::source_dir() + "/man/ckpt.1.md");
  for (const ckpt::cli::GlobalOption& o : ckpt::cli::object_store_options()) {
    INFO(o.name);
    const std::string spelled = std::string(o.name) + (*o.value ? std::string(" ") + o.value : "");
    CHECK(help.find("\n  " + spelled + " ") != std::string::npos);
    CHECK(page.find("* `" + spelled + "`:") != std::string::npos);
  }
}

TEST_CASE("ckpt --help ckpt(1) and completion give the input options every command takes", "[cli][docs]") {
  // --follow-symlinks is taken off the line before parsing, as the object-store options are:
  // without this, no --help or completion would show it.
  const std::string help = ckpt::test::run_cli_ok({"--help"}).out;
  const std::string page = ckpt::test::read_file(ckpt::test::source_dir() + "/man/ckpt.1.md");
  ckpt::test::ScratchDir s;
  const std::string script = s / "ckpt.bash";
  std::ofstream(script) << ckpt::test::run_cli_ok({"completion", "bash"}).out;
  REQUIRE_FALSE(ckpt::cli::input_options().empty());
  for (const ckpt::cli::GlobalOption& o : ckpt::cli::input_options()) {
    INFO(o.name);
    CHECK(help.find("\n  " + std::string(o.name) + " ") != std::string::npos);
    CHECK(page.find("* `" + std::string(o.name) + "`:") != std::string::npos);
    CHECK(bash_completes(script, "ckpt dump --follow-s") == std::string(o.name) + "\n");
  }
}

TEST_CASE("an unknown command is named in the error", "[cli]") {
  ckpt::test::CliResult r = ckpt::test::run_cli({"frobnicate", "chk-1"});
  CHECK(r.status == 2);
  CHECK(r.err.find("no command 'frobnicate'") != std::string::npos);
  CHECK(r.err.find("inspect") != std::string::npos);
  // A known command keeps CLI11's own message.
  CHECK(ckpt::test::run_cli({"inspect", "--no-such-flag", "x"}).err.find("no command") == std::string::npos);
}
