// Top-level parsing: one CLI11 app, one sub-app per row of the command table.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string_view>

#include "ckpt/error_codes.h"
#include "ckpt/printable.h"
#include "ckpt/query.h"
#include "ckpt/resolve.h"
#include "ckpt/version.h"
#include "command.h"
#include "did_you_mean.h"
#include "help_footer.h"
#include "input_options.h"
#include "json_output.h"
#include "store_options.h"
#include "synopsis.h"

namespace ckpt::cli {

// Messages name files and quote what `_metadata` says: escaped, one line each.
void print_error(Io& io, const std::string& message) {
  io.err << "ckpt: error: " << printable(message) << "\n";
  io.last_error = message;
}

// A directory given where a snapshot was meant (a job's checkpoint directory, a directory of
// jobs): every command says which snapshots it holds and how to reach them.
static void hint_at_snapshots(Io& io, const Error& e) {
  if (e.code != ErrorCode::kNotFound || e.file.empty() || io.command.empty() ||
      e.message.rfind("directory holds no _metadata file", 0) != 0)
    return;
  const std::vector<std::string> inside = snapshots_in(e.file);
  const std::string dir = printable(e.file);
  if (!inside.empty())
    io.err << "run 'ckpt " << io.command << " " << printable((std::filesystem::path(e.file) / inside.back()).string())
           << "' for the newest of them, 'ckpt ls " << dir << "' to list them all\n";
  else if (list_snapshots(e.file).ok())
    io.err << "run 'ckpt ls " << dir << "' to list the snapshots of the jobs under it\n";
}

int report_error(Io& io, const Error& e) {
  print_error(io, e.to_string());
  hint_at_snapshots(io, e);
  if (io.json && !io.json_written) print_json_error(io, error_code_id(e.code), e);
  return kExitError;
}

namespace {

// A failure reported only as text (a malformed flag value, a --remap spec) still leaves an
// error object on stdout under --json.
int with_error_object(Io& io, int status, const char* code) {
  if (status == kExitError && io.json && !io.json_written)
    print_json_error(io, code,
                     Error(ErrorCode::kInvalidArgument, io.last_error.empty() ? "the command failed" : io.last_error));
  return status;
}

}  // namespace
void print_warning(Io& io, const std::string& message) { io.err << "ckpt: warning: " << printable(message) << "\n"; }

namespace {

// A repeatable option takes exactly one value per flag, as written. CLI11 would otherwise read
// a value in brackets as a list (`--key '[1,"a"]'` became the keys 1 and "a") and let the flag
// swallow the positional after it. Options with a delimiter (`--hot-key-groups 1,5`) keep it.
void one_value_per_flag(CLI::App& sub) {
  for (CLI::Option* opt : sub.get_options())
    if (opt->nonpositional() && opt->get_allow_extra_args() && opt->get_delimiter() == '\0')
      opt->allow_extra_args(false);
}

// The options every command takes anywhere on its line, for `ckpt --help` (they are taken off
// the line before parsing, so CLI11 never lists them).
std::string global_options_help() {
  auto listed = [](const std::vector<GlobalOption>& options) {
    std::string out;
    for (const GlobalOption& o : options) {
      std::string flag = std::string(o.name) + (*o.value ? std::string(" ") + o.value : "");
      out += "  " + flag + std::string(flag.size() < 24 ? 24 - flag.size() : 1, ' ') + o.help + "\n";
    }
    return out;
  };
  return "Input options (every command, anywhere on its line; ckpt(1) OPTIONS):\n" + listed(input_options()) +
         "\nObject-store options (every command, anywhere on its line; ckpt(1) OBJECT STORES):\n" +
         listed(object_store_options()) + "\n";
}

// The first word that is not an option: the command ckpt was asked to run, if any.
std::string_view command_word(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] != '-') return argv[i];
  return {};
}

