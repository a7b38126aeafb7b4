// The restore report as lines for people and as JSON for scripts.
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/inspect.h"
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

void write_restore_json(const RestoreReport& r, std::ostream& out) {
  nlohmann::ordered_json j;
  j["schema"] = "ckpt.restore/1";
  j["output"] = r.output;
  nlohmann::ordered_json instances = nlohmann::ordered_json::array();
  for (const RestoredInstance& i : r.instances) {
    nlohmann::ordered_json o;
    o["operator"] = i.operator_id;
    o["subtask"] = i.subtask;
    o["path"] = i.directory;
    // Flink normalises the empty range to [0, -1] (formats/json.md §2).
    o["key_group_range"] = {i.key_groups.empty() ? 0 : i.key_groups.first,
                            i.key_groups.empty() ? -1 : i.key_groups.last()};
    o["column_families"] = i.column_families;
    o["file_count"] = i.files;
    o["bytes"] = i.bytes;
    o["linked_file_count"] = i.linked_files;
    o["entry_count"] = i.entries;
    instances.push_back(std::move(o));
  }
  j["instances"] = std::move(instances);
  nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
  for (const SkippedSubtask& s : r.skipped)
    skipped.push_back({{"operator", s.operator_id}, {"subtask", s.subtask}, {"reason", s.reason}});
  j["skipped"] = std::move(skipped);
  j["ldb"] = r.ldb_command();
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace ckpt
