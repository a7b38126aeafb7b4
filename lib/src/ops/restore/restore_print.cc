// The restore report as lines for people and as JSON for scripts.
#include <ostream>

#include <fmt/format.h>

#include "ckpt/inspect.h"
#include "ckpt/json.h"
#include "ckpt/printable.h"
#include "ckpt/restore.h"

namespace ckpt {

namespace {
// Single-quoted for a POSIX shell.
std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

std::string RestoreReport::ldb_command() const {
  for (const RestoredInstance& i : instances) {
    if (i.column_families.empty()) continue;
    return fmt::format("ldb --db={} --column_family={} scan --hex --max_keys=10", shell_quote(i.directory),
                       shell_quote(i.column_families.front()));
  }
  if (instances.empty()) return {};
  return fmt::format("ldb --db={} list_column_families", shell_quote(instances.front().directory));
}

void write_restore_text(const RestoreReport& r, std::ostream& out) {
  uint64_t files = 0, bytes = 0, linked = 0;
  for (const RestoredInstance& i : r.instances) {
    std::string states;
    for (const std::string& cf : i.column_families) states += (states.empty() ? "" : ", ") + printable(cf);
    out << fmt::format("{}: key groups {}-{}, {} ({}{}), {}, column families: {}\n", printable(i.directory),
                       i.key_groups.first, i.key_groups.last(), counted(i.files, "file", "files"),
                       human_size(static_cast<int64_t>(i.bytes)),
                       i.linked_files ? fmt::format(", {} linked", i.linked_files) : std::string(),
                       counted(i.entries, "entry", "entries"), states.empty() ? "-" : states);
    files += i.files;
    bytes += i.bytes;
    linked += i.linked_files;
  }
  for (const SkippedSubtask& s : r.skipped)
    out << fmt::format("skipped operator {}, subtask {}: {}\n", s.operator_id, s.subtask, printable(s.reason));
  out << fmt::format("{}: {}, {}, {}{}\n", printable(r.output), counted(r.instances.size(), "instance", "instances"),
                     counted(files, "file", "files"), human_size(static_cast<int64_t>(bytes)),
                     linked ? fmt::format(" ({} linked)", counted(linked, "file", "files")) : std::string());
  if (std::string ldb = r.ldb_command(); !ldb.empty()) out << "try: " << printable(ldb) << '\n';
}

void write_restore_json(const RestoreReport& r, JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.restore/1");
  w.member("output", r.output);
  w.key("instances");
  w.begin_array();
  for (const RestoredInstance& i : r.instances) {
    w.begin_object();
    w.member("operator", i.operator_id);
    w.member("subtask", i.subtask);
    w.member("path", i.directory);
    // Flink normalises the empty range to [0, -1] (formats/json.md §2).
    w.key("key_group_range");
    w.begin_array();
    w.value(i.key_groups.empty() ? 0 : i.key_groups.first);
    w.value(i.key_groups.empty() ? -1 : i.key_groups.last());
    w.end_array();
    w.member("column_families", i.column_families);
    w.member("file_count", i.files);
    w.member("bytes", i.bytes);
    w.member("linked_file_count", i.linked_files);
    w.member("entry_count", i.entries);
    w.end_object();
  }
  w.end_array();
  w.key("skipped");
  w.begin_array();
  for (const SkippedSubtask& s : r.skipped) {
    w.begin_object();
    w.member("operator", s.operator_id);
    w.member("subtask", s.subtask);
    w.member("reason", s.reason);
    w.end_object();
  }
  w.end_array();
  w.member("ldb", r.ldb_command());
  w.end_object();
}

}  // namespace ckpt