// After a parse error: for each flag of the line the command does not have, the one it has
// that was most likely meant ("--jsn": "--json").
void suggest_flags(Io& io, CLI::App& app, std::string_view command, int argc, const char* const* argv) {
  const std::vector<CLI::App*> named =
      app.get_subcommands([command](CLI::App* s) { return s->get_name() == command; });
  if (named.empty()) return;
  const CLI::App* sub = named.front();
  std::vector<std::string> flags, offered;  // offered: not the hidden old spellings kept as aliases
  for (const CLI::Option* opt : sub->get_options())
    for (const std::string& name : opt->get_lnames()) {
      flags.push_back("--" + name);
      if (!opt->get_group().empty()) offered.push_back(flags.back());
    }
  // The options every command takes, taken off the line before parsing.
  for (const auto* globals : {&input_options(), &object_store_options()})
    for (const GlobalOption& o : *globals) offered.emplace_back(o.name);
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    if (!arg.starts_with("--")) continue;
    arg = arg.substr(0, arg.find('='));
    if (std::find(flags.begin(), flags.end(), arg) != flags.end()) continue;
    if (std::optional<std::string> meant = did_you_mean(arg, offered))
      io.err << "ckpt: " << printable(std::string(arg)) << ": did you mean " << *meant << "?\n";
  }
}

int run_local(int argc, const char* const* argv, Io& io) {
  CLI::App app{"ckpt: read and write Apache Flink checkpoints and savepoints without a JVM", "ckpt"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ckpt ") + ckpt::version_string());
  app.footer(global_options_help() + help_footer(""));
  std::vector<std::pair<CLI::App*, Runner>> subs;
  for (const Command& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    sub->formatter(synopsis_formatter());
    sub->footer(help_footer(c.name));
    subs.emplace_back(sub, c.setup(*sub));
    one_value_per_flag(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    io.out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp& e) {
    io.out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    io.out << e.what() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // Sub-app --help arrives here as a CallForHelp raised while parsing the sub-app.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      for (auto& [sub, runner] : subs)
        if (sub->parsed()) { io.out << sub->help(); return kExitOk; }
      io.out << app.help();
      return kExitOk;
    }
    const std::string_view word = command_word(argc, argv);
    bool known = word.empty();
    std::string names;
    for (const Command& c : commands()) {
      known = known || word == c.name;
      names += (names.empty() ? "" : ", ") + std::string(c.name);
    }
    if (!known) {
      std::vector<std::string> all;
      for (const Command& c : commands()) all.emplace_back(c.name);
      const std::optional<std::string> meant = did_you_mean(word, all);
      print_error(io, "no command '" + std::string(word) + "'" + (meant ? "; did you mean '" + *meant + "'?" : "") +
                          " (the commands: " + names + ")");
    } else {
      print_error(io, e.what());
      suggest_flags(io, app, word, argc, argv);
    }
    io.err << "run 'ckpt --help' or 'ckpt <command> --help' for usage\n";
    for (int i = 1; i < argc; ++i) io.json |= std::string_view(argv[i]) == "--json";
    return with_error_object(io, kExitError, "usage");
  }
  for (auto& [sub, runner] : subs) {
    if (sub->parsed()) {
      io.command = sub->get_name();
      const CLI::Option* json = sub->get_option_no_throw("--json");
      io.json = json && json->count() > 0;
      try {
        return with_error_object(io, runner(io), "invalid_argument");
      } catch (const std::exception& e) {
        // The library does not throw; this catches std::bad_alloc and bugs, never silently.
        print_error(io, std::string("internal error: ") + e.what());
        return with_error_object(io, kExitError, "internal");
      } catch (...) {
        print_error(io, "internal error: an exception that is not a std::exception");
        return with_error_object(io, kExitError, "internal");
      }
    }
  }
  return kExitError;
}

int run_local(const std::vector<std::string>& args, Io& io) {
  std::vector<const char*> argv{"ckpt"};
  for (const auto& a : args) argv.push_back(a.c_str());
  return run_local(static_cast<int>(argv.size()), argv.data(), io);
}

}  // namespace

int run(int argc, const char* const* argv, Io& io) {
  std::vector<std::string> args(argv + 1, argv + argc);
  InputOptions inputs(args);
  StoreOptions store(args, io);
  if (!store.error().empty()) {
    print_error(io, store.error());
    return kExitError;
  }
  return run_local(args, io);
}

int run(const std::vector<std::string>& args, Io& io) {
  std::vector<const char*> argv{"ckpt"};
  for (const auto& a : args) argv.push_back(a.c_str());
  return run(static_cast<int>(argv.size()), argv.data(), io);
}

}  // namespace ckpt::cli
