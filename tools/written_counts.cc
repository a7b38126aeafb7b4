// The counts of a written snapshot (written_counts.h).
#include "written_counts.h"

#include <fmt/format.h>

#include "ckpt/inspect.h"

namespace ckpt::cli {

std::string written_counts(const ConvertSummary& s) {
  return fmt::format("{}, {}, {}, {}", counted(s.subtasks, "subtask", "subtasks"),
                     counted(s.entries, "entry", "entries"), counted(s.files, "file", "files"),
                     counted(s.bytes, "byte", "bytes"));
}

}  // namespace ckpt::cli
