// One spelling per concept across the subcommands' flags, read from the command table as
// `ckpt <command> --help` shows it: a script written against one subcommand's flags works
// with the others'. Old spellings stay as hidden aliases (CLI11 group "").
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ckpt/convert.h"
#include "ckpt/generate.h"
#include "command.h"
#include "testlib/cli_run.h"
#include "testlib/test_support.h"

namespace {

struct Flag {
  std::string command;
  std::vector<std::string> longs, shorts;
  std::string value;  // the metavariable, "" for a switch
  std::string description;
};

// generate's flags describe the data it makes up (how many operators and keys, which kinds of
// state), not a selection of a snapshot's: --keys K, --operators N and --states KINDS are not
// diff's --keys, dump's --operator ID or --state NAME.
bool describes_synthetic_data(const Flag& f, const std::string& name) {
  return f.command == "generate" && (name == "keys" || name == "operators" || name == "states");
}

// Every visible flag of every subcommand, as run() registers them.
std::vector<Flag> visible_flags(CLI::App& app) {
  std::vector<Flag> out;
  for (const ckpt::cli::Command& c : ckpt::cli::commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    c.setup(*sub);
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_positional() || o == sub->get_help_ptr() || o->get_group().empty()) continue;
      Flag f{c.name, o->get_lnames(), o->get_snames(), "", o->get_description()};
      if (o->get_expected_max() != 0) f.value = o->get_type_name().substr(0, o->get_type_name().find(':'));
      out.push_back(std::move(f));
    }
  }
  return out;
}

// "key-groups" and "key-group" are one concept: dashes dropped, a plural's "s" too.
std::string concept_of(std::string name) {
  name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
  if (name.size() > 3 && name.back() == 's') name.pop_back();
  return name;
}

bool has(const std::vector<Flag>& flags, const std::string& command, const std::string& name) {
  return std::any_of(flags.begin(), flags.end(), [&](const Flag& f) {
    return f.command == command && std::find(f.longs.begin(), f.longs.end(), name) != f.longs.end();
  });
}

std::set<std::string> commands_with(const std::vector<Flag>& flags, const std::string& name) {
  std::set<std::string> out;
  for (const Flag& f : flags)
    if (std::find(f.longs.begin(), f.longs.end(), name) != f.longs.end()) out.insert(f.command);
  return out;
}

}  // namespace

TEST_CASE("every concept has one flag spelling across the subcommands", "[cli]") {
  CLI::App app;
  const std::vector<Flag> flags = visible_flags(app);
  REQUIRE(flags.size() > 50);
  // Spellings that differ by dashes or a plural "s" name one concept, except these pairs of
  // two concepts: --uid NAME (one uid) and --uids FILE (a file of them); --key JSON (one key
  // to look up) and --keys (compare entries); --shard K/N (run one part) and plan's --shards N
  // (how many parts), both spelled so by issue 15.
  const std::set<std::string> two_concepts = {"uid", "key", "shard"};
  std::map<std::string, std::set<std::string>> spellings;
  for (const Flag& f : flags)
    for (const std::string& l : f.longs)
      if (!describes_synthetic_data(f, l)) spellings[concept_of(l)].insert(l);
  for (const auto& [concept_name, names] : spellings) {
    if (two_concepts.count(concept_name)) continue;
    INFO("concept " << concept_name);
    CHECK(names.size() == 1);
  }
  // A short flag means one long flag everywhere, and never stands alone.
  std::map<std::string, std::set<std::string>> longs_of_short;
  for (const Flag& f : flags)
    for (const std::string& s : f.shorts) {
      INFO("ckpt " << f.command << " -" << s);
      CHECK_FALSE(f.longs.empty());
      for (const std::string& l : f.longs) longs_of_short[s].insert(l);
    }
  for (const auto& [s, longs] : longs_of_short) {
    INFO("-" << s);
    CHECK(longs.size() == 1);
  }
  CHECK(longs_of_short["j"] == std::set<std::string>{"jobs"});
  CHECK(longs_of_short["o"] == std::set<std::string>{"output"});
  // A flag takes the same kind of value everywhere (relocate writes a _metadata FILE, report an
  // HTML FILE; --format
  // lists what each command prints).
  std::map<std::string, std::set<std::string>> values;
  for (const Flag& f : flags)
    for (const std::string& l : f.longs)
      if (!((f.command == "relocate" || f.command == "report") && l == "output") && l != "format" &&
          !describes_synthetic_data(f, l))
        // edit's per-operator form, [OP=]M, takes the same value as M for one operator.
        values[l].insert(f.value.rfind("[OP=]", 0) == 0 ? f.value.substr(5) : f.value);
  for (const auto& [l, v] : values) {
    INFO("--" << l);
    CHECK(v.size() == 1);
  }
}

