// The printers of `ckpt diff`: text for people, JSON for scripts, NDJSON for entry changes.
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckpt/diff.h"
#include "ckpt/inspect.h"
#include "ckpt/printable.h"
#include "support/json_text.h"

namespace ckpt {

namespace {

nlohmann::ordered_json files_json(const std::vector<DiffFile>& files) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const DiffFile& f : files) out.push_back({{"uri", f.uri}, {"size", f.size}});
  return out;
}

int64_t total(const std::vector<DiffFile>& files) {
  int64_t sum = 0;
  for (const DiffFile& f : files) sum += f.size > 0 ? f.size : 0;
  return sum;
}

std::string quoted(const std::string& s) { return json_text(nlohmann::json(s)); }

}  // namespace

void write_diff_text(const DiffReport& r, std::ostream& out) {
  out << "A: " << printable(r.a) << "\nB: " << printable(r.b) << "\n\n";
  if (!r.named.empty()) {
    out << "operators:\n";
    for (const NamedOperator& n : r.named)
      out << "  " << n.operator_id << "  " << printable(n.uid)
          << (n.description.empty() ? "" : "  " + printable(n.description)) << "\n";
    out << "\n";
  }
  const size_t changes = r.structure.size() + r.renamed.size();
  if (changes == 0) out << "structure: no change\n";
  else out << "structure: " << changes << (changes == 1 ? " change\n" : " changes\n");
  for (const DiffReport::Renamed& n : r.renamed)
    out << "  operator-renamed operator " << n.operator_b << ": " << n.operator_a << " -> " << n.operator_b << "\n";
  for (const StructureChange& c : r.structure) {
    out << "  " << c.what << " operator " << c.operator_id;
    if (c.subtask >= 0) out << " subtask " << c.subtask;
    if (!c.state.empty()) out << " state '" << printable(c.state) << "'";
    if (!c.before.empty() && !c.after.empty())
      out << ": " << printable(c.before) << " -> " << printable(c.after);
    else if (!c.before.empty() || !c.after.empty())
      out << " (" << printable(c.before) << printable(c.after) << ")";
    out << "\n";
  }
  for (const std::string& n : r.notes) out << "  note: " << printable(n) << "\n";

  out << "\nfiles:\n";
  if (!r.subtasks.empty()) {
    out << fmt::format("  {:<8} {:>4} {:>8} {:>10} {:>8} {:>10} {:>8} {:>10}\n", "OPERATOR", "SUB", "SHARED", "BYTES",
                       "NEW", "BYTES", "DROPPED", "BYTES");
    for (const SubtaskFileDiff& s : r.subtasks)
      out << fmt::format("  {:<8} {:>4} {:>8} {:>10} {:>8} {:>10} {:>8} {:>10}\n", s.operator_id.substr(0, 8),
                         s.subtask < 0 ? std::string("-") : std::to_string(s.subtask), s.shared,
                         human_size(s.shared_bytes), s.added, human_size(s.added_bytes), s.removed,
                         human_size(s.removed_bytes));
  }
  out << fmt::format("  shared by both: {}, {}\n", counted(r.files_shared.size(), "file", "files"),
                     human_size(total(r.files_shared)));
  out << fmt::format("  new in B:       {}, {}\n", counted(r.files_added.size(), "file", "files"),
                     human_size(r.b_incremental_bytes));
  out << fmt::format("  dropped from A: {}, {}\n", counted(r.files_removed.size(), "file", "files"),
                     human_size(total(r.files_removed)));
  out << fmt::format("  B: {} incremental over A, {} full\n", human_size(r.b_incremental_bytes),
                     human_size(r.b_full_bytes));

  if (r.keys_compared) {
    out << "\nkeys:\n";
    if (r.keys.empty()) out << "  no entries\n";
    for (const KeyDiffCounts& k : r.keys)
      out << fmt::format("  {} '{}': {} same, {} added, {} removed, {} changed\n", k.operator_id.substr(0, 8),
                         printable(k.state), k.same, k.added, k.removed, k.changed);
  }
  out << "\n" << (r.differs() ? "snapshots differ\n" : "no difference\n");
}

