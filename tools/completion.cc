// Completion scripts for bash, zsh and fish from the app's subcommands and options.
//
// Flags that take one of a fixed set of words (tools/choices.h) complete those words; other
// flags that take a value complete file names (most values are paths; the others are short
// words the user types); positional arguments complete file names, or their words (`help`
// the commands, `completion` the shells). The object-store options, which every command takes
// (ckpt(1) OBJECT STORES), are offered with every command's own.
#include "completion.h"

#include <string>
#include <vector>

#include "choices.h"
#include "input_options.h"
#include "store_options.h"

namespace ckpt::cli {
namespace {

struct Flag {
  std::vector<std::string> names;  // "--state", "-j"
  std::string description;
  bool takes_value = false;
  std::vector<std::string> choices;  // the words the value is one of; empty: a file name
};

struct Sub {
  std::string name;
  std::string description;
  std::vector<Flag> flags;
  std::vector<std::string> positional_choices;  // of the first positional; empty: file names
};

std::vector<Sub> model(const CLI::App& app) {
  std::vector<Sub> out;
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(sub->get_name());
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    Sub s{sub->get_name(), sub->get_description(), {}, {}};
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_positional() && o->get_lnames().empty() && o->get_snames().empty()) {
        if (s.positional_choices.empty())
          s.positional_choices = s.name == "help" ? commands : option_choices(s.name, o->get_name());
        continue;
      }
      if (o->get_group().empty()) continue;  // hidden aliases: old spellings are not offered
      Flag f;
      for (const std::string& l : o->get_lnames()) f.names.push_back("--" + l);
      for (const std::string& c : o->get_snames()) f.names.push_back("-" + c);
      if (f.names.empty()) continue;
      f.description = o->get_description();
      f.takes_value = o->get_items_expected_max() > 0;
      f.choices = option_choices(s.name, f.names.front());
      s.flags.push_back(std::move(f));
    }
    for (const auto* globals : {&input_options(), &object_store_options()})
      for (const GlobalOption& g : *globals) s.flags.push_back(Flag{{g.name}, g.help, *g.value != 0, {}});
    out.push_back(std::move(s));
  }
  return out;
}

std::string words(const std::vector<std::string>& list) {
  std::string out;
  for (const std::string& w : list) out += (out.empty() ? "" : " ") + w;
  return out;
}

// 'text' for a POSIX shell.
std::string single_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// zsh's _arguments and _describe give ':', '[' and ']' meanings of their own.
std::string zsh_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == ':' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void bash(std::ostream& out, const std::vector<Sub>& subs) {
  out << "# bash completion for ckpt (written by `ckpt completion bash`)\n"
         "_ckpt() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
         "  if [[ $COMP_CWORD -eq 1 ]]; then\n"
         "    COMPREPLY=($(compgen -W \"";
  for (const Sub& s : subs) out << s.name << ' ';
  out << "--help --version\" -- \"$cur\"))\n"
         "    return\n"
         "  fi\n"
         "  local flags=\"\" valued=\"\" choices=\"\" positional=\"\"\n"
         "  case \"${COMP_WORDS[1]}\" in\n";
  for (const Sub& s : subs) {
    std::string flags, valued, by_flag;
    for (const Flag& f : s.flags)
      for (const std::string& n : f.names) {
        flags += (flags.empty() ? "" : " ") + n;
        if (f.takes_value) valued += (valued.empty() ? "" : " ") + n;
        if (!f.choices.empty()) by_flag += " " + n + ") choices=\"" + words(f.choices) + "\" ;;";
      }
    out << "    " << s.name << ") flags=\"" << flags << "\"; valued=\"" << valued << "\"";
    if (!s.positional_choices.empty()) out << "; positional=\"" << words(s.positional_choices) << "\"";
    if (!by_flag.empty()) out << "\n      case \"$prev\" in" << by_flag << " esac";
    out << " ;;\n";
  }
  out << "  esac\n"
         "  if [[ -n \"$choices\" ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$choices\" -- \"$cur\"))\n"
         "  elif [[ \" $valued \" == *\" $prev \"* ]]; then\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  elif [[ \"$cur\" == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n"
         "  elif [[ -n \"$positional\" ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$positional\" -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -o bashdefault -F _ckpt ckpt\n";
}

void zsh(std::ostream& out, const std::vector<Sub>& subs) {
  out << "#compdef ckpt\n"
         "# zsh completion for ckpt (written by `ckpt completion zsh`)\n"
         "_ckpt() {\n"
         "  local -a commands\n"
         "  commands=(\n";
  for (const Sub& s : subs) out << "    " << single_quoted(zsh_text(s.name) + ":" + zsh_text(s.description)) << "\n";
  out << "  )\n"
         "  if (( CURRENT == 2 )); then\n"
         "    _describe -t commands 'ckpt command' commands\n"
         "    return\n"
         "  fi\n"
         "  local cmd=$words[2]\n"
         "  shift words\n"
         "  (( CURRENT-- ))\n"
         "  case $cmd in\n";
  for (const Sub& s : subs) {
    out << "    " << s.name << ")\n      _arguments -s";
    for (const Flag& f : s.flags)
      for (const std::string& n : f.names) {
        // Repeatable flags (--remap, --uid) may come again: '*' before each spec.
        std::string spec = "*" + n + "[" + zsh_text(f.description) + "]";
        if (!f.choices.empty())
          spec += ":value:(" + words(f.choices) + ")";
        else if (f.takes_value)
          spec += ":value:_files";
        out << " \\\n        " << single_quoted(spec);
      }
    if (s.positional_choices.empty())
      out << " \\\n        '*:file:_files'\n      ;;\n";
    else
      out << " \\\n        " << single_quoted("1:word:(" + words(s.positional_choices) + ")") << "\n      ;;\n";
  }
  out << "  esac\n"
         "}\n"
         "_ckpt \"$@\"\n";
}

void fish(std::ostream& out, const std::vector<Sub>& subs) {
  out << "# fish completion for ckpt (written by `ckpt completion fish`)\n"
         "complete -c ckpt -f\n";
  std::string names;
  for (const Sub& s : subs) names += (names.empty() ? "" : " ") + s.name;
  for (const Sub& s : subs)
    out << "complete -c ckpt -n " << single_quoted("not __fish_seen_subcommand_from " + names) << " -a " << s.name
        << " -d " << single_quoted(s.description) << "\n";
  for (const Sub& s : subs) {
    const std::string when = single_quoted("__fish_seen_subcommand_from " + s.name);
    if (s.positional_choices.empty())
      out << "complete -c ckpt -n " << when << " -F\n";
    else
      out << "complete -c ckpt -n " << when << " -f -a " << single_quoted(words(s.positional_choices)) << "\n";
    for (const Flag& f : s.flags) {
      out << "complete -c ckpt -n " << when;
      for (const std::string& n : f.names) out << (n.rfind("--", 0) == 0 ? " -l " + n.substr(2) : " -s " + n.substr(1));
      if (!f.choices.empty())
        out << " -x -a " << single_quoted(words(f.choices));
      else if (f.takes_value)
        out << " -r -F";
      out << " -d " << single_quoted(f.description) << "\n";
    }
  }
}

}  // namespace

bool write_completion(std::ostream& out, std::string_view shell, const CLI::App& app) {
  const std::vector<Sub> subs = model(app);
  if (shell == "bash") bash(out, subs);
  else if (shell == "zsh") zsh(out, subs);
  else if (shell == "fish") fish(out, subs);
  else return false;
  return true;
}

}  // namespace ckpt::cli