TEST_CASE("every subcommand that writes an output takes --force and --json", "[cli]") {
  CLI::App app;
  const std::vector<Flag> flags = visible_flags(app);
  const std::set<std::string> writers = commands_with(flags, "output");
  // At least these; a new writer joins the rule below by having --output.
  for (const char* c : {"compact", "convert", "edit", "generate", "relocate", "restore"}) CHECK(writers.count(c) == 1);
  for (const std::string& c : writers) {
    INFO("ckpt " << c);
    CHECK(has(flags, c, "force"));
    CHECK(has(flags, c, "json"));
  }
  // Reports for scripts: every subcommand but the entry printers (dump's NDJSON) and the shell helpers.
  for (const char* c : {"inspect", "verify", "diff", "gc"}) {
    INFO("ckpt " << c);
    CHECK(has(flags, c, "json"));
  }
  // Each subcommand that decodes change logs' keys can be given their key serializers.
  const std::set<std::string> key_serializers = commands_with(flags, "key-serializers-from");
  for (const char* c : {"convert", "diff", "dump", "restore"}) CHECK(key_serializers.count(c) == 1);
  const std::set<std::string> key_groups = commands_with(flags, "key-groups");
  for (const char* c : {"dump", "restore"}) CHECK(key_groups.count(c) == 1);
}

TEST_CASE("--help names every value --to and --backend accept and the old spellings still parse", "[cli]") {
  CLI::App app;
  const std::vector<Flag> flags = visible_flags(app);
  auto description = [&](const std::string& command, const std::string& name) {
    for (const Flag& f : flags)
      if (f.command == command && std::find(f.longs.begin(), f.longs.end(), name) != f.longs.end())
        return f.description;
    return std::string();
  };
  for (const char* kind : {"rocksdb", "heap", "hashmap", "canonical"}) {
    INFO(kind);
    CHECK(ckpt::parse_convert_target(kind).ok());
    CHECK(description("convert", "to").find(kind) != std::string::npos);
    CHECK(ckpt::parse_generate_backend(kind).ok());
    CHECK(description("generate", "backend").find(kind) != std::string::npos);
  }
  CHECK_FALSE(ckpt::parse_convert_target("hash").ok());
  // --key-group, dump's old spelling, is a hidden alias: accepted, not advertised.
  const std::string sample = ckpt::test::source_dir() + "/testdata/sample-savepoint";
  auto old = ckpt::test::run_cli({"dump", sample, "--key-group", "64-127"});
  auto now = ckpt::test::run_cli({"dump", sample, "--key-groups", "64-127"});
  CHECK(old.status == 0);
  CHECK_FALSE(old.out.empty());
  CHECK(old.out == now.out);
  auto help = ckpt::test::run_cli({"dump", "--help"});
  CHECK(help.out.find("--key-groups") != std::string::npos);
  CHECK(help.out.find("--key-group ") == std::string::npos);
  CHECK(help.out.find("--key-group,") == std::string::npos);
}