void write_diff_json(const DiffReport& r, std::ostream& out) {
  nlohmann::ordered_json j;
  j["schema"] = "ckpt.diff/1";
  j["snapshot_a"] = r.a;
  j["snapshot_b"] = r.b;
  j["differs"] = r.differs();
  nlohmann::ordered_json structure = nlohmann::ordered_json::array();
  for (const StructureChange& c : r.structure) {
    nlohmann::ordered_json o = {{"change", c.what}, {"operator", c.operator_id}};
    if (c.subtask >= 0) o["subtask"] = c.subtask;
    if (!c.state.empty()) o["state"] = c.state;
    if (!c.before.empty()) o["before"] = c.before;
    if (!c.after.empty()) o["after"] = c.after;
    structure.push_back(std::move(o));
  }
  j["structure"] = std::move(structure);
  j["notes"] = r.notes;
  j["added_files"] = files_json(r.files_added);
  j["removed_files"] = files_json(r.files_removed);
  j["shared_files"] = files_json(r.files_shared);
  j["a_bytes"] = r.a_full_bytes;
  j["b_bytes"] = r.b_full_bytes;
  j["b_incremental_bytes"] = r.b_incremental_bytes;
  nlohmann::ordered_json subtasks = nlohmann::ordered_json::array();
  for (const SubtaskFileDiff& s : r.subtasks)
    subtasks.push_back({{"operator", s.operator_id},
                        {"subtask", s.subtask},
                        {"shared_file_count", s.shared},
                        {"shared_bytes", s.shared_bytes},
                        {"added_file_count", s.added},
                        {"added_bytes", s.added_bytes},
                        {"removed_file_count", s.removed},
                        {"removed_bytes", s.removed_bytes}});
  j["subtask_files"] = std::move(subtasks);
  if (r.keys_compared) {
    nlohmann::ordered_json renamed = nlohmann::ordered_json::array();
    for (const DiffReport::Renamed& n : r.renamed)
      renamed.push_back({{"operator_a", n.operator_a}, {"operator_b", n.operator_b}});
    j["renamed_operators"] = std::move(renamed);
    nlohmann::ordered_json keys = nlohmann::ordered_json::array();
    for (const KeyDiffCounts& k : r.keys)
      keys.push_back({{"operator", k.operator_id},
                      {"state", k.state},
                      {"same_count", k.same},
                      {"added_count", k.added},
                      {"removed_count", k.removed},
                      {"changed_count", k.changed}});
    j["keys"] = std::move(keys);
  }
  if (!r.named.empty()) {
    nlohmann::ordered_json named = nlohmann::ordered_json::array();
    for (const NamedOperator& n : r.named)
      named.push_back({{"operator", n.operator_id}, {"uid", n.uid}, {"description", n.description}});
    j["named_operators"] = std::move(named);
  }
  if (r.naming) j["unmatched_uids"] = r.unmatched_uids;
  out << json_text(j, 2) << "\n";
}

std::string to_ndjson(const KeyChange& c) {
  const DumpEntry& e = c.after ? *c.after : *c.before;
  std::string out = "{\"change\":" + quoted(c.what) + ",\"operator\":" + quoted(e.operator_id) +
                    (e.uid ? ",\"uid\":" + quoted(*e.uid) : std::string()) + ",\"subtask\":" + std::to_string(e.subtask) + ",\"state\":" + quoted(e.state) +
                    ",\"kind\":" + quoted(e.kind);
  if (e.key_group) out += ",\"key_group\":" + std::to_string(*e.key_group);
  // Key fields are JSON text already.
  if (e.key) out += ",\"key\":" + *e.key;
  if (e.namespace_json) out += ",\"namespace\":" + *e.namespace_json;
  if (e.user_key) out += ",\"user_key\":" + *e.user_key;
  if (c.before) out += ",\"before\":" + c.before->value;
  if (c.after) out += ",\"after\":" + c.after->value;
  out += '}';
  return out;
}

}  // namespace ckpt
