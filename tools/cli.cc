// Top-level parsing: one CLI11 app, one sub-app per row of the command table.
#include <memory>
#include <ostream>

#include "command.h"
#include "ckpt/version.h"
#include "synopsis.h"

namespace ckpt::cli {

void print_error(Io& io, const std::string& message) { io.err << "ckpt: error: " << message << "\n"; }
void print_warning(Io& io, const std::string& message) { io.err << "ckpt: warning: " << message << "\n"; }

int run(int argc, const char* const* argv, Io& io) {
  CLI::App app{"ckpt: read and write Apache Flink checkpoints and savepoints without a JVM", "ckpt"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ckpt ") + ckpt::version_string());
  std::vector<std::pair<CLI::App*, Runner>> subs;
  for (const Command& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    sub->formatter(synopsis_formatter());
    subs.emplace_back(sub, c.setup(*sub));
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
    print_error(io, e.what());
    io.err << "run 'ckpt --help' or 'ckpt <command> --help' for usage\n";
    return kExitError;
  }
  for (auto& [sub, runner] : subs) {
    if (sub->parsed()) {
      try {
        return runner(io);
      } catch (const std::exception& e) {
        // The library does not throw; this catches std::bad_alloc and bugs, never silently.
        print_error(io, std::string("internal error: ") + e.what());
        return kExitError;
      } catch (...) {
        print_error(io, "internal error: an exception that is not a std::exception");
        return kExitError;
      }
    }
  }
  return kExitError;
}

int run(const std::vector<std::string>& args, Io& io) {
  std::vector<const char*> argv{"ckpt"};
  for (const auto& a : args) argv.push_back(a.c_str());
  return run(static_cast<int>(argv.size()), argv.data(), io);
}

}  // namespace ckpt::cli
