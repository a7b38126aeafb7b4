#include "help_footer.h"

#include <sstream>

namespace ckpt::cli {

namespace {

// A terminal has no code spans: `ckpt dump` reads as ckpt dump.
std::string plain(std::string_view line) {
  std::string out;
  for (char c : line)
    if (c != '`') out += c;
  return out;
}

// Paragraphs and list items at two spaces, code blocks (four in Markdown) at six, blank lines
// kept single, as CLI11 prints its own sections.
std::string section(const char* title, std::string_view markdown) {
  std::istringstream in{std::string(markdown)};
  std::string line, body;
  bool blank = true;  // drops leading and doubled blank lines
  while (std::getline(in, line)) {
    if (line.find_first_not_of(' ') == std::string::npos) {
      if (!blank) body += "\n";
      blank = true;
      continue;
    }
    blank = false;
    if (line.rfind("    ", 0) == 0) {
      body += "  " + line + "\n";  // code: kept verbatim
    } else if (line.rfind("* ", 0) == 0) {
      body += "  " + plain(line.substr(2)) + "\n";
    } else {
      size_t indent = line.find_first_not_of(' ');
      body += "  " + std::string(indent, ' ') + plain(line.substr(indent)) + "\n";
    }
  }
  while (!body.empty() && body.size() >= 2 && body.substr(body.size() - 2) == "\n\n") body.pop_back();
  if (body.empty()) return {};
  return std::string(title) + ":\n" + body;
}

}  // namespace

std::string help_footer(std::string_view command) {
  for (const ManSections& s : man_sections()) {
    if (command != s.command) continue;
    std::string exit_status = section("Exit status", s.exit_status);
    std::string examples = section("Examples", s.examples);
    if (!exit_status.empty() && !examples.empty()) exit_status += "\n";
    return exit_status + examples;
  }
  return {};
}

}  // namespace ckpt::cli
