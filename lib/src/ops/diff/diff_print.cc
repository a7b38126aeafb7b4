// The printers of `ckpt diff`: text for people, JSON for scripts, NDJSON for entry changes.
#include <ostream>

#include <fmt/format.h>

#include "ckpt/diff.h"
#include "ckpt/inspect.h"
#include "ckpt/json.h"
#include "ckpt/printable.h"
#include "ops/named_operators_json.h"
#include "support/json_text.h"

namespace ckpt {

namespace {

void write_files(JsonWriter& w, std::string_view name, const std::vector<DiffFile>& files) {
  w.key(name);
  w.begin_array();
  for (const DiffFile& f : files) {
    w.begin_object();
    w.member("uri", f.uri);
    w.member("size", f.size);
    w.end_object();
  }
  w.end_array();
}

int64_t total(const std::vector<DiffFile>& files) {
  int64_t sum = 0;
  for (const DiffFile& f : files) sum += f.size > 0 ? f.size : 0;
  return sum;
}

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

void write_diff_json(const DiffReport& r, JsonWriter& w) {
  w.begin_object();
  w.member("schema", "ckpt.diff/1");
  w.member("snapshot_a", r.a);
  w.member("snapshot_b", r.b);
  w.member("differs", r.differs());
  w.key("structure");
  w.begin_array();
  for (const StructureChange& c : r.structure) {
    w.begin_object();
    w.member("change", c.what);
    w.member("operator", c.operator_id);
    if (c.subtask >= 0) w.member("subtask", c.subtask);
    if (!c.state.empty()) w.member("state", c.state);
    if (!c.before.empty()) w.member("before", c.before);
    if (!c.after.empty()) w.member("after", c.after);
    w.end_object();
  }
  w.end_array();
  w.member("notes", r.notes);
  write_files(w, "added_files", r.files_added);
  write_files(w, "removed_files", r.files_removed);
  write_files(w, "shared_files", r.files_shared);
  w.member("a_bytes", r.a_full_bytes);
  w.member("b_bytes", r.b_full_bytes);
  w.member("b_incremental_bytes", r.b_incremental_bytes);
  w.key("subtask_files");
  w.begin_array();
  for (const SubtaskFileDiff& s : r.subtasks) {
    w.begin_object();
    w.member("operator", s.operator_id);
    w.member("subtask", s.subtask);
    w.member("shared_file_count", s.shared);
    w.member("shared_bytes", s.shared_bytes);
    w.member("added_file_count", s.added);
    w.member("added_bytes", s.added_bytes);
    w.member("removed_file_count", s.removed);
    w.member("removed_bytes", s.removed_bytes);
    w.end_object();
  }
  w.end_array();
  if (r.keys_compared) {
    w.key("renamed_operators");
    w.begin_array();
    for (const DiffReport::Renamed& n : r.renamed) {
      w.begin_object();
      w.member("operator_a", n.operator_a);
      w.member("operator_b", n.operator_b);
      w.end_object();
    }
    w.end_array();
    w.key("keys");
    w.begin_array();
    for (const KeyDiffCounts& k : r.keys) {
      w.begin_object();
      w.member("operator", k.operator_id);
      w.member("state", k.state);
      w.member("same_count", k.same);
      w.member("added_count", k.added);
      w.member("removed_count", k.removed);
      w.member("changed_count", k.changed);
      w.end_object();
    }
    w.end_array();
  }
  if (!r.named.empty()) write_named_operators(w, r.named);
  if (r.naming) w.member("unmatched_uids", r.unmatched_uids);
  w.end_object();
}

std::string to_ndjson(const KeyChange& c) {
  const Entry& e = c.after ? *c.after : *c.before;
  std::string out = "{\"change\":";
  append_json_string(out, c.what);
  out += ",\"operator\":\"";
  out += e.operator_id;
  out += '"';
  if (!c.uid.empty()) {
    out += ",\"uid\":";
    append_json_string(out, c.uid);
  }
  out += ",\"subtask\":";
  append_json_integer(out, e.subtask);
  out += ",\"state\":";
  append_json_string(out, e.state);
  out += ",\"kind\":\"";
  out += entry_kind_name(e.kind);
  out += '"';
  if (e.key_group) {
    out += ",\"key_group\":";
    append_json_integer(out, *e.key_group);
  }
  for (const auto& [name, field] : {std::pair("key", &e.key), std::pair("namespace", &e.ns), std::pair("user_key", &e.user_key)})
    if (*field) {
      out += ",\"";
      out += name;
      out += "\":";
      out += (*field)->json();
    }
  if (c.before) out += ",\"before\":" + c.before->value.json();
  if (c.after) out += ",\"after\":" + c.after->value.json();
  out += '}';
  return out;
}

}  // namespace ckpt
