// tools/help_footer.h - the end of every --help: exit statuses and examples, taken from the
// command's man page at build time (tools/help_sections.cmake), so the two cannot drift apart.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ckpt::cli {

// The EXIT STATUS and EXAMPLES sections of one man page, as Markdown. `command` is "" for
// ckpt(1) itself.
struct ManSections {
  const char* command;
  const char* exit_status;
  const char* examples;
};

const std::vector<ManSections>& man_sections();  // generated

// "Exit status:" and "Examples:" as plain text for CLI11's footer ("" if the page has neither):
// Markdown list items and code blocks indented, code spans without their backquotes.
std::string help_footer(std::string_view command);

}  // namespace ckpt::cli
