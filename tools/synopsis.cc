// Usage lines generated from the options, so that --help and the man pages cannot drift.
#include "synopsis.h"

namespace ckpt::cli {

std::string synopsis(const CLI::App& sub) {
  std::string out = "ckpt " + sub.get_name();
  auto optional = [](const CLI::Option* o, std::string s) { return o->get_required() ? s : "[" + s + "]"; };
  for (const CLI::Option* o : sub.get_options([](const CLI::Option* o) { return o->get_positional(); }))
    out += " " + optional(o, o->get_name(true));
  for (const CLI::Option* o : sub.get_options([](const CLI::Option* o) { return o->nonpositional(); })) {
    if (o == sub.get_help_ptr()) continue;
    if (o->get_group().empty()) continue;  // a hidden alias (an old spelling) is not advertised
    std::string s;
    if (o->get_expected_max() == 0) {
      s = o->get_snames().empty() ? "--" + o->get_lnames().front() : "-" + o->get_snames().front();
    } else {
      // get_type_name() appends ":<validator>" descriptions; the metavariable is what precedes.
      std::string value = o->get_type_name();
      value = value.substr(0, value.find(':'));
      s = (o->get_lnames().empty() ? "-" + o->get_snames().front() : "--" + o->get_lnames().front()) + " " + value;
    }
    out += " " + optional(o, s);
    if (o->get_expected_max() > 1) out += "...";
  }
  return out;
}

namespace {
class SynopsisFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    if (!app->get_parent()) return CLI::Formatter::make_usage(app, std::move(name));
    return "Usage: " + synopsis(*app) + "\n";
  }
};
}  // namespace

std::shared_ptr<CLI::Formatter> synopsis_formatter() { return std::make_shared<SynopsisFormatter>(); }

}  // namespace ckpt::cli
