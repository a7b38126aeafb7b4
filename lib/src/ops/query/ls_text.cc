// ckpt-ls(1)'s table (ckpt/query.h).
#include <string>
#include <vector>

#include "ckpt/inspect.h"
#include "ckpt/printable.h"
#include "ckpt/query.h"
#include "support/text_table.h"

namespace ckpt {

std::string ls_text(const std::vector<ListedSnapshot>& found) {
  std::vector<std::vector<std::string>> rows = {
      {"JOB", "NAME", "KIND", "ID", "TIME", "SIZE", "BACKEND", "GC", "STATUS"}};
  for (const ListedSnapshot& s : found) {
    const bool read = s.complete && s.problem.empty();
    // Names are directory names and a problem quotes input: both printable() for a terminal.
    rows.push_back({printable(s.job), printable(s.name), s.kind.empty() ? "-" : s.kind, s.id ? std::to_string(*s.id) : "-",
                    s.time.empty() ? "-" : s.time, read ? human_size(s.state_size) : "-",
                    s.backend.empty() ? "-" : s.backend, s.gc,
                    !s.complete          ? "in progress (no _metadata)"
                    : !s.problem.empty() ? "unreadable: " + printable(s.problem)
                                         : "complete"});
  }
  return aligned_table(rows, {false, false, false, true, false, true});
}

}  // namespace ckpt
